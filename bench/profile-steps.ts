/**
 * Where the app's CPU goes under one bench workload, step by step of its pipeline (docs/performance.md, "Where a list
 * request's CPU goes"; issue 28):
 *
 *   node dist/bench/profile-steps.js --database-url URL [--workload list|upsert] [--server app|floor] [--warmup 5] [--duration 15] [--otlp URL]
 *   node dist/bench/profile-steps.js --analyze FILE.cpuprofile [FILE.cpuprofile…]
 *
 * The first form starts the app as the bench does (bench/serve.ts, `--node`, the memory settings of `serve`) on a
 * database seeded by `npm run bench -- --keep`, runs the workload of bench/run.ts with autocannon for `--warmup`
 * seconds, then profiles the app's process with V8's sampling CPU profiler (1 sample per ms) for `--duration` more
 * seconds of the same load (`--server floor`: the stack floor of bench/floor-server.ts instead), writes the profile (`--out`, default /tmp/feedback-<workload>-<time>.cpuprofile; open it
 * in Chrome DevTools or speedscope) and prints the table below, and the process's CPU time per request in the same
 * seconds (procs.ts procCpuMicros). The table's µs come from the profile's sample times, which count a thread that waits
 * for a core as busy: on a shared machine they overstate the CPU, by a factor that differs from run to run and from one
 * app to another, so compare two apps by the process CPU line, not by the tables' totals (docs/performance.md, "Traces
 * (issue 32)"). The second form prints the table of profiles written before, e.g. by `node --cpu-prof` (then start-up
 * is in it too).
 *
 * Attribution (stepOf): each sample goes to the step of the innermost frame on its stack that belongs to one. Our
 * files (dist/src/…) map to the pipeline's steps by module (STEP_OF_FILE); packages map to their role (PACKAGES:
 * express-openapi-validator and ajv to the validator, pino to logging, prom-client to metrics, knex, pg, ioredis,
 * rate-limiter-flexible…); Express's `stringify` inside `res.json` is "JSON". Node's own frames (node:…), V8
 * builtins and the answer hooks (platform/answer-hooks.ts, which only pass writes on) belong to no step: their time
 * goes to the nearest caller that has one, else to "Node.js: HTTP parsing, sockets, timers", except Node's native
 * socket writes (`writev`…: the system calls, loopback delivery included), a row of their own. Express's router is a
 * step of its own, so the cost of finding the next middleware is not charged to the middleware that called `next()`.
 * Garbage collection and V8's own work ("(program)") are rows of their own; idle time is left out: shares are of the
 * process's busy CPU.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import { MEMORY_DEFAULT_FLAGS } from '../src/cli/memory-defaults';
import { createApiKey } from '../src/core/api-keys/create-api-key';
import { importFixture } from '../src/core/import/importer';
import { createDb } from '../src/db/connection';
import { runLoad, type Workload } from './load';
import { procCpuMicros, serve } from './procs';

/** The parts of a .cpuprofile (Chrome DevTools' format, as `node --cpu-prof` and the inspector write it) read here. */
export interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string }; children?: number[] }>;
  samples: number[];
  /** Microseconds from the previous sample (the first: from `startTime`). */
  timeDeltas: number[];
}

export interface StepShare {
  step: string;
  /** CPU time in the profile, ms. */
  ms: number;
  /** Share of the busy (non-idle) time, 0–1. */
  share: number;
}

/** A frame that belongs to no step: its time goes to its caller. */
const PASS = '';
const NODE_ONLY = 'Node.js: HTTP parsing, sockets, timers';
/** Node's native socket writes: the system calls that send answers, queries and Redis commands (kernel time included). */
const SOCKET_WRITES = new Set(['writev', 'writeBuffer', 'writeUtf8String', 'writeLatin1String', 'writeAsciiString', 'writeUcs2String']);

/** Modules of src/ (without extension, under src/) → pipeline step; the first matching prefix wins. */
const STEP_OF_FILE: Array<[string, string]> = [
  ['platform/answer-hooks', PASS],
  // Runs consecutive steps as one router layer: its own frames are routing.
  ['platform/in-order', 'express and router'],
  ['platform/request-context', 'request id and context'],
  ['platform/request-id', 'request id and context'],
  ['platform/security-headers', 'security headers'],
  ['platform/http-log', 'logging'],
  ['platform/logger', 'logging'],
  ['platform/secret-params', 'logging'],
  ['platform/usage-counter', 'usage counting'],
  ['core/api-keys/usage.store', 'usage counting'],
  ['core/migration/attention', 'usage counting'],
  ['platform/metrics', 'metrics'],
  ['platform/auth/', 'auth and key cache'],
  ['core/api-keys/', 'auth and key cache'],
  ['platform/rate-limit', 'rate limit'],
  ['platform/redis', 'rate limit'],
  ['platform/style-selection', 'style selection'],
  ['platform/style', 'style selection'],
  ['platform/deprecation', 'deprecation'],
  ['platform/access', 'workspace and scope checks'],
  ['platform/operations', 'workspace and scope checks'],
  ['core/workspace-path', 'workspace and scope checks'],
  ['platform/error-handler', 'body checks'],
  ['platform/body-shape', 'body checks'],
  ['platform/openapi', 'validator'],
  ['platform/idempotency', 'idempotency'],
  ['platform/read-routing', 'read routing'],
  ['db/replicas', 'read routing'],
  ['adapters/envelope', 'envelope and links'],
  ['adapters/style-a/present', 'presenter'],
  ['adapters/style-b/present', 'presenter'],
  ['adapters/table-data', 'presenter'],
  ['adapters/', 'handler and core (parameters, query, cursor)'],
  ['core/', 'handler and core (parameters, query, cursor)'],
  ['db/', 'handler and core (parameters, query, cursor)'],
  ['server', 'HTTP server setup (server.ts)'],
  ['platform/http-server', 'HTTP server setup (server.ts)'],
];

/** Packages (node_modules/<name>) → role; packages not named here belong to no step (lodash, path-to-regexp, debug…). */
const PACKAGES: Record<string, string> = {
  'express-openapi-validator': 'validator',
  ajv: 'validator',
  'ajv-formats': 'validator',
  'fast-uri': 'validator',
  'json-schema-traverse': 'validator',
  express: 'express and router',
  router: 'express and router',
  finalhandler: 'express and router',
  'on-finished': 'express and router',
  parseurl: 'express and router',
  'body-parser': 'express and router',
  'raw-body': 'express and router',
  'type-is': 'express and router',
  'content-type': 'express and router',
  'media-typer': 'express and router',
  'mime-types': 'express and router',
  'proxy-addr': 'express and router',
  vary: 'express and router',
  pino: 'logging',
  'sonic-boom': 'logging',
  'fast-redact': 'logging',
  'quick-format-unescaped': 'logging',
  'pino-std-serializers': 'logging',
  'fast-safe-stringify': 'logging',
  '@pinojs/redact': 'logging',
  'prom-client': 'metrics',
  tdigest: 'metrics',
  bintrees: 'metrics',
  'rate-limiter-flexible': 'rate limit',
  ioredis: 'Redis client (ioredis)',
  'redis-parser': 'Redis client (ioredis)',
  denque: 'Redis client (ioredis)',
  'cluster-key-slot': 'Redis client (ioredis)',
  'standard-as-callback': 'Redis client (ioredis)',
  knex: 'SQL building and pool (knex)',
  tarn: 'SQL building and pool (knex)',
  pg: 'PostgreSQL driver (pg: protocol, rows, dates)',
  'pg-protocol': 'PostgreSQL driver (pg: protocol, rows, dates)',
  'pg-types': 'PostgreSQL driver (pg: protocol, rows, dates)',
  'pg-pool': 'PostgreSQL driver (pg: protocol, rows, dates)',
  'postgres-date': 'PostgreSQL driver (pg: protocol, rows, dates)',
  'postgres-array': 'PostgreSQL driver (pg: protocol, rows, dates)',
  nanoid: 'request id and context',
};

/** The step of one frame: a step, PASS, or a special row. */
function frameStep(functionName: string, url: string): string {
  if (functionName === '(garbage collector)') return 'garbage collection';
  if (functionName === '(program)') return 'V8 (program)';
  if (url === '' && SOCKET_WRITES.has(functionName)) return 'socket writes (answers, queries, Redis commands)';
  if (url === '' || url.startsWith('node:')) return PASS;
  const src = /\/dist\/src\/(.+)\.js$/.exec(url) ?? /\/src\/(.+)\.ts$/.exec(url);
  if (src) {
    const file = src[1]!;
    const hit = STEP_OF_FILE.find(([prefix]) => file.startsWith(prefix));
    return hit ? hit[1] : 'other service code';
  }
  const pkg = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\/(.*)$/.exec(url);
  if (pkg) {
    if (pkg[1] === 'express' && pkg[2] === 'lib/response.js' && functionName === 'stringify') return 'JSON (res.json)';
    return PACKAGES[pkg[1]!] ?? PASS;
  }
  if (url.includes('/dist/bench/')) return 'bench harness';
  return PASS;
}

/** Busy CPU of a profile by step, largest first (see the module's docstring for the rule). */
export function stepsOf(profile: CpuProfile): { busyMs: number; steps: StepShare[] } {
  const parent = new Map<number, number>();
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const memo = new Map<number, string>();
  const stepOf = (id: number): string => {
    const known = memo.get(id);
    if (known !== undefined) return known;
    const n = byId.get(id)!;
    let step: string;
    if (n.callFrame.functionName === '(idle)') step = 'idle';
    else if (n.callFrame.functionName === '(root)') step = NODE_ONLY;
    else {
      step = frameStep(n.callFrame.functionName, n.callFrame.url);
      if (step === PASS) step = parent.has(id) ? stepOf(parent.get(id)!) : NODE_ONLY;
    }
    memo.set(id, step);
    return step;
  };
  const us = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    // A sample stands for the time until the next one.
    const dt = profile.timeDeltas[i + 1] ?? 0;
    const step = stepOf(id);
    us.set(step, (us.get(step) ?? 0) + dt);
  });
  us.delete('idle');
  const busy = [...us.values()].reduce((a, b) => a + b, 0);
  const steps = [...us].map(([step, t]) => ({ step, ms: t / 1000, share: busy === 0 ? 0 : t / busy })).sort((a, b) => b.ms - a.ms);
  return { busyMs: busy / 1000, steps };
}

/** The table of stepsOf as Markdown; with `requests` (answered while profiled), also the CPU per request. */
export function stepsTable(r: { busyMs: number; steps: StepShare[] }, requests?: number): string {
  const perRequest = (ms: number) => (requests ? ` ${((ms * 1000) / requests).toFixed(0)} |` : '');
  const lines = [`| Step | CPU (ms) | Share of the app's busy CPU |${requests ? ' µs per request |' : ''}`, `|---|---:|---:|${requests ? '---:|' : ''}`];
  for (const s of r.steps) lines.push(`| ${s.step} | ${s.ms.toFixed(0)} | ${(s.share * 100).toFixed(1)} % |${perRequest(s.ms)}`);
  lines.push(`| **all** | ${r.busyMs.toFixed(0)} | 100 % |${perRequest(r.busyMs)}`);
  return lines.join('\n');
}

interface Options {
  databaseUrl?: string;
  analyze?: string[];
  workload: 'list' | 'upsert';
  server: 'app' | 'floor';
  warmup: number;
  duration: number;
  connections: number;
  node: string;
  memoryFlags: string;
  out?: string;
  /** The app exports every request's trace to this OTLP/HTTP endpoint (docs/operations.md, "Traces"). */
  otlp?: string;
}

const log = (line: string) => process.stderr.write(`[profile] ${line}\n`);

/** The bench's workload (bench/run.ts: the Style A list of the largest form, or the upsert of one row) on a kept database. */
export async function workloadOn(databaseUrl: string, which: 'list' | 'upsert'): Promise<Workload> {
  const db = createDb({ databaseUrl, dataDir: '.data', poolMax: 2 });
  try {
    const ws = (await db('workspaces').where('id', 'like', 'ws_bench%').orderBy('created_at', 'desc').first('id')) as { id: string } | undefined;
    if (!ws) throw new Error('no ws_bench* workspace in this database: seed one with `npm run bench -- --keep`');
    const key = (await createApiKey(db, { name: 'profile', workspaceIds: [ws.id], rateLimitPerMinute: 10_000_000 })).secret;
    const headers = { 'X-API-Key': key };
    const base = `/api/v1/workspaces/${ws.id}`;
    if (which === 'list') {
      const form = (await db('response_counts')
        .where('workspace_id', ws.id)
        .groupBy('form_id')
        .select('form_id')
        .orderByRaw('sum(responses) DESC')
        .first()) as {
        form_id: string;
      };
      return { name: 'Style A list', method: 'GET', path: `${base}/responses?form_id=${form.form_id}&score_gte=9&limit=20`, headers };
    }
    const datatableId = `tbl_prof${Date.now().toString(36)}`;
    const plans = ['free', 'basic', 'pro', 'enterprise'];
    await importFixture(db, {
      datatables: [
        {
          id: datatableId,
          workspace_id: ws.id,
          name: 'Profile customers',
          fields: [
            { name: 'id', type: 'string' },
            { name: 'plan', type: 'string' },
            { name: 'seats', type: 'number' },
          ],
          rows: Array.from({ length: 10_000 }, (_, i) => ({ data: { id: `c-${i}`, plan: plans[i % 4], seats: 1 + (i % 50) } })),
        },
      ],
    });
    return {
      name: 'Style A upsert',
      method: 'POST',
      path: `${base}/datatables/${datatableId}/rows`,
      headers: { ...headers, 'content-type': 'application/json' },
      body: (n, run) => JSON.stringify({ data: { id: n % 2 === 0 ? `c-${(n >> 1) % 10_000}` : `n-${run}-${n}`, plan: plans[n % 4], seats: n % 97 } }),
    };
  } finally {
    await db.destroy();
  }
}

async function profileApp(o: Options): Promise<{ file: string; requests: number }> {
  const w = await workloadOn(o.databaseUrl!, o.workload);
  const out = o.out ?? path.join(os.tmpdir(), `feedback-${o.server}-${o.workload}-${Date.now()}.cpuprofile`);
  const env = o.otlp ? { OTEL_EXPORTER_OTLP_ENDPOINT: o.otlp, OTEL_TRACES_SAMPLER: 'always_on', OTEL_SERVICE_NAME: 'feedback-profile' } : undefined;
  const app = await serve(o.server, o.databaseUrl!, { node: o.node, execArgv: o.memoryFlags.split(/\s+/).filter(Boolean), ...(env ? { env } : {}) });
  try {
    const warm = await runLoad(o.server, app.url, w, o.warmup, o.connections);
    if (warm.non2xx > 0 || warm.errors > 0) throw new Error(`warm-up: statuses ${JSON.stringify(warm.statuses)}, ${warm.errors} errors`);
    app.profileStart();
    const cpu0 = procCpuMicros(app.pid);
    const r = await runLoad(o.server, app.url, w, o.duration, o.connections);
    const cpuPerRequest = (procCpuMicros(app.pid) - cpu0) / r.requests;
    await app.profileStop(out);
    log(`${w.name} on ${o.server}: ${r.rps.toFixed(0)} req/s while profiled, statuses ${JSON.stringify(r.statuses)}, ${r.errors} errors; profile: ${out}`);
    log(`process CPU while profiled (user + system, all threads, the profiler's own included): ${cpuPerRequest.toFixed(0)} µs per request`);
    return { file: out, requests: r.requests };
  } finally {
    await app.stop();
  }
}

async function main(): Promise<void> {
  const program = new Command()
    .name('profile-steps')
    .description('Profile the app under a bench workload and print its CPU by pipeline step (docs/performance.md).')
    .option('--database-url <url>', 'a database seeded by `npm run bench -- --keep`')
    .option('--analyze <files...>', 'only print the table of these .cpuprofile files')
    .option('--workload <name>', 'list (the Style A list) or upsert (the Style A upsert of one row)', 'list')
    .option('--server <name>', 'app (the service as `serve` runs it) or floor (bench/floor-server.ts)', 'app')
    .option('--warmup <s>', 'seconds of load before the profile starts', Number, 5)
    .option('--duration <s>', 'seconds of load profiled', Number, 15)
    .option('--connections <n>', 'autocannon connections', Number, 32)
    .option('--node <path>', 'node binary of the app (default: BENCH_NODE, else this node)', process.env.BENCH_NODE || process.execPath)
    .option('--memory-flags <flags>', 'node flags of the app', MEMORY_DEFAULT_FLAGS.join(' '))
    .option('--out <file>', 'where to write the profile')
    .option('--otlp <url>', 'the app exports every trace (100 % sampled) to this OTLP/HTTP endpoint (a receiver you run)');
  const o = program.parse().opts<Options>();
  if (o.workload !== 'list' && o.workload !== 'upsert') throw new Error('--workload is list or upsert');
  if (o.server !== 'app' && o.server !== 'floor') throw new Error('--server is app or floor');
  if (!o.analyze && !o.databaseUrl) throw new Error('give --database-url (a kept bench database) or --analyze FILE');
  const runs = o.analyze ? o.analyze.map((file) => ({ file, requests: undefined })) : [await profileApp(o)];
  for (const { file, requests } of runs) {
    const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
    process.stdout.write(`\n${file}${requests ? ` (${requests} requests)` : ''}\n\n${stepsTable(stepsOf(profile), requests)}\n`);
  }
}

if (require.main === module) {
  main().catch((e: unknown) => {
    process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  });
}
