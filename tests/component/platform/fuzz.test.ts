/**
 * Fuzz test generated from openapi/ (issue 9 item 8; docs/api-rules.md, "Errors"): malformed requests against
 * every operation of the document (both styles where a path is shared): wrong types, huge and
 * control-character strings, lone surrogates, bad JSON, 10,000-level nesting, bad cursors, filters (on answers too: unknown
 * questions, operators and values that do not fit the question), searches (long, only tsquery syntax),
 * sentiment labels that do not exist, sorts,
 * dates at and past the supported range (docs/api-rules.md, "Dates"), bad headers. Every answer: no 5xx, errors
 * in the envelope, the headers its operation declares for the status, and a rejected write wrote nothing.
 * A fixed seed runs every time, then a random one (FUZZ_SEED fixes it); a failure names its seed and the request.
 * Operations other branches add are read from the document, so they are covered too.
 *
 * Cheap requests (issue 27 item 6, docs/development.md, "Fuzzing"): the cases of a seed are drawn first
 * (fc.sample), then sent over keep-alive connections to one listening server, a few at a time on PostgreSQL: each
 * lane has a workspace of its own, so the check that a rejected write wrote nothing sees only its own requests.
 * The file's counts go to the folder FUZZ_COUNTS_DIR names (tests/support/json-result-reporter.js prints their sum).
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import fc from 'fast-check';
import { clientErrorHandler, MAX_HEADER_BYTES } from '../../../src/platform/http-server';
import { createLogger } from '../../../src/platform/logger';
import { useTestApp } from '../../support/app';
import { keyFor, scenario } from '../../support/given';
import { documentOperations, fillPath, headerProblems, wellFormedBody, type DocOperation, type Param } from '../../support/openapi-ops';
import { onEmbeddedDb } from '../../support/db';
import { workspaceState } from '../../support/state';

// Normally ~40 s; the margin is for a machine shared with other work.
jest.setTimeout(360_000);

// Budgets far above what the fuzz sends, so no generated request meets a 429 instead of its own check.
const t = useTestApp({ rateLimitPerMinute: 1_000_000, authFailuresPerMinute: 1_000_000 });

const FIXED_SEED = 20261123;
/** Replays a failed random seed: FUZZ_SEED=<seed> npx jest tests/component/platform/fuzz.test.ts. */
const RANDOM_SEED = Number(process.env.FUZZ_SEED) || Date.now() ^ (Math.random() * 0x7fffffff);
/**
 * Requests per seed: 10,000 in all per suite run (both projects, both seeds). PGlite answers in this process, one
 * query at a time, at about three times PostgreSQL's cost per request, so it gets fewer.
 */
const RUNS = Number(process.env.FUZZ_RUNS) || (onEmbeddedDb() ? 1000 : 4000);
/** Requests in flight at once, one workspace each; PGlite answers one query at a time, so one there. */
const LANES = onEmbeddedDb() ? 1 : 4;

/** One workspace the fuzz writes to, with the ids its paths are filled with. */
interface Lane {
  ws: string;
  key: string;
  ids: Record<string, string>;
}

let lanes: Lane[] = [];
let server: http.Server;
let agent: http.Agent;
let port: number;
const counts = { requests: 0, answered5xx: 0, seeds: [] as number[] };

/** Builds a lane: a scenario workspace, a webhook endpoint with a delivery, an email link, a key to revoke, a bulk delete. */
async function newLane(): Promise<Lane> {
  const s = await scenario(t.db, { responseCount: 6 });
  const endpoint = await t
    .http()
    .post(`/api/v1/workspaces/${s.ws}/webhook-endpoints`)
    .set('X-API-Key', s.key)
    .send({ url: 'https://hooks.example.com/fuzz', events: ['row.created'] });
  const delivery = await t.http().post(`/api/v1/workspaces/${s.ws}/webhook-endpoints/${endpoint.body.data.id}/test`).set('X-API-Key', s.key);
  const link = await t.http().post(`/api/v1/workspaces/${s.ws}/forms/${s.nps}/links`).set('X-API-Key', s.key).send({ email: 'fuzz@example.com' });
  const victim = await t
    .http()
    .post(`/api/v1/workspaces/${s.ws}/api-keys`)
    .set('X-API-Key', s.key)
    .send({ name: 'victim', scopes: ['forms:read'] });
  // A spare key, so a fuzzed revoke of the victim never locks the test out.
  await keyFor(t.db, [s.ws], { scopes: ['forms:read'] });
  // A stored bulk delete (of no response) for `{deletion_id}`.
  const deletion = await t
    .http()
    .post(`/api/v1/workspaces/${s.ws}/response-deletions`)
    .set('X-API-Key', s.key)
    .send({ ids: ['rsp_none'] });
  return {
    ws: s.ws,
    key: s.key,
    ids: {
      workspace_id: s.ws,
      form_id: s.nps,
      datatable_id: s.table,
      table_id: s.table,
      row_id: s.rows[1]!,
      response_id: s.responses[0]!.id,
      email_id: s.emailIds[0]!,
      endpoint_id: endpoint.body.data.id,
      key_id: victim.body.data.id,
      delivery_id: delivery.body.data.id,
      deletion_id: deletion.body.data.id,
      token: new URL(link.body.data.open_url as string).pathname.replace(/^\/e\//, '').replace(/\.gif$/, ''),
      question_id: 'q_score',
    },
  };
}

beforeAll(async () => {
  lanes = [];
  for (let i = 0; i < LANES; i++) lanes.push(await newLane());
  const first = lanes[0]!;
  // Well-formed cursors of other lists (a cursor of another list is a 400, docs/api-rules.md, "Lists and pages").
  for (const list of [`/api/v1/workspaces/${first.ws}/responses?limit=1`, `/api/v1/workspaces/${first.ws}/email-events?limit=1`]) {
    const page = await t.http().get(list).set('X-API-Key', first.key).set('X-API-Style', 'A');
    const next = page.body.links?.next as string | null;
    if (next) badUrlValues.push(encodeURIComponent(new URL(next).searchParams.get('cursor') ?? ''));
  }
  badUrlValues.push(...answerFilterValues(first.ids.form_id!));
  // One server for every request (supertest listens anew for each), its connections kept open between requests.
  // With the service's header limit and its envelope for what Node refuses before the app (a request line over 16 KiB,
  // which two long query values of one case can make: 431 headers_too_large), as the real server has (http-server.ts).
  server = http.createServer({ maxHeaderSize: MAX_HEADER_BYTES }, t.app);
  server.on('clientError', clientErrorHandler(createLogger('silent')));
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  agent = new http.Agent({ keepAlive: true, maxSockets: LANES });
  await warmValidators(first);
});

afterAll(async () => {
  agent?.destroy();
  server?.closeAllConnections();
  if (server) await new Promise((resolve) => server.close(resolve));
  // Summed and printed by tests/support/json-result-reporter.js as `fuzz: N requests, M answered 5xx`.
  const dir = process.env.FUZZ_COUNTS_DIR;
  if (dir) {
    const project = onEmbeddedDb() ? 'pglite' : 'postgres';
    fs.writeFileSync(path.join(dir, `${project}-${process.pid}.json`), JSON.stringify({ project, ...counts }));
  }
});

const LONE = '\ud800';
const DEPTH = 10_000;
/** Nesting far past the 32-level limit (docs/writes-keys-limits.md, "Limits, bad bytes and secrets"): put in a body as `"__deep_<i>__"`, spliced in as text. */
const deep = [`${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}`, `${'{"a":'.repeat(DEPTH)}1${'}'.repeat(DEPTH)}`];

/** Query and path values that are wrong for most parameters (already URL-encoded; beforeAll adds foreign cursors). */
const badUrlValues: string[] = [
  '',
  '%20',
  'abc',
  '-1',
  '0',
  '1.5',
  '1e309',
  '99999999999999999999',
  'null',
  'true',
  '[]',
  '%7B%7D',
  '%00',
  '%01%1F',
  '%7F',
  '%ED%A0%80',
  '%FF%FE',
  '%',
  '%zz',
  '%E2%82',
  'a'.repeat(6000),
  // dates
  '2026-02-30',
  '2026-13-01',
  '2026-01-01T25%3A00%3A00Z',
  '2026-01-01T00%3A00%3A00',
  'yesterday',
  '0000-00-00',
  '%2B275760-09-13',
  // the edges of the supported range (0001-01-01 .. 9999-12-31) and just past them
  '0001-01-01T00%3A00%3A00Z',
  '9999-12-31T23%3A59%3A59.999999999Z',
  '0000-12-31T23%3A59%3A59Z',
  '10000-01-01',
  '%2B010000-01-01T00%3A00%3A00Z',
  '-000001-01-01T00%3A00%3A00Z',
  '9999-12-31T23%3A59%3A60Z',
  // cursors
  'eyJ4IjoxfQ',
  '!!!',
  'AAAA',
  Buffer.from('["9999-99-99","x"]').toString('base64url'),
  Buffer.from('{"v":1,"k":[null,null]}').toString('base64url'),
  // filters and sorts
  'score%20%3E%3E%201',
  'nope%20%3D%201',
  'score%20in%20%5B1%2C',
  '%22',
  'score%20%3D%20%22a',
  'id%20~%20',
  '%2C%2C%2C',
  'score%3D1%2Cscore%3Dx',
  'plan%20in%20%5B%5D',
  'seats%20%3D%20abc',
  '-',
  '%2Bcreated_at',
  'created_at%3Adesc',
  'score%2C-score',
  '-nope',
  // filters on answers (docs/api-rules.md, "Filters on answers"): Style A `<question_id>:<value>`, Style B `answers.<question_id>`
  'q_score%3Aabc',
  'q_score%3A1e309',
  'q_score',
  'q_plan%3Aopt_none',
  'q_nope%3A1',
  '%22q_score',
  '%22q%22x%3A1',
  '%3A9',
  'q_score%3A%25_%5C',
  'answers.q_score%20%3E%3D%20abc',
  'answers.q_score%20%3E%3D%20null',
  'answers.q_plan%20~%20x',
  'answers.q_plan%20%3E%20opt_pro',
  'form_id%20%3D%20x%2Canswers.q%20%3C%201',
  'answers.%22q',
  'answers.',
  'score%20%3C%3D%205',
  'q_score%3A%3E%3D9',
  `q_score%3A${'9'.repeat(400)}`,
  // the audit list's filters (docs/security.md, "The audit trail"): Style B `filter` fields, exact Style A values
  'actor%20~%20%25',
  'request_id%20%3D%20null',
  'target_type%20in%20%5Bx%2C',
  'action%20%3E%20a',
  'hash%20%3D%20x',
  'api_key.created',
  'key_%25',
  // the search `q` and its sort (docs/api-rules.md, "Searching text answers"): tsquery syntax, no word, open quotes, too long
  '%26%7C!()%3A*',
  '!!!%20%26%26%20%7C%7C',
  '%22%22',
  '%22unclosed%20phrase',
  '-',
  '-%20or%20-',
  'a%20%3C-%3E%20b%3A*',
  '%5C%27%3B--',
  'or',
  `${'pricing%20'.repeat(1000)}`,
  // Long and only query syntax; 5,000 characters, not 10,000 (tests/component/platform/answer-bad-input.test.ts sends that):
  // a case holds up to three values and a bad header, and together they must stay under the 16 KiB header limit.
  '!():*'.repeat(1000),
  '!!!%20...%20%3B%3B%20%3F%3F',
  '((((%3A*))))',
  '!%22%22%20%26%20%7C',
  'relevance',
  'relevance%3Adesc',
  'relevance%3Adesc%2Cscore%3Aasc',
  // sentiment (docs/api-rules.md, "Sentiment"): a label that does not exist, contains, a comparison, the sort
  'happy',
  'Positive',
  'sentiment%20%3D%20happy',
  'sentiment%20in%20%5Bpositive%2C%20great%5D',
  'sentiment%20~%20pos',
  'sentiment%20%3E%3D%20neutral',
  'sentiment%3Asideways',
  'sentiment%3Aasc%2Cscore%3Adesc',
  'NEUTRAL',
  'very_positive',
  'sentiment%20%3D%20%22%22',
  'sentiment%20in%20%5Bnull%2C%20mixed%5D',
  // topics (docs/api-rules.md, "Filtering by topic"; docs/analytics.md, "Topics"): an unknown topic, contains, a comparison
  'top_nope',
  'topic%20%3D%20nope',
  'topic%20~%20pri',
  'topic%20%3E%20a',
  'topic%20in%20%5Bnope%2C%20null%5D',
  'price%20%7C%20%7C%20',
];

/** Body values of the wrong JSON type or with bad bytes. */
const badJsonValues: unknown[] = [
  12345,
  -1,
  1.5,
  1e308,
  true,
  false,
  null,
  [],
  {},
  '',
  'x',
  LONE,
  `a${LONE}b`,
  '\udc00x',
  '\u0000',
  '\u0001\u001f\u007f',
  'a'.repeat(70_000),
  [LONE],
  { [LONE]: 1 },
  [[[[[[[[[[1]]]]]]]]]],
  '2026-02-30',
  'not-a-url',
  '\u202e\ufeff',
  '__deep_0__',
  '__deep_1__',
  '0001-01-01T00:00:00Z',
  '9999-12-31T23:59:59.999999999Z',
  '0000-12-31T23:59:59Z',
  '+010000-01-01T00:00:00Z',
];

/** Bodies that are not (one) JSON value, or JSON of the wrong kind. */
const badBodies: string[] = [
  '{',
  '[1,',
  '{"a":}',
  'nul',
  '"\\ud800"',
  '{"data":"\\udfff"}',
  '{"data":{"x":"\\ud800"}}',
  '\u0000',
  '{"a":1}{"b":2}',
  '',
  ' ',
  '[]',
  'null',
  '123',
  '"str"',
  `${'['.repeat(3000)}${']'.repeat(3000)}`,
  `{"data":${deep[1]}}`,
  `{"answers":${deep[0]}}`,
  '{"__proto__":{"polluted":1}}',
  '{"data":{"constructor":{"prototype":{}}}}',
];

const badHeaders: Array<[string, string]> = [
  ['Idempotency-Key', 'a'.repeat(256)],
  ['Idempotency-Key', 'ü'],
  ['Idempotency-Key', 'é'.repeat(10)],
  ['Idempotency-Key', '\t'],
  ['X-API-Style', 'C'],
  ['X-API-Style', 'AB'],
  ['X-API-Style', 'ü'],
  ['X-API-Style', ' '],
  ['If-None-Match', 'ü'],
  ['If-None-Match', '"x", *, W/"y"'],
  ['Accept', 'image/png'],
  ['X-API-Key', `${'k'.repeat(300)}`],
  ['Content-Type', 'application/json; charset=latin1'],
  ['Content-Type', 'text/plain'],
  ['Content-Type', 'application/x-www-form-urlencoded'],
];

type Mutation =
  | { kind: 'query'; name: string; value: string }
  | { kind: 'path'; name: string; value: string }
  | { kind: 'header'; name: string; value: string }
  | { kind: 'rawBody'; text: string }
  | { kind: 'bodyValue'; at: number; value: unknown };

interface Case {
  /** `METHOD template`; the operation itself is looked up (short counterexamples). */
  name: string;
  style: 'A' | 'B' | undefined;
  mutations: Mutation[];
}

const ops = documentOperations().filter((o) => o.scope !== undefined);
const opsByName = new Map(ops.map((o) => [`${o.method} ${o.template}`, o]));

/**
 * Answer filters that reach the question checks (issue 29 item 6): they need the form, so each names the first lane's
 * (another lane's workspace does not hold it: an unknown question there). Style B carries the form in `filter`; a
 * Style A value carries it as a second parameter (`&form_id=`). An unknown question, an operator that does not fit
 * the question's type, values of the wrong type, with a sentiment label that does not exist.
 */
function answerFilterValues(formId: string): string[] {
  const f = (expression: string) => encodeURIComponent(`form_id = ${formId}, ${expression}`);
  const a = (value: string) => `${encodeURIComponent(value)}&form_id=${encodeURIComponent(formId)}`;
  return [
    f('answers.q_nope = 1'),
    f('answers.q_nope != null'),
    f('answers.q_score ~ 9'),
    f('answers.q_plan >= opt_pro'),
    f('answers.q_plan ~ pro'),
    f('answers.q_score in [1, x]'),
    f('answers.q_score = 1e309'),
    f('answers.q_score >= 9.5.1'),
    f('answers.q_plan = opt_none'),
    f('answers.q_plan in [opt_pro, null, 3]'),
    f('answers.q_score >= 9, sentiment = happy'),
    f(`answers.q_score = ${'9'.repeat(400)}`),
    a('q_nope:1'),
    a('q_score:abc'),
    a('q_score:-1e309'),
    a('q_plan:opt_none'),
    a('q_plan:'),
    a('q_score:true'),
  ];
}

const queryNames = (op: DocOperation) => [...op.params.filter((p: Param) => p.in === 'query').map((p) => p.name), 'unknown_param'];
const pathNames = (op: DocOperation) => op.params.filter((p) => p.in === 'path').map((p) => p.name);

/** Built once per operation, at the first draw (after beforeAll, so its cursors are among the values). */
const mutationArbs = new Map<DocOperation, fc.Arbitrary<Mutation>>();

const mutationFor = (op: DocOperation): fc.Arbitrary<Mutation> => {
  const known = mutationArbs.get(op);
  if (known) return known;
  const options: Array<fc.Arbitrary<Mutation>> = [
    fc.record({
      kind: fc.constant('query' as const),
      name: fc.constantFrom(...queryNames(op)),
      value: fc.nat().map((i) => badUrlValues[i % badUrlValues.length]!),
    }),
    fc.record({
      kind: fc.constant('query' as const),
      name: fc.constantFrom(...queryNames(op)),
      value: fc
        .string({ unit: 'binary', maxLength: 40 })
        .map((v) => ((v as unknown as { isWellFormed(): boolean }).isWellFormed() ? encodeURIComponent(v) : '%ED%B0%80')),
    }),
    fc.constantFrom(...badHeaders).map(([name, value]) => ({ kind: 'header' as const, name, value })),
  ];
  if (pathNames(op).length > 0) {
    options.push(
      fc.record({ kind: fc.constant('path' as const), name: fc.constantFrom(...pathNames(op)), value: fc.constantFrom(...badUrlValues.filter(Boolean)) }),
    );
  }
  if (op.method !== 'GET') {
    options.push(fc.constantFrom(...badBodies).map((text) => ({ kind: 'rawBody' as const, text })));
    options.push(fc.record({ kind: fc.constant('bodyValue' as const), at: fc.nat(), value: fc.constantFrom(...badJsonValues) }));
    options.push(fc.record({ kind: fc.constant('bodyValue' as const), at: fc.nat(), value: fc.jsonValue({ maxDepth: 3 }) }));
  }
  const arb = fc.oneof(...options);
  mutationArbs.set(op, arb);
  return arb;
};

const caseArb: fc.Arbitrary<Case> = fc.constantFrom(...ops).chain((op) =>
  fc.record({
    name: fc.constant(`${op.method} ${op.template}`),
    style: op.shared ? fc.constantFrom<'A' | 'B' | undefined>('A', 'B', undefined) : fc.constant(undefined),
    mutations: fc.array(mutationFor(op), { minLength: 1, maxLength: 3 }),
  }),
);

/** Every place in a JSON value where a value can be put: [container, key] pairs (the root too). */
function slots(root: { v: unknown }): Array<[Record<string, unknown> | unknown[], string | number]> {
  const out: Array<[Record<string, unknown> | unknown[], string | number]> = [[root as unknown as Record<string, unknown>, 'v']];
  const walk = (node: unknown) => {
    if (Array.isArray(node)) node.forEach((item, i) => (out.push([node, i]), walk(item)));
    else if (node && typeof node === 'object') for (const [k, item] of Object.entries(node)) (out.push([node as Record<string, unknown>, k]), walk(item));
  };
  walk(root.v);
  return out;
}

function buildRequest(c: Case, lane: Lane): { method: string; path: string; headers: Record<string, string>; body?: string; describe: string } {
  const op = opsByName.get(c.name)!;
  const pathValues: Record<string, string> = { ...lane.ids };
  const rawPath: Record<string, string> = {};
  const query: string[] = [];
  const headers: Record<string, string> = { 'X-API-Key': lane.key };
  if (c.style) headers['X-API-Style'] = c.style;
  let body: string | undefined;
  const root = { v: op.method === 'GET' ? undefined : wellFormedBody(op) };
  for (const m of c.mutations) {
    if (m.kind === 'query') query.push(`${encodeURIComponent(m.name)}=${m.value}`);
    else if (m.kind === 'path') rawPath[m.name] = m.value;
    else if (m.kind === 'header') headers[m.name] = m.value;
    else if (m.kind === 'rawBody') body = m.text;
    else if (root.v !== undefined) {
      const all = slots(root);
      const [container, key] = all[m.at % all.length]!;
      // A copy: two mutations may carry one generated object, which must not end up inside itself.
      (container as Record<string | number, unknown>)[key] = structuredClone(m.value);
    }
  }
  if (body === undefined && root.v !== undefined) body = JSON.stringify(root.v).replace(/"__deep_(\d+)__"/g, (_m, i: string) => deep[Number(i)]!);
  if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['Content-Type'] = 'application/json';
  let path = fillPath(op.template, pathValues);
  for (const [name, value] of Object.entries(rawPath)) {
    path = path.replace(encodeURIComponent(pathValues[name] ?? 'x_unknown'), value);
  }
  if (query.length > 0) path += `?${query.join('&')}`;
  const describe = `${op.method} ${path.slice(0, 300)} headers=${JSON.stringify(headers).slice(0, 300)} body=${(body ?? '').slice(0, 300)}${(body ?? '').length > 300 ? `… (${body!.length} chars)` : ''}`;
  return { method: op.method, path, headers, body, describe };
}

const ERROR_LOCATIONS = ['query', 'body', 'header', 'path'];

/** The error envelope of docs/api-rules.md, "Errors", exactly. */
function envelopeProblems(res: Answer): string[] {
  const problems: string[] = [];
  const b = res.body as Record<string, unknown> | undefined;
  if (!b || typeof b !== 'object') return [`no JSON body (content-type ${res.headers['content-type']})`];
  if (Object.keys(b).sort().join() !== 'error,request_id') problems.push(`top-level keys ${Object.keys(b).join()}`);
  const e = b.error as Record<string, unknown> | undefined;
  if (!e || typeof e.code !== 'string' || typeof e.message !== 'string' || e.status !== res.status) problems.push(`error ${JSON.stringify(e)}`);
  if (e && Object.keys(e).some((k) => !['code', 'message', 'status', 'details'].includes(k))) problems.push(`error keys ${Object.keys(e).join()}`);
  if (e?.details !== undefined) {
    const ok =
      Array.isArray(e.details) &&
      e.details.every(
        (d: Record<string, unknown>) => ERROR_LOCATIONS.includes(d.location as string) && typeof d.field === 'string' && typeof d.message === 'string',
      );
    if (!ok) problems.push(`details ${JSON.stringify(e.details)}`);
  }
  if (typeof b.request_id !== 'string' || b.request_id !== res.headers['x-request-id']) problems.push(`request_id ${String(b.request_id)}`);
  return problems;
}

/** An answer as the checks read it: header names in lower case, the body parsed as JSON when it is JSON. */
interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: unknown;
}

/** Sends the request as it is (path, headers and body bytes untouched) over a kept-alive connection. */
function send(req: ReturnType<typeof buildRequest>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const body = req.body === undefined ? undefined : Buffer.from(req.body, 'utf8');
    const headers: Record<string, string | number> = { ...req.headers };
    if (body) headers['Content-Length'] = body.length;
    const r = http.request({ host: '127.0.0.1', port, agent, method: req.method, path: req.path, headers }, (res) => {
      // A live stream (docs/live.md, "Stream") never ends: its head is the answer.
      if (res.statusCode === 200 && String(res.headers['content-type']).startsWith('text/event-stream')) {
        resolve({ status: 200, headers: res.headers, body: undefined });
        res.destroy();
        return;
      }
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('error', reject);
      res.on('end', () => {
        let parsed: unknown;
        try {
          parsed = text ? JSON.parse(text) : undefined;
        } catch {
          parsed = { __unparsed: text.slice(0, 200) };
        }
        resolve({ status: res.statusCode!, headers: res.headers, body: parsed });
      });
    });
    r.on('error', reject);
    r.end(body);
  });
}

/** The problems of one generated request's answer, empty when it holds; counts it. */
async function check(c: Case, lane: Lane): Promise<string[]> {
  const req = buildRequest(c, lane);
  const write = req.method !== 'GET';
  const before = write ? await workspaceState(t.db, lane.ws) : undefined;
  let res: Answer;
  try {
    res = await send(req);
    // `/readyz` answers 503 when a dependency's check takes over 1 s (src/platform/probes.ts), which a busy machine
    // can make happen with no fault in the service: asked again a moment later, it must be ready.
    if (res.status === 503 && req.path.startsWith('/readyz')) {
      await new Promise((r) => setTimeout(r, 500));
      res = await send(req);
    }
  } catch (e) {
    return [`${req.describe}\n→ no answer: ${(e as Error).message}`];
  }
  counts.requests += 1;
  const problems: string[] = [];
  if (res.status >= 500) {
    counts.answered5xx += 1;
    problems.push(`status ${res.status}: ${JSON.stringify(res.body).slice(0, 400)}`);
  }
  if (res.status >= 400) {
    // Pages and images answer their errors in their own documented media type (text/html for a form
    // page's 400); everything else, and anything undocumented, in the JSON error envelope.
    const documented = opsByName.get(c.name)!.responseTypes[String(res.status)] ?? [];
    const own = documented.length > 0 && !documented.some((m) => m.includes('json'));
    if (own) {
      if (!documented.some((m) => String(res.headers['content-type']).startsWith(m)))
        problems.push(`content-type ${res.headers['content-type']} not in ${documented.join()}`);
    } else problems.push(...envelopeProblems(res));
  }
  if (!['A', 'B'].includes(res.headers['x-api-style'] as string)) problems.push(`X-API-Style header ${res.headers['x-api-style']}`);
  problems.push(...headerProblems(opsByName.get(c.name)!, res.status, res.headers));
  if (write && res.status >= 400) {
    const after = await workspaceState(t.db, lane.ws);
    for (const table of Object.keys(before!)) if (before![table] !== after[table]) problems.push(`rejected ${res.status} write changed ${table}`);
  }
  return problems.length > 0 ? [`${req.describe}\n→ ${res.status} ${problems.join('; ')}`] : [];
}

/** The Content-Type values the validator tells apart (src/platform/openapi.ts, canonicalContentType), and none. */
const CONTENT_TYPES = [undefined, 'application/json', 'application/x-www-form-urlencoded', 'multipart/form-data', 'application/octet-stream'];

/**
 * Compiles the validator's request validators (one per operation and Content-Type) and response validators (one
 * set per operation) with one request each, one at a time, before the lanes start. A compile holds the event loop
 * for a while (tens of ms a schema), long enough that `/readyz`'s 1-second checks, running beside it, call the
 * database and Redis down. Each request carries an unknown query parameter and unknown ids, so the validator
 * rejects it (or the resource is not found) and nothing is written.
 */
async function warmValidators(lane: Lane): Promise<void> {
  for (const op of ops) {
    for (const type of CONTENT_TYPES) {
      const headers: Record<string, string> = { 'X-API-Key': lane.key };
      if (type) headers['Content-Type'] = type;
      const body = type ? '[]' : undefined;
      await send({ method: op.method, path: `${fillPath(op.template, { workspace_id: lane.ws })}?unknown_param=1`, headers, body, describe: '' });
    }
  }
}

/**
 * Draws `RUNS` cases from `seed` and sends them, each lane working through its share in order; stops at the
 * first failure and throws it with the seed, the case's number and the request.
 */
async function fuzz(seed: number): Promise<void> {
  counts.seeds.push(seed);
  const cases = fc.sample(caseArb, { seed, numRuns: RUNS });
  let next = 0;
  let failure: string | undefined;
  const work = async (lane: Lane) => {
    while (failure === undefined && next < cases.length) {
      const i = next++;
      const problems = await check(cases[i]!, lane);
      if (problems.length > 0 && failure === undefined) failure = `case ${i + 1} of ${RUNS}: ${problems.join('\n')}`;
    }
  };
  await Promise.all(lanes.map(work));
  if (failure !== undefined) {
    throw new Error(`fuzz failed with seed ${seed} (replay: FUZZ_SEED=${seed} npx jest tests/component/platform/fuzz.test.ts), ${failure}`);
  }
}

describe('fuzz: malformed requests against every operation of openapi/', () => {
  it('covers every operation of the document, both styles on shared paths', () => {
    expect(ops.length).toBe(documentOperations().length);
    expect(ops.filter((o) => o.shared).length).toBeGreaterThanOrEqual(3);
  });

  it(`holds for the fixed seed ${FIXED_SEED}`, async () => {
    await fuzz(FIXED_SEED);
  });

  it(`holds for the random seed ${RANDOM_SEED} (FUZZ_SEED replays it)`, async () => {
    await fuzz(RANDOM_SEED);
  });
});
