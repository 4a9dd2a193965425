/**
 * The golden examples of openapi/ (docs/api-rules.md, "Examples"): one data set with fixed ids, the walk
 * that calls every operation of the document once per style with it, where the examples live in the
 * document, and the shape comparison. `npm run examples:capture` (tools/capture-examples.ts) runs the walk
 * and writes the answers into openapi/openapi.yaml; tests/contract/golden-examples.test.ts runs it again
 * with the document's request examples and compares the answers' shapes with the response examples.
 */
import { randomBytes } from 'node:crypto';
import knex from 'knex';
import type supertest from 'supertest';
import type { FixtureDocument } from '../../src/core/import/fixture-schema';
import { importFixture } from '../../src/core/import/importer';
import { createDb, migrateLatest, type Db } from '../../src/db/connection';
import { loadOpenApiDocument, type OpenApiDocument } from '../../src/platform/openapi';
import { documentOperations, fillPath, type DocOperation } from './openapi-ops';
import { databaseUrl } from './services';

export type Style = 'A' | 'B';

/** The example name of a style in every `examples` map: `style_a`, `style_b`. */
export const exampleName = (style: Style) => `style_${style.toLowerCase()}`;

/** The data set's key: every scope, Style A by default. Fake, and only ever in a throwaway database. */
export const EXAMPLE_KEY = `fa_${'example'.padEnd(40, '0')}`;

/** Path parameter values of the data set (the ids the document's parameter examples name). */
export const EXAMPLE_IDS: Record<string, string> = {
  workspace_id: 'ws_acme',
  form_id: 'frm_nps',
  question_id: 'q_score',
  response_id: 'rsp_1',
  datatable_id: 'tbl_customers',
  table_id: 'tbl_customers',
  row_id: 'row_1',
  email_id: 'em_1',
  key_id: 'key_ci',
  endpoint_id: 'we_crm',
};

/** Media types whose answers get examples and a shape check; others are exempt (see MEDIA_EXEMPT). */
export const CHECKED_MEDIA = ['application/json', 'application/x-ndjson', 'text/csv', 'text/plain'];

/** Why success answers of other media types carry no example. */
export const MEDIA_EXEMPT: Record<string, string> = {
  'text/html': 'an HTML page: tests/component/pages and tests/browser check it; an example would copy the template',
  'image/gif': 'a fixed 1×1 GIF, binary: tests/component/pages/email-links.test.ts checks the answer',
  'image/x-icon': 'the icon file, binary: tests/component/platform/favicon.test.ts checks the answer',
  'text/event-stream': 'a live stream that does not end: tests/component/live/stream.test.ts checks its events',
  '': 'no body (204)',
};

/** One workspace with two forms, a datatable, responses, email events, a second key and a webhook endpoint. */
export function exampleFixture(): FixtureDocument {
  const ws = EXAMPLE_IDS.workspace_id!;
  const npsAnswers = (score: number, plan: string) => [
    { question_id: 'q_score', value: score },
    { question_id: 'q_plan', value: { id: plan } },
  ];
  return {
    workspaces: [{ id: ws, name: 'Acme', link: 'acme', created_at: '2026-01-01T08:00:00.000Z' }],
    api_keys: [
      { id: 'key_docs', name: 'Documentation', secret: EXAMPLE_KEY, workspace_ids: [ws], created_at: '2026-01-01T08:00:00.000Z' },
      {
        id: 'key_ci',
        name: 'CI',
        secret: `fa_${'exampleci'.padEnd(40, '0')}`,
        workspace_ids: [ws],
        scopes: ['responses:read', 'forms:read'],
        style: 'B',
        created_at: '2026-01-02T08:00:00.000Z',
      },
    ],
    forms: [
      {
        id: 'frm_nps',
        workspace_id: ws,
        name: 'NPS',
        default_language: 'en',
        created_at: '2026-01-03T09:00:00.000Z',
        questions: [
          { id: 'q_score', type: 'nps', title: 'How likely are you to recommend us?', required: true },
          {
            id: 'q_plan',
            type: 'single_choice',
            title: 'Which plan do you use?',
            options: [
              { id: 'opt_basic', value: 'Basic' },
              { id: 'opt_pro', value: 'Pro' },
            ],
          },
        ],
        translations: {
          de: {
            q_score: { title: 'Wie wahrscheinlich empfehlen Sie uns weiter?' },
            q_plan: { title: 'Welchen Tarif nutzen Sie?', options: { opt_basic: 'Basis', opt_pro: 'Profi' } },
          },
        },
      },
      {
        id: 'frm_csat',
        workspace_id: ws,
        name: 'CSAT',
        created_at: '2026-01-04T09:00:00.000Z',
        questions: [
          { id: 'q_csat', type: 'rating', title: 'How satisfied are you?' },
          { id: 'q_comment', type: 'text', title: 'What did we do well?' },
        ],
      },
    ],
    datatables: [
      {
        id: 'tbl_customers',
        workspace_id: ws,
        name: 'Customers',
        created_at: '2026-01-05T10:00:00.000Z',
        fields: [
          { name: 'id', type: 'string' },
          { name: 'plan', type: 'string' },
          { name: 'seats', type: 'number' },
          { name: 'active', type: 'boolean' },
        ],
        rows: [1, 2, 3].map((i) => ({
          row_id: `row_${i}`,
          data: { id: `c-${i}`, plan: i === 2 ? 'basic' : 'pro', seats: i * 10, active: i !== 3 },
          created_at: `2026-01-05T10:0${i}:00.000Z`,
        })),
      },
    ],
    responses: [
      {
        id: 'rsp_1',
        form_id: 'frm_nps',
        score: 9,
        created_at: '2026-01-10T12:00:00.000Z',
        answers: npsAnswers(9, 'opt_pro'),
        row_id: 'row_1',
        respondent_email: 'ada@example.com',
        email_id: 'em_1',
      },
      {
        id: 'rsp_2',
        form_id: 'frm_nps',
        score: 3,
        language: 'de',
        created_at: '2026-01-11T12:00:00.000Z',
        answers: npsAnswers(3, 'opt_basic'),
        actionlists: [{ actionlist_id: 'al_detractor', triggered_score: 3, triggers: ['detractor'] }],
      },
      {
        id: 'rsp_3',
        form_id: 'frm_csat',
        score: 4,
        created_at: '2026-01-12T12:00:00.000Z',
        answers: [
          { question_id: 'q_csat', value: 4 },
          { question_id: 'q_comment', value: 'Quick support, fair prices' },
        ],
      },
      {
        id: 'rsp_4',
        form_id: 'frm_csat',
        score: 5,
        created_at: '2026-01-13T12:00:00.000Z',
        answers: [
          { question_id: 'q_csat', value: 5 },
          { question_id: 'q_comment', value: 'The support was quick and friendly' },
        ],
        row_id: 'row_2',
      },
      {
        id: 'rsp_5',
        form_id: 'frm_nps',
        score: 10,
        created_at: '2026-01-20T12:00:00.000Z',
        answers: npsAnswers(10, 'opt_pro'),
        row_id: 'row_3',
        respondent_email: 'grace@example.com',
        email_id: 'em_2',
      },
      {
        id: 'rsp_6',
        form_id: 'frm_nps',
        score: 8,
        created_at: '2026-01-21T12:00:00.000Z',
        answers: npsAnswers(8, 'opt_pro'),
        respondent_email: 'ada@example.com',
        email_id: 'em_1',
      },
    ],
    email_events: [
      ...['send', 'delivery', 'open', 'click'].map((type, i) => ({
        id: `ev_${i + 1}`,
        workspace_id: ws,
        email_id: 'em_1',
        email: 'ada@example.com',
        type: type as never,
        created_at: `2026-01-10T11:0${i}:00.000Z`,
        form_id: 'frm_nps',
        row_id: 'row_1',
        flow_id: 'flow_onboarding',
      })),
      ...['send', 'bounce'].map((type, i) => ({
        id: `ev_${i + 5}`,
        workspace_id: ws,
        email_id: 'em_2',
        email: 'grace@example.com',
        type: type as never,
        created_at: `2026-01-20T11:0${i}:00.000Z`,
        form_id: 'frm_nps',
        row_id: null,
        flow_id: null,
      })),
    ],
    webhook_endpoints: [
      {
        id: 'we_crm',
        workspace_id: ws,
        url: 'https://hooks.example.com/crm',
        events: ['response.created', 'row.updated'],
        description: 'CRM sync',
        secret: 'whsec_ZXhhbXBsZS1zZWNyZXQtbm90LWEtcmVhbC1vbmU=',
        created_at: '2026-01-06T10:00:00.000Z',
      },
    ],
  };
}

/**
 * A new database on the server of `adminUrl`, migrated and holding exampleFixture. Its own, because the
 * data set's ids are fixed: it never shares a database with other data. `drop` closes and removes it.
 */
export async function exampleDatabase(adminUrl: string): Promise<{ db: Db; drop: () => Promise<void> }> {
  const name = `fs_examples_${randomBytes(6).toString('hex')}`;
  const admin = knex({ client: 'pg', connection: adminUrl, pool: { min: 0, max: 1 } });
  await admin.raw('CREATE DATABASE ??', [name]);
  const db = createDb({ databaseUrl: databaseUrl(adminUrl, name), dataDir: '', poolMax: 5 });
  const drop = async () => {
    await db.destroy();
    await admin.raw('DROP DATABASE IF EXISTS ??', [name]);
    await admin.destroy();
  };
  try {
    await migrateLatest(db);
    await importFixture(db, exampleFixture());
  } catch (err) {
    await drop();
    throw err;
  }
  return { db, drop };
}

/** One request of the walk. */
export interface ExampleCall {
  op: DocOperation;
  /** The style asked for with `X-API-Style` on a shared path; undefined: the operation's own style. */
  style?: Style;
  /** Path and query. */
  path: string;
  /** The answer's media type asked for (the export's `format` picks NDJSON or CSV). */
  media: string;
  /** Upserts documented with 201 (created) and 200 (updated): sent twice, to show both. */
  repeat: boolean;
}

/** Success statuses of an operation with the media types of their bodies (empty for no body). */
export function successMedia(op: DocOperation): Array<[string, string[]]> {
  return Object.entries(op.responseTypes).filter(([status]) => /^2\d\d$/.test(status));
}

/** True when the operation has a success answer with a checked media type. */
export const hasCheckedAnswer = (op: DocOperation) => successMedia(op).some(([, types]) => types.some((t) => CHECKED_MEDIA.includes(t)));

/** Path values for one operation: Style B's entry writes use another row than Style A's, a key reads its own usage and report. */
function idsFor(op: DocOperation, extra: Record<string, string>): Record<string, string> {
  const ids = { ...EXAMPLE_IDS, ...extra };
  if (op.template.includes('/tables/')) ids.row_id = 'row_2';
  if (op.template.endsWith('/usage') || op.template.endsWith('/migration-report')) ids.key_id = 'key_docs';
  // Keywords: the form with a text question.
  if (op.template.endsWith('/analytics/keywords')) ids.form_id = 'frm_csat';
  return ids;
}

/** The query of the example request: short pages (`limit=2`), one form's responses in an export, a one-day report. */
function queryFor(op: DocOperation, media: string, ids: Record<string, string>): string {
  const names = new Set(op.params.filter((p) => p.in === 'query').map((p) => p.name));
  const query: string[] = [];
  if (names.has('limit')) query.push('limit=2');
  if (names.has('format')) query.push(`format=${media === 'text/csv' ? 'csv' : 'ndjson'}`);
  if (names.has('format') && names.has('form_id')) query.push('form_id=frm_csat');
  // A dashboard download: the one-time token of the page (prepareExampleIds), once per format.
  if (names.has('t') && ids.download_t !== undefined) query.push(`t=${ids.download_t}`);
  if (names.has('email')) query.push('email=ada%40example.com');
  if (names.has('interval')) query.push('interval=week', 'start_date=2026-01-01', 'end_date=2026-01-31');
  // One day: the window's first day is then today, which the capture fixes like every date of the run.
  if (op.template.endsWith('/migration-report')) query.push('days=1');
  return query.length > 0 ? `?${query.join('&')}` : '';
}

/**
 * The walk: every operation with a checked success answer, once per style on shared paths (the
 * export once per media type too), reads first, then writes, deletes last, so no write changes what a
 * read shows and nothing is deleted before it is used.
 * @param extra path values made at run time (`delivery_id`, see prepareExampleIds).
 */
export function exampleCalls(extra: Record<string, string>, ops = documentOperations()): ExampleCall[] {
  const rank = (op: DocOperation) => (op.method === 'GET' ? 0 : op.method === 'DELETE' ? 2 : 1);
  const ordered = ops.filter(hasCheckedAnswer).sort((a, b) => rank(a) - rank(b));
  const calls: ExampleCall[] = [];
  for (const op of ordered) {
    const media = [...new Set(successMedia(op).flatMap(([, types]) => types.filter((t) => CHECKED_MEDIA.includes(t))))];
    const statuses = successMedia(op)
      .filter(([, types]) => types.length > 0)
      .map(([s]) => s);
    const repeat = statuses.includes('200') && statuses.includes('201');
    for (const style of op.shared ? (['A', 'B'] as const) : [undefined]) {
      for (const m of media) {
        const ids = idsFor(op, extra);
        calls.push({ op, style, media: m, repeat, path: fillPath(op.template, ids) + queryFor(op, m, ids) });
      }
    }
  }
  return calls;
}

/** An answer of the walk: its style (`X-API-Style`), media type and body (parsed JSON, else text). */
export interface ExampleAnswer {
  call: ExampleCall;
  status: number;
  style: Style;
  media: string;
  body: unknown;
  /** 1, or 2 for the repeat of an upsert. */
  attempt: number;
}

type Agent = () => supertest.Agent;

/** Sends one call; `body` is the JSON body for the call's operation and style (undefined: none). */
async function send(agent: Agent, call: ExampleCall, body: unknown): Promise<supertest.Response> {
  let r = agent()[call.op.method.toLowerCase() as 'get'](call.path);
  if (call.op.scope !== 'none') r = r.set('X-API-Key', EXAMPLE_KEY);
  if (call.style) r = r.set('X-API-Style', call.style);
  r = r.buffer(true).parse((res, done) => {
    let text = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => (text += chunk));
    res.on('end', () => done(null, text));
  });
  return body === undefined ? r : r.send(body as object);
}

/**
 * Runs the walk against an app holding exampleFixture.
 * @param body the request body of a call (undefined for none).
 * @param before awaited before each request (the capture and the test write the usage counts there).
 */
export async function runExampleWalk(
  agent: Agent,
  calls: ExampleCall[],
  body: (call: ExampleCall) => unknown,
  before: () => Promise<void> = async () => {},
): Promise<ExampleAnswer[]> {
  const answers: ExampleAnswer[] = [];
  for (const call of calls) {
    for (let attempt = 1; attempt <= (call.repeat ? 2 : 1); attempt++) {
      await before();
      const res = await send(agent, call, body(call));
      const media = String(res.headers['content-type'] ?? '')
        .split(';')[0]!
        .trim();
      const text = res.body as string;
      answers.push({
        call,
        attempt,
        status: res.status,
        style: res.headers['x-api-style'] === 'B' ? 'B' : 'A',
        media,
        body: media === 'application/json' && text !== '' ? JSON.parse(text) : text,
      });
    }
  }
  return answers;
}

/**
 * The run-time path values: a delivery of the data set's webhook endpoint (its test event), a dashboard link
 * of `frm_nps` (docs/analytics.md, "Dashboard links") with the one-time download token of its page, a bulk
 * delete that deleted nothing, an erasure request (docs/data-rights.md, "Erasing a person"), a topic and a webhook recovery.
 */
export async function prepareExampleIds(agent: Agent): Promise<Record<string, string>> {
  const res = await agent().post(fillPath('/api/v1/workspaces/{workspace_id}/webhook-endpoints/{endpoint_id}/test', EXAMPLE_IDS)).set('X-API-Key', EXAMPLE_KEY);
  if (res.status !== 202) throw new Error(`the webhook test event answered ${res.status}: ${res.text}`);
  const link = await agent().post(fillPath('/api/v1/workspaces/{workspace_id}/forms/{form_id}/dashboard-links', EXAMPLE_IDS)).set('X-API-Key', EXAMPLE_KEY);
  if (link.status !== 201) throw new Error(`minting a dashboard link answered ${link.status}: ${link.text}`);
  const token = new URL(link.body.data.url as string).pathname.split('/').pop()!;
  const page = await agent().get(`/d/${token}`);
  const downloadT = /export\?format=csv&amp;t=([A-Za-z0-9_.-]+)/.exec(page.text)?.[1];
  if (page.status !== 200 || downloadT === undefined) throw new Error(`the dashboard page answered ${page.status} without a download link`);
  // A bulk delete that selects no response (docs/api-rules.md, "Deleting responses"), for `{deletion_id}`.
  const deletion = await agent()
    .post(fillPath('/api/v1/workspaces/{workspace_id}/response-deletions', EXAMPLE_IDS))
    .set('X-API-Key', EXAMPLE_KEY)
    .send({ ids: ['rsp_none'] });
  if (deletion.status !== 200) throw new Error(`a bulk delete answered ${deletion.status}: ${deletion.text}`);
  // An erasure of an address the data set does not hold (nothing goes), so GET and the suppression's DELETE have an
  // id; another than the walk's own POST (`nobody@example.com`), whose first answer is then a 201.
  const erasure = await agent()
    .post(fillPath('/api/v1/workspaces/{workspace_id}/erasure-requests', EXAMPLE_IDS))
    .set('X-API-Key', EXAMPLE_KEY)
    .send({ email: 'gone@example.com' });
  if (erasure.status !== 201) throw new Error(`the erasure request answered ${erasure.status}: ${erasure.text}`);
  // A topic (docs/analytics.md, "Topics") for `{topic_id}`; the walk's own POSTs create two others.
  const topic = await agent()
    .post(fillPath('/api/v1/workspaces/{workspace_id}/topics', EXAMPLE_IDS))
    .set('X-API-Key', EXAMPLE_KEY)
    .send({ name: 'speed', query: 'slow | fast' });
  if (topic.status !== 201) throw new Error(`creating a topic answered ${topic.status}: ${topic.text}`);
  // A recovery of the last two hours for the data set's endpoint (docs/webhooks.md, "Recovering missed events"), for
  // `{recovery_id}`; another window than the walk's own POST.
  const recovery = await agent()
    .post(fillPath('/api/v1/workspaces/{workspace_id}/webhook-endpoints/{endpoint_id}/recover', EXAMPLE_IDS))
    .set('X-API-Key', EXAMPLE_KEY)
    .send({ since: new Date(Date.now() - 2 * 3600_000).toISOString() });
  if (recovery.status !== 202) throw new Error(`the webhook recovery answered ${recovery.status}: ${recovery.text}`);
  return {
    delivery_id: res.body.data.id as string,
    link_id: link.body.data.id as string,
    token,
    download_t: downloadT,
    deletion_id: deletion.body.data.id as string,
    erasure_id: erasure.body.data.id as string,
    topic_id: topic.body.data.id as string,
    recovery_id: recovery.body.data.id as string,
  };
}

type Node = Record<string, unknown>;

/** Follows a local `$ref` (one level; examples and responses point into components). */
export function deref(doc: OpenApiDocument, node: unknown): Node | undefined {
  const ref = (node as { $ref?: unknown } | undefined)?.$ref;
  if (typeof ref !== 'string') return node as Node | undefined;
  return ref
    .replace(/^#\//, '')
    .split('/')
    .reduce<unknown>((n, key) => (n as Node | undefined)?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc) as Node | undefined;
}

/** The examples of a media type object by name, `$ref`s followed: name → value. */
function examplesOf(doc: OpenApiDocument, media: Node | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, ex] of Object.entries((media?.examples as Node | undefined) ?? {})) out[name] = deref(doc, ex)?.value;
  return out;
}

/** The raw operation object of the document. */
function rawOperation(doc: OpenApiDocument, op: DocOperation): Node {
  return (doc.paths[op.template] as Node)[op.method.toLowerCase()] as Node;
}

/** The request examples of an operation's JSON body, by name. */
export function requestExamples(op: DocOperation, doc = loadOpenApiDocument()): Record<string, unknown> {
  const body = deref(doc, rawOperation(doc, op).requestBody);
  return examplesOf(doc, (body?.content as Node | undefined)?.['application/json'] as Node | undefined);
}

/** The response examples of an operation's status and media type, by name. */
export function responseExamples(op: DocOperation, status: string, media: string, doc = loadOpenApiDocument()): Record<string, unknown> {
  const response = deref(doc, (rawOperation(doc, op).responses as Node)[status]);
  return examplesOf(doc, (response?.content as Node | undefined)?.[media] as Node | undefined);
}

/** The JSON type of a value, `array` and `null` apart. */
function jsonType(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
}

/**
 * Where a live answer's shape differs from an example's: the same keys at every level and the same JSON
 * types; arrays compare their first items (when both have one). Values are not compared, and a `null`
 * on either side matches any type (a nullable field is null or not by the data, like a value).
 * @param depth levels compared (Infinity: all; 1: the top-level keys only).
 * @returns one line per difference, `$.data[0].created_at: …`; empty when the shapes agree.
 */
export function shapeProblems(example: unknown, live: unknown, depth = Infinity, at = '$'): string[] {
  const [e, l] = [jsonType(example), jsonType(live)];
  if (e === 'null' || l === 'null' || depth <= 0) return [];
  if (e !== l) return [`${at}: the example has ${e}, the answer ${l}`];
  if (e === 'array') {
    const [a, b] = [example as unknown[], live as unknown[]];
    return a.length > 0 && b.length > 0 ? shapeProblems(a[0], b[0], depth - 1, `${at}[0]`) : [];
  }
  if (e !== 'object') return [];
  const [a, b] = [example as Node, live as Node];
  const problems = [
    ...Object.keys(a)
      .filter((k) => !(k in b))
      .map((k) => `${at}.${k}: in the example, not in the answer`),
    ...Object.keys(b)
      .filter((k) => !(k in a))
      .map((k) => `${at}.${k}: in the answer, not in the example`),
  ];
  for (const k of Object.keys(a).filter((key) => key in b)) problems.push(...shapeProblems(a[k], b[k], depth - 1, `${at}.${k}`));
  return problems;
}

/**
 * shapeProblems for a body of any checked media type: NDJSON compares its first lines as JSON, CSV its
 * header rows, Prometheus text (`text/plain`) that every `# TYPE` line of the example is in the answer.
 */
export function bodyShapeProblems(media: string, example: unknown, live: unknown, depth = Infinity): string[] {
  if (media === 'application/json') return shapeProblems(example, live, depth);
  const [a, b] = [String(example), String(live)];
  if (media === 'application/x-ndjson') return shapeProblems(JSON.parse(a.split('\n')[0]!), JSON.parse(b.split('\n')[0]!), depth);
  if (media === 'text/csv') {
    const [ha, hb] = [a.split('\r\n')[0], b.split('\r\n')[0]];
    return ha === hb ? [] : [`header row: the example has ${ha}, the answer ${hb}`];
  }
  const types = new Set(b.split('\n').filter((line) => line.startsWith('# TYPE ')));
  return a
    .split('\n')
    .filter((line) => line.startsWith('# TYPE ') && !types.has(line))
    .map((line) => `${line}: in the example, not in the answer`);
}
