/**
 * `npm run examples:capture`: writes the golden examples of openapi/openapi.yaml from the live service
 * (docs/api-rules.md, "Examples"). Creates a fresh database on the PostgreSQL server of
 * TEST_DATABASE_URL (else 127.0.0.1:5432; no Redis needed), imports the example data set, builds the
 * app (answers validated against the document; LOG_LEVEL=error shows its log), runs the walk of
 * tests/support/golden-examples.ts, makes the answers deterministic (ids, request ids, secrets, tokens
 * and times of the run replaced by fixed values) and writes them into the document as text:
 * `components.examples` is rewritten whole, and each request body and success answer gets an
 * `examples` map of `$ref`s; nothing else changes. Drops the database at the end. Exits 1 with the
 * reason when a call does not answer a documented success.
 */
import fs from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';
import supertest from 'supertest';
import { buildApp, stopAppBackground } from '../src/app';
import { createLogger } from '../src/platform/logger';
import { createUsageCounter } from '../src/platform/usage-counter';
import { testConfig } from '../tests/support/app';
import {
  EXAMPLE_IDS,
  EXAMPLE_KEY,
  exampleCalls,
  exampleDatabase,
  exampleFixture,
  exampleName,
  prepareExampleIds,
  runExampleWalk,
  type ExampleAnswer,
  type ExampleCall,
} from '../tests/support/golden-examples';
import { wellFormedBody } from '../tests/support/openapi-ops';
import { setExampleRefs, setExamplesSection } from './examples-yaml';

const FILE = path.join(__dirname, '..', 'openapi', 'openapi.yaml');
/** The instant the run's "now" becomes in the examples. */
const FIXED_NOW = Date.parse('2026-02-02T09:30:00.000Z');
const PUBLIC_URL = 'https://feedback.example.com';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const npsAnswers = (idKey: string) => [
  { [idKey]: 'q_score', value: 9 },
  { [idKey]: 'q_plan', value: { id: 'opt_pro' } },
];

/** The request bodies by operationId (shared paths: by style); other operations get wellFormedBody. */
const LAST_HOUR = new Date(Math.floor(Date.now() / 3600_000) * 3600_000 - 3600_000).toISOString();
const REQUEST_BODIES: Record<string, unknown> = {
  createResponse: {
    A: { form_id: 'frm_nps', answers: npsAnswers('question_id'), respondent_email: 'linus@example.com', email_id: 'em_3', row_id: 'row_2' },
    B: { form_id: 'frm_nps', answers: npsAnswers('id'), respondent_email: 'linus@example.com', email_id: 'em_3', row_id: 'row_2' },
  },
  upsertDatatableRows: { data: { id: 'c-4', plan: 'pro', seats: 12, active: true } },
  updateDatatableRow: { data: { seats: 25 } },
  upsertTableEntryB: { data: { id: 'c-5', plan: 'basic', seats: 3, active: false } },
  bulkUpsertTableEntriesB: {
    data: [
      { id: 'c-2', plan: 'pro' },
      { id: 'c-6', plan: 'basic', seats: 5, active: true },
    ],
  },
  updateTableEntryB: { data: { plan: 'pro' } },
  createEmailEvents: {
    data: [{ id: 'ev_provider_1', email_id: 'em_3', email: 'linus@example.com', type: 'delivery', created_at: '2026-02-01T10:00:00.000Z', form_id: 'frm_nps' }],
  },
  createWebhookEndpoint: { url: 'https://hooks.example.com/feedback', events: ['response.created'], description: 'Support inbox' },
  updateWebhookEndpoint: { description: 'CRM sync (EU)', events: ['response.created', 'row.updated', 'row.deleted'] },
  rotateWebhookSecret: { immediate: true },
  createApiKey: { name: 'Reporting', scopes: ['responses:read', 'forms:read'], expires_at: null },
  createEmailLink: { email: 'linus@example.com', email_id: 'em_4', row_id: 'row_2', flow_id: 'flow_onboarding', expires_in_days: 30 },
  // A Style B responses page filtered on answers and searched, by relevance (docs/api-rules.md, "Filters on answers",
  // "Searching text answers"): its Style A request and walk.
  translateRequest: {
    method: 'GET',
    path: '/api/v1/workspaces/ws_acme/responses',
    query: {
      filter: 'answers.q_plan = opt_pro, answers.q_score >= 9',
      form_id: 'frm_nps',
      q: '"too expensive" or pricing',
      sort: 'relevance:desc',
      page: '2',
      limit: '2',
    },
    headers: { 'X-API-Style': 'B' },
  },
  // A dry run of a bulk delete of two responses (docs/api-rules.md, "Deleting responses"): it counts and deletes nothing.
  // The last hour (docs/webhooks.md, "Recovering missed events"): a window the log keeps whenever the capture runs;
  // the same in both styles, so the second call answers the first's recovery.
  recoverWebhookEndpoint: { A: { since: LAST_HOUR }, B: { since: LAST_HOUR } },
  createResponseDeletion: { A: { ids: ['rsp_1', 'rsp_2'], dry_run: true }, B: { ids: ['rsp_1', 'rsp_2'], dryRun: true } },
  // An erasure per style of an address the data set does not hold (docs/data-rights.md, "Erasing a person"): each
  // style's first run answers 201, its repeat 200.
  createErasureRequest: { A: { email: 'nobody@example.com' }, B: { email: 'no-one@example.com' } },
  // A topic per style (names are unique in a workspace; docs/analytics.md, "Topics"), and a new query for the example's own.
  createTopic: { A: { name: 'pricing', query: 'price | expensive | cost | preis | teuer' }, B: { name: 'support', query: 'support or help or hilfe' } },
  updateTopic: { A: { query: 'slow or speed or langsam or schnell' }, B: { name: 'speed' } },
  submitPublicResponse: {
    answers: [
      { question_id: 'q_score', value: 10 },
      { question_id: 'q_plan', value: 'opt_basic' },
    ],
    language: 'de',
  },
};

function requestBody(call: ExampleCall): unknown {
  if (call.op.method === 'GET' || call.op.method === 'DELETE' || !call.op.body) return undefined;
  const given = REQUEST_BODIES[operationId(call)];
  if (given === undefined) return wellFormedBody(call.op);
  return call.style ? (given as Record<string, unknown>)[call.style] : given;
}

const doc = yaml.load(fs.readFileSync(FILE, 'utf8')) as { paths: Record<string, Record<string, { operationId?: string }>> };
function operationId(call: ExampleCall): string {
  const id = doc.paths[call.op.template]?.[call.op.method.toLowerCase()]?.operationId;
  if (!id) throw new Error(`${call.op.method} ${call.op.template} has no operationId`);
  return id;
}

const GENERATED_ID = /\b(ws|key|frm|rsp|tbl|row|ev|we|evt|dlv|dl|aud|era|rdl|top|wrc)_[0-9A-Za-z]{16}\b/g;
/** An audit record's hash (docs/security.md, "The audit trail"): it covers the run's ids and times, so it differs every run. */
const AUDIT_HASH = /\b[0-9a-f]{64}\b/g;
/** An event position (docs/live.md, "Event log"): the run's transaction ids, so it differs every run. */
const EVENT_POSITION = /\b[0-9a-f]{32}\b/g;
const ISO_INSTANT = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z/g;
const FAKE_SECRET = `fa_${'exampleSecretShownOnce'.padEnd(40, '0')}`;
const FAKE_WHSEC = 'whsec_ZXhhbXBsZS1zZWNyZXQtc2hvd24tb25jZQ==';
const FAKE_TOKEN = 'eyJleGFtcGxlIjoibGluayJ9.ZXhhbXBsZS1zaWduYXR1cmUtbm90LXJlYWw';

/**
 * Replaces what differs between runs by fixed values: generated ids (`rsp_Example000000001`, numbered per
 * kind in order of appearance), request ids, secrets and link tokens, and instants of the run (shifted
 * to FIXED_NOW, rounded to the hour; dates alike by whole days). The data set's own values stay.
 */
class Normalizer {
  private readonly ids = new Map<string, string>();
  private readonly counts = new Map<string, number>();
  constructor(private readonly start: number) {}

  value(v: unknown): unknown {
    if (typeof v === 'string') return this.text(v);
    if (Array.isArray(v)) return v.map((x) => this.value(x));
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, this.value(x)]));
    return v;
  }

  text(s: string): string {
    if (/^\d{4}-\d{2}-\d{2}$/.test(s)) return this.date(s);
    if (/^fa_[A-Za-z0-9_-]{5}$/.test(s) && s !== EXAMPLE_KEY.slice(0, 8)) return FAKE_SECRET.slice(0, 8);
    return s
      .replace(/https?:\/\/127\.0\.0\.1:\d+/g, PUBLIC_URL)
      .replace(/fa_[A-Za-z0-9_-]{40}/g, (m) => (m.startsWith('fa_example') ? m : FAKE_SECRET))
      .replace(/whsec_[A-Za-z0-9+/=]{20,}/g, (m) => (m === exampleFixture().webhook_endpoints![0]!.secret ? m : FAKE_WHSEC))
      .replace(/req_[A-Za-z0-9_-]{20}(?![A-Za-z0-9_-])/g, 'req_exampleRequestId0000')
      .replace(/[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{30,}/g, FAKE_TOKEN)
      .replace(GENERATED_ID, (m, kind: string) => this.id(m, kind))
      .replace(AUDIT_HASH, (m) => this.hash(m))
      .replace(EVENT_POSITION, (m) => this.position(m))
      .replace(ISO_INSTANT, (m) => this.instant(m));
  }

  private id(id: string, kind: string): string {
    if (id.startsWith(`${kind}_Example`)) return id;
    let fixed = this.ids.get(id);
    if (!fixed) {
      const n = (this.counts.get(kind) ?? 0) + 1;
      this.counts.set(kind, n);
      fixed = `${kind}_Example${String(n).padStart(9, '0')}`;
      this.ids.set(id, fixed);
    }
    return fixed;
  }

  /** An audit hash as `eee…1`, `eee…2` in order of appearance (the first record's predecessor, 64 zeros, stays). */
  private hash(hex: string): string {
    return /^0+$/.test(hex) ? hex : this.numbered('hash', hex, 64, 'e');
  }

  /** An event position as `000…0001`, `000…0002` in order of appearance (the run's positions ascend the same way). */
  private position(hex: string): string {
    return this.numbered('position', hex, 32, '0');
  }

  /** `value` as the n-th of its kind seen, `n` padded to `width` with `fill`; the same value keeps its number. */
  private numbered(kind: string, value: string, width: number, fill: string): string {
    let fixed = this.ids.get(value);
    if (!fixed) {
      const n = (this.counts.get(kind) ?? 0) + 1;
      this.counts.set(kind, n);
      fixed = String(n).padStart(width, fill);
      this.ids.set(value, fixed);
    }
    return fixed;
  }

  private instant(iso: string): string {
    const t = Date.parse(iso);
    if (t < this.start - DAY) return iso;
    return new Date(FIXED_NOW + Math.round((t - this.start) / HOUR) * HOUR).toISOString();
  }

  private date(day: string): string {
    const t = Date.parse(`${day}T00:00:00Z`);
    const today = Date.parse(new Date(this.start).toISOString().slice(0, 10));
    if (t < today - 2 * DAY) return day;
    return new Date(Date.parse(new Date(FIXED_NOW).toISOString().slice(0, 10)) + Math.round((t - today) / DAY) * DAY).toISOString().slice(0, 10);
  }
}

/** The OpenAPI document as an example: every top-level member, but one path, one tag and the security schemes only. */
function abbreviatedDocument(body: Record<string, unknown>): Record<string, unknown> {
  const paths = body.paths as Record<string, Record<string, Record<string, unknown>>>;
  const [first] = Object.keys(paths);
  const get = paths[first!]!.get!;
  return {
    ...body,
    info: { title: (body.info as Record<string, unknown>).title, version: (body.info as Record<string, unknown>).version },
    tags: (body.tags as unknown[]).slice(0, 1),
    paths: { [first!]: { get: { operationId: get.operationId, summary: get.summary } } },
    components: { securitySchemes: (body.components as Record<string, unknown>).securitySchemes },
  };
}

/** Prometheus text as an example: the `# HELP` and `# TYPE` lines of the service's own metrics. */
function metricNames(text: string): string {
  const own = /^# (HELP|TYPE) (http_|api_requests_|rate_limit_|auth_|webhook_|db_pool_)/;
  return `${text
    .split('\n')
    .filter((line) => own.test(line))
    .join('\n')}\n`;
}

const MEDIA_SUFFIX: Record<string, string> = { 'application/json': '', 'application/x-ndjson': '_ndjson', 'text/csv': '_csv', 'text/plain': '_text' };

interface Captured {
  /** components.examples, in walk order. */
  components: Record<string, { summary: string; description: string; value: unknown }>;
  /** Where each example is referenced: location (see examples-yaml.ts) → example name → component name. */
  refs: Array<{ at: string[]; examples: Record<string, string> }>;
}

/** The request line of a call for an example's description: `` `GET /api/v1/…` with `X-API-Style: B` ``. */
function describeCall(call: ExampleCall, normalize: Normalizer, attempt = 1): string {
  const style = call.style ? ` with \`X-API-Style: ${call.style}\`` : '';
  return `\`${call.op.method} ${normalize.text(call.path)}\`${style}${attempt > 1 ? ', sent a second time' : ''}.`;
}

/** The examples and their references from the walk's answers; throws on an answer that is not a documented success. */
function collect(answers: ExampleAnswer[], normalize: Normalizer): Captured {
  const out: Captured = { components: {}, refs: [] };
  const refAt = (at: string[], name: string, component: string) => {
    const key = JSON.stringify(at);
    let entry = out.refs.find((r) => JSON.stringify(r.at) === key);
    if (!entry) out.refs.push((entry = { at, examples: {} }));
    entry.examples[name] = component;
  };
  for (const a of answers) {
    const { call } = a;
    const id = operationId(call);
    const where = `${call.op.method} ${call.path}${call.style ? ` (${call.style})` : ''}`;
    if (!(call.op.responseTypes[String(a.status)] ?? []).includes(a.media) || a.status >= 300) {
      throw new Error(`${where} answered ${a.status} ${a.media}: ${JSON.stringify(a.body).slice(0, 300)}`);
    }
    const name = exampleName(a.style);
    const body = requestBody(call);
    if (body !== undefined && a.attempt === 1) {
      const component = `${id}_request_${name}`;
      out.components[component] = { summary: `Style ${a.style}`, description: describeCall(call, normalize), value: body };
      refAt(['paths', call.op.template, call.op.method.toLowerCase(), 'requestBody', 'content', 'application/json'], name, component);
    }
    let value = a.body;
    if (call.op.template.endsWith('openapi') || call.op.template === '/openapi.json') value = abbreviatedDocument(a.body as Record<string, unknown>);
    if (a.media === 'text/plain') value = metricNames(String(a.body));
    value = normalize.value(value);
    const component = `${id}_${a.status}${MEDIA_SUFFIX[a.media]}_${name}`;
    out.components[component] = { summary: `Style ${a.style}`, description: describeCall(call, normalize, a.attempt), value };
    refAt(['paths', call.op.template, call.op.method.toLowerCase(), 'responses', String(a.status), 'content', a.media], name, component);
  }
  return out;
}

async function main(): Promise<void> {
  // Any database of the server: the capture makes its own beside it and drops it at the end.
  const { db, drop } = await exampleDatabase(process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres');
  const logger = createLogger((process.env.LOG_LEVEL ?? 'silent') as 'silent');
  const usage = createUsageCounter({ db, logger, intervalMs: 3_600_000 });
  const app = buildApp(testConfig({ publicUrl: PUBLIC_URL }), {
    db,
    logger,
    usage,
    // No DNS: the endpoints' hosts count as public addresses.
    resolveHost: async () => [{ address: '93.184.215.14', family: 4 }],
  });
  try {
    const start = Date.now();
    const agent = () => supertest.agent(app);
    const calls = exampleCalls(await prepareExampleIds(agent));
    const answers = await runExampleWalk(agent, calls, requestBody, () => usage.flush());
    const normalize = new Normalizer(start);
    const captured = collect(answers, normalize);
    const invalid = await agent().get(`/api/v1/workspaces/${EXAMPLE_IDS.workspace_id}/forms?limit=500`).set('X-API-Key', EXAMPLE_KEY);
    captured.components.validation_error = {
      summary: 'Both styles',
      description: `\`GET /api/v1/workspaces/${EXAMPLE_IDS.workspace_id}/forms?limit=500\`: every error has this envelope, in both styles.`,
      value: normalize.value(invalid.body),
    };
    captured.refs.push({
      at: ['components', 'responses', 'ValidationError', 'content', 'application/json'],
      examples: { validation_error: 'validation_error' },
    });
    write(captured);
    console.log(`wrote ${Object.keys(captured.components).length} examples from ${answers.length} answers into ${path.relative(process.cwd(), FILE)}`);
  } finally {
    await stopAppBackground(app);
    await drop();
  }
}

/** Writes the examples into the document and checks that they read back as captured. */
function write(captured: Captured): void {
  let text = fs.readFileSync(FILE, 'utf8');
  // Examples the walk cannot make (a 202 of a job that a small data set never starts) are written by hand: one the
  // document still references is kept as it is.
  const before = (yaml.load(text) as { components?: { examples?: Record<string, unknown> } }).components?.examples ?? {};
  for (const [key, ex] of Object.entries(before)) {
    if (!(key in captured.components) && text.includes(`'#/components/examples/${key}'`)) captured.components[key] = ex as Captured['components'][string];
  }
  for (const r of captured.refs) text = setExampleRefs(text, r.at, r.examples);
  text = setExamplesSection(text, captured.components);
  const written = yaml.load(text) as { components: { examples: Record<string, { value: unknown }> } };
  for (const [key, ex] of Object.entries(captured.components)) {
    if (JSON.stringify(written.components.examples[key]?.value) !== JSON.stringify(ex.value)) throw new Error(`example ${key} does not read back as written`);
  }
  fs.writeFileSync(FILE, text);
}

main().catch((err: unknown) => {
  console.error(`examples:capture: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
