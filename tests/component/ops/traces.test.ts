/**
 * OpenTelemetry traces (docs/operations.md, "Traces"; issue 32 item 1), through the built CLI (`node dist/src/cli/main.js`,
 * tests/support/cli.ts cliJs) on this file's own database, with Redis:
 * - without the OTLP variables `serve` loads no OpenTelemetry module (a probe preloaded into the process counts them; but
 *   for prom-client's own dependency, the no-op `@opentelemetry/api`);
 * - on a Node older than the packages support (Node 20) the variable gives one warning and the service runs without traces;
 * - on Node >= 22.15 (CI's Node 24 run) a submission's trace reaches an OTLP/HTTP receiver in this process (JSON
 *   encoding): the server span named by the openapi/ template with the style, operation id and key id, a pg span and a
 *   Redis span of the same trace, the worker's delivery span continuing it, and the webhook receiver got a
 *   `traceparent` of that trace, whose parent is the delivery's POST span; no span holds the key's secret (not even one
 *   sent in the query), an email address or an answer, and the log lines of the request and of the attempt carry their
 *   spans' ids.
 */
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { nodeSupportsTracing, TRACING_MIN_NODE } from '../../../src/platform/tracing-state';
import type { Db } from '../../../src/db/connection';
import { childProcesses, type Child } from '../../support/child-cli';
import { formWorkspace, goodAnswers } from '../../support/given';
import { ownDatabase, receiver, type Receiver } from '../webhooks/harness';

jest.setTimeout(90_000);

const supported = nodeSupportsTracing(process.versions.node);
let own: { url: string; db: Db; drop(): Promise<void> };
let dir: string;
let probe: string;
let children: ReturnType<typeof childProcesses>;

beforeAll(async () => {
  own = await ownDatabase();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fs-traces-'));
  // Preloaded into the CLI (kept by its memory restart): on SIGUSR2 it says how many OpenTelemetry modules are loaded,
  // but for `@opentelemetry/api`, which prom-client loads (its CPU metric reads the active span for exemplars; without
  // an SDK it is a no-op).
  probe = path.join(dir, 'probe.js');
  fs.writeFileSync(
    probe,
    "process.on('SIGUSR2', () => process.stderr.write(`opentelemetry modules: ${Object.keys(require.cache).filter((k) => k.includes('/@opentelemetry/') && !k.includes('/@opentelemetry/api/')).length}\\n`));\n",
  );
  // The machine's OTEL_* variables removed: a child has only those its test gives.
  const noOtel = Object.fromEntries(Object.keys(process.env).flatMap((k) => (k.startsWith('OTEL_') ? [[k, undefined]] : [])));
  children = childProcesses(noOtel, ['--require', probe]);
});
afterAll(async () => {
  children.killAll();
  await own.drop();
  fs.rmSync(dir, { recursive: true, force: true });
});

/**
 * `feedback-service …args` on this file's database and the tests' Redis, with the probe preloaded and no OTEL_* variable
 * but those of `env` (tests/support/child-cli.ts).
 */
function cli(args: string[], env: Record<string, string>): Child {
  return children.cli(args, {
    DATABASE_URL: own.url,
    REDIS_URL: process.env.TEST_REDIS_URL,
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    ...env,
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** The number the probe reports for `child`. */
async function openTelemetryModules(child: Child): Promise<number> {
  const before = child.output().length;
  child.proc.kill('SIGUSR2');
  const until = Date.now() + 5000;
  for (;;) {
    const m = /opentelemetry modules: (\d+)/.exec(child.output().slice(before));
    if (m) return Number(m[1]);
    if (Date.now() > until) throw new Error(`the probe did not answer: ${child.output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** `serve --no-worker` on a free port, listening. */
async function serve(env: Record<string, string>): Promise<{ child: Child; base: string }> {
  const port = await freePort();
  const child = cli(['serve', '--no-worker', '--port', String(port)], env);
  await child.waitFor('feedback-service listening');
  return { child, base: `http://127.0.0.1:${port}` };
}

/** `POST {ws}/responses` of the good answers (an email answer and a text answer among them), expecting 201. */
async function submit(base: string, w: { ws: string; key: string; form: string }) {
  const res = await fetch(`${base}/api/v1/workspaces/${w.ws}/responses`, {
    method: 'POST',
    headers: { 'X-API-Key': w.key, 'content-type': 'application/json' },
    body: JSON.stringify({ form_id: w.form, answers: goodAnswers() }),
  });
  expect(res.status).toBe(201);
}

it('loads no OpenTelemetry module without the OTLP variables, and logs without trace ids', async () => {
  const w = await formWorkspace(own.db);
  const { child, base } = await serve({});
  await submit(base, w);
  expect(await openTelemetryModules(child)).toBe(0);
  const line = child
    .output()
    .split('\n')
    .find((l) => l.includes('"request completed"'));
  expect(line).toBeDefined();
  expect(JSON.parse(line!)).not.toHaveProperty('trace_id');
  child.proc.kill('SIGKILL');
});

(supported ? it.skip : it)(`warns once and runs without traces on Node older than ${TRACING_MIN_NODE}`, async () => {
  const w = await formWorkspace(own.db);
  const { child, base } = await serve({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9/', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' });
  await submit(base, w);
  const warnings = child
    .output()
    .split('\n')
    .filter((l) => l.includes('OTEL_EXPORTER_OTLP_ENDPOINT is set'));
  expect(warnings).toHaveLength(1);
  expect(JSON.parse(warnings[0]!)).toMatchObject({
    level: 40,
    node: process.versions.node,
    needs: `>=${TRACING_MIN_NODE}`,
    msg: expect.stringContaining('running without traces') as unknown,
  });
  expect(await openTelemetryModules(child)).toBe(0);
  child.proc.kill('SIGKILL');
});

/** One span of an OTLP/JSON export, flattened. */
interface ExportedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  links: Array<{ traceId: string; spanId: string }>;
}

type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
const valueOf = (v: AnyValue): unknown => v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : (v.boolValue ?? v.doubleValue));
const attributesOf = (list: Array<{ key: string; value: AnyValue }> = []) => Object.fromEntries(list.map((a) => [a.key, valueOf(a.value)]));

/** An OTLP/HTTP receiver of traces, JSON encoding (`POST /v1/traces`). */
async function otlpReceiver() {
  const spans: ExportedSpan[] = [];
  const raw: string[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      if (req.url === '/v1/traces') {
        raw.push(body);
        const doc = JSON.parse(body) as {
          resourceSpans: Array<{
            resource: { attributes: Array<{ key: string; value: AnyValue }> };
            scopeSpans: Array<{ spans: Array<Omit<ExportedSpan, 'attributes' | 'service'> & { attributes?: Array<{ key: string; value: AnyValue }> }> }>;
          }>;
        };
        for (const rs of doc.resourceSpans) {
          const service = String(attributesOf(rs.resource.attributes)['service.name']);
          for (const ss of rs.scopeSpans)
            for (const s of ss.spans)
              spans.push({ ...s, service, attributes: attributesOf(s.attributes), links: s.links ?? [], parentSpanId: s.parentSpanId ?? '' });
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    raw,
    /** Waits until `find` returns a span (15 s). */
    async waitFor(what: string, find: (s: ExportedSpan) => boolean): Promise<ExportedSpan> {
      const until = Date.now() + 15_000;
      for (;;) {
        const s = spans.find(find);
        if (s) return s;
        if (Date.now() > until) throw new Error(`no ${what} span among ${spans.map((x) => x.name).join(', ')}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

(supported ? it : it.skip)('exports one trace from the submission through pg and Redis to the webhook receiver', async () => {
  const otlp = await otlpReceiver();
  const hook: Receiver = await receiver(() => ({ status: 204 }));
  try {
    const env = {
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
      OTEL_SERVICE_NAME: 'feedback-test',
    };
    const w = await formWorkspace(own.db);
    const { child: server, base } = await serve(env);
    expect(server.output()).toContain('exporting traces over OTLP/HTTP');
    const worker = cli(['worker'], env);
    await worker.waitFor('webhook delivery worker started');

    const ep = await fetch(`${base}/api/v1/workspaces/${w.ws}/webhook-endpoints`, {
      method: 'POST',
      headers: { 'X-API-Key': w.key, 'content-type': 'application/json' },
      body: JSON.stringify({ url: `${hook.url}/traced`, events: ['response.created'] }),
    });
    expect(ep.status).toBe(201);
    await submit(base, w);
    // A key sent in the query (refused, 400) is redacted in the span's URL as in the log line.
    const inQuery = await fetch(`${base}/api/v1/workspaces/${w.ws}/forms?api_key=${w.key}`);
    expect(inQuery.status).toBe(400);
    const [delivered] = await hook.waitFor(1, 20_000);

    const refused = await otlp.waitFor('refused', (s) => s.kind === 2 && s.name === 'GET /api/v1/workspaces/{workspace_id}/forms');
    expect(refused.attributes['url.query'] ?? refused.attributes['http.target']).toMatch(/api_key=\[redacted\]/);
    const serverSpan = await otlp.waitFor('server', (s) => s.kind === 2 && s.name === 'POST /api/v1/workspaces/{workspace_id}/responses');
    const trace = serverSpan.traceId;
    expect(serverSpan).toMatchObject({
      service: 'feedback-test',
      attributes: {
        'http.route': '/api/v1/workspaces/{workspace_id}/responses',
        'feedback.operation_id': 'createResponse',
        'feedback.api_style': 'A',
        'feedback.api_key_id': expect.stringMatching(/^key_/) as unknown,
        'feedback.workspace_id': w.ws,
      },
    });
    const pg = await otlp.waitFor('pg', (s) => s.traceId === trace && /postgres/.test(String(s.attributes['db.system.name'] ?? s.attributes['db.system'])));
    const redis = await otlp.waitFor('Redis', (s) => s.traceId === trace && /redis/.test(String(s.attributes['db.system.name'] ?? s.attributes['db.system'])));
    const delivery = await otlp.waitFor('delivery', (s) => s.name === 'webhook delivery' && s.traceId === trace);
    expect(delivery).toMatchObject({ service: 'feedback-test', kind: 5, attributes: { 'webhook.attempt': 1 } });
    expect(delivery.links).toEqual([expect.objectContaining({ traceId: trace })]);
    const post = await otlp.waitFor('the POST', (s) => s.kind === 3 && s.parentSpanId === delivery.spanId && s.name === 'POST');

    // The receiver joins the trace: its traceparent's parent is the worker's POST span.
    expect(delivered!.headers.traceparent).toBe(`00-${trace}-${post.spanId}-01`);
    // Statements with placeholders, Redis commands by name only: no value of the request is recorded anywhere.
    const statements = otlp.spans.filter((s) => s.traceId === trace).map((s) => String(s.attributes['db.query.text'] ?? s.attributes['db.statement'] ?? ''));
    expect(statements.some((q) => q.includes('$1'))).toBe(true);
    expect(String(redis.attributes['db.query.text'] ?? redis.attributes['db.statement'])).toMatch(/^[a-z]+$/i);
    const everything = otlp.raw.join('\n');
    for (const secret of [w.key, 'a@example.com', 'Great support']) {
      expect(everything).not.toContain(secret);
    }
    expect(pg.traceId).toBe(trace);
    // The request's log line carries the trace's ids.
    const line = server
      .output()
      .split('\n')
      .map((l) => (l.startsWith('{') ? (JSON.parse(l) as Record<string, unknown>) : {}))
      .find(
        (l) =>
          l.msg === 'request completed' &&
          (l.req as { method?: string } | undefined)?.method === 'POST' &&
          String((l.req as { url: string }).url).endsWith('/responses'),
      );
    expect(line).toMatchObject({ trace_id: trace, span_id: expect.stringMatching(/^[0-9a-f]{16}$/) as unknown });
    // And the worker's line of the attempt carries the attempt's span.
    const attemptLine = worker
      .output()
      .split('\n')
      .map((l) => (l.startsWith('{') ? (JSON.parse(l) as Record<string, unknown>) : {}))
      .find((l) => l.msg === 'webhook attempt');
    expect(attemptLine).toMatchObject({ outcome: 'succeeded', trace_id: trace, span_id: delivery.spanId });
    expect(await openTelemetryModules(server)).toBeGreaterThan(0);
    server.proc.kill('SIGKILL');
    worker.proc.kill('SIGKILL');
  } finally {
    await hook.close();
    await otlp.close();
  }
});
