/**
 * Fuzz test generated from openapi/ (issue 9 item 8; docs/api-rules.md, "Errors"): malformed requests against
 * every operation of the document (both styles where a path is shared): wrong types, huge and
 * control-character strings, lone surrogates, bad JSON, 10,000-level nesting, bad cursors, filters, sorts,
 * dates at and past the supported range (docs/api-rules.md, "Dates"), bad headers. Every answer: no 5xx, errors
 * in the envelope, the headers its operation declares for the status, and a rejected write wrote nothing.
 * A fixed seed runs every time, then a random one; a failure prints its seed (fast-check's report)
 * and the request. Operations other branches add are read from the document, so they are covered too.
 */
import fc from 'fast-check';
import type supertest from 'supertest';
import { useTestApp } from '../../support/app';
import { keyFor, scenario, type Scenario } from '../../support/given';
import { documentOperations, fillPath, headerProblems, validValue, type DocOperation, type Param, type Schema } from '../../support/openapi-ops';
import { onEmbeddedDb } from '../../support/db';
import { workspaceState } from '../../support/state';

// Normally ~40 s; the margin is for a machine shared with other work (a run here once took 215 s under load).
jest.setTimeout(360_000);

const t = useTestApp();
let s: Scenario;
let ids: Record<string, string>;

const FIXED_SEED = 20261123;
// A few thousand requests per run on PostgreSQL; fewer on the slower embedded database.
const RUNS = onEmbeddedDb() ? 250 : 1000;

beforeAll(async () => {
  s = await scenario(t.db, { responseCount: 6 });
  const endpoint = await t
    .http()
    .post(`/api/v1/workspaces/${s.ws}/webhook-endpoints`)
    .set('X-API-Key', s.key)
    .send({ url: 'https://hooks.example.com/fuzz', events: ['row.created'] });
  const delivery = await t.http().post(`/api/v1/workspaces/${s.ws}/webhook-endpoints/${endpoint.body.data.id}/test`).set('X-API-Key', s.key);
  const link = await t.http().post(`/api/v1/workspaces/${s.ws}/forms/${s.nps}/links`).set('X-API-Key', s.key).send({ email: 'fuzz@example.com' });
  const victim = await t.http().post(`/api/v1/workspaces/${s.ws}/api-keys`).set('X-API-Key', s.key).send({ name: 'victim', scopes: ['forms:read'] });
  ids = {
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
    token: new URL(link.body.data.open_url as string).pathname.replace(/^\/e\//, '').replace(/\.gif$/, ''),
    question_id: 'q_score',
  };
  // Well-formed cursors of other lists (a cursor of another list is a 400, docs/api-rules.md, "Lists and pages").
  for (const list of [`/api/v1/workspaces/${s.ws}/responses?limit=1`, `/api/v1/workspaces/${s.ws}/email-events?limit=1`]) {
    const page = await t.http().get(list).set('X-API-Key', s.key).set('X-API-Style', 'A');
    const next = page.body.links?.next as string | null;
    if (next) badUrlValues.push(encodeURIComponent(new URL(next).searchParams.get('cursor') ?? ''));
  }
  // A spare key, so a fuzzed revoke of the victim never locks the test out.
  await keyFor(t.db, [s.ws], { scopes: ['forms:read'] });
});

const LONE = '\ud800';
const DEPTH = 10_000;
/** Nesting far past the 32-level limit (docs/writes-keys-limits.md, "Limits, bad bytes and secrets"): put in a body as `"__deep_<i>__"`, spliced in as text. */
const deep = [`${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}`, `${'{"a":'.repeat(DEPTH)}1${'}'.repeat(DEPTH)}`];

/** Query and path values that are wrong for most parameters (already URL-encoded; beforeAll adds foreign cursors). */
const badUrlValues: string[] = [
  '', '%20', 'abc', '-1', '0', '1.5', '1e309', '99999999999999999999', 'null', 'true', '[]', '%7B%7D',
  '%00', '%01%1F', '%7F', '%ED%A0%80', '%FF%FE', '%', '%zz', '%E2%82', 'a'.repeat(6000),
  // dates
  '2026-02-30', '2026-13-01', '2026-01-01T25%3A00%3A00Z', '2026-01-01T00%3A00%3A00', 'yesterday', '0000-00-00', '%2B275760-09-13',
  // the edges of the supported range (0001-01-01 .. 9999-12-31) and just past them
  '0001-01-01T00%3A00%3A00Z', '9999-12-31T23%3A59%3A59.999999999Z', '0000-12-31T23%3A59%3A59Z', '10000-01-01', '%2B010000-01-01T00%3A00%3A00Z',
  '-000001-01-01T00%3A00%3A00Z', '9999-12-31T23%3A59%3A60Z',
  // cursors
  'eyJ4IjoxfQ', '!!!', 'AAAA', Buffer.from('["9999-99-99","x"]').toString('base64url'), Buffer.from('{"v":1,"k":[null,null]}').toString('base64url'),
  // filters and sorts
  'score%20%3E%3E%201', 'nope%20%3D%201', 'score%20in%20%5B1%2C', '%22', 'score%20%3D%20%22a', 'id%20~%20', '%2C%2C%2C', 'score%3D1%2Cscore%3Dx',
  'plan%20in%20%5B%5D', 'seats%20%3D%20abc', '-', '%2Bcreated_at', 'created_at%3Adesc', 'score%2C-score', '-nope',
];

/** Body values of the wrong JSON type or with bad bytes. */
const badJsonValues: unknown[] = [
  12345, -1, 1.5, 1e308, true, false, null, [], {}, '', 'x', LONE, `a${LONE}b`, '\udc00x', '\u0000', '\u0001\u001f\u007f',
  'a'.repeat(70_000), [LONE], { [LONE]: 1 }, [[[[[[[[[[1]]]]]]]]]], '2026-02-30', 'not-a-url', '\u202e\ufeff',
  '__deep_0__', '__deep_1__', '0001-01-01T00:00:00Z', '9999-12-31T23:59:59.999999999Z', '0000-12-31T23:59:59Z', '+010000-01-01T00:00:00Z',
];

/** Bodies that are not (one) JSON value, or JSON of the wrong kind. */
const badBodies: string[] = [
  '{', '[1,', '{"a":}', 'nul', '"\\ud800"', '{"data":"\\udfff"}', '{"data":{"x":"\\ud800"}}', '\u0000', '{"a":1}{"b":2}', '', ' ', '[]', 'null', '123', '"str"',
  `${'['.repeat(3000)}${']'.repeat(3000)}`, `{"data":${deep[1]}}`, `{"answers":${deep[0]}}`, '{"__proto__":{"polluted":1}}', '{"data":{"constructor":{"prototype":{}}}}',
];

const badHeaders: Array<[string, string]> = [
  ['Idempotency-Key', 'a'.repeat(256)], ['Idempotency-Key', 'ü'], ['Idempotency-Key', 'é'.repeat(10)], ['Idempotency-Key', '\t'],
  ['X-API-Style', 'C'], ['X-API-Style', 'AB'], ['X-API-Style', 'ü'], ['X-API-Style', ' '],
  ['If-None-Match', 'ü'], ['If-None-Match', '"x", *, W/"y"'], ['Accept', 'image/png'], ['X-API-Key', `${'k'.repeat(300)}`],
  ['Content-Type', 'application/json; charset=latin1'], ['Content-Type', 'text/plain'], ['Content-Type', 'application/x-www-form-urlencoded'],
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

const queryNames = (op: DocOperation) => [...op.params.filter((p: Param) => p.in === 'query').map((p) => p.name), 'unknown_param'];
const pathNames = (op: DocOperation) => op.params.filter((p) => p.in === 'path').map((p) => p.name);

const mutationFor = (op: DocOperation): fc.Arbitrary<Mutation> => {
  const options: Array<fc.Arbitrary<Mutation>> = [
    // Read at generation time, so the cursors beforeAll adds are drawn too.
    fc.record({ kind: fc.constant('query' as const), name: fc.constantFrom(...queryNames(op)), value: fc.nat().map((i) => badUrlValues[i % badUrlValues.length]!) }),
    fc.record({
      kind: fc.constant('query' as const),
      name: fc.constantFrom(...queryNames(op)),
      value: fc.string({ unit: 'binary', maxLength: 40 }).map((v) => ((v as unknown as { isWellFormed(): boolean }).isWellFormed() ? encodeURIComponent(v) : '%ED%B0%80')),
    }),
    fc.constantFrom(...badHeaders).map(([name, value]) => ({ kind: 'header' as const, name, value })),
  ];
  if (pathNames(op).length > 0) {
    options.push(fc.record({ kind: fc.constant('path' as const), name: fc.constantFrom(...pathNames(op)), value: fc.constantFrom(...badUrlValues.filter(Boolean)) }));
  }
  if (op.method !== 'GET') {
    options.push(fc.constantFrom(...badBodies).map((text) => ({ kind: 'rawBody' as const, text })));
    options.push(fc.record({ kind: fc.constant('bodyValue' as const), at: fc.nat(), value: fc.constantFrom(...badJsonValues) }));
    options.push(fc.record({ kind: fc.constant('bodyValue' as const), at: fc.nat(), value: fc.jsonValue({ maxDepth: 3 }) }));
  }
  return fc.oneof(...options);
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
    else if (node && typeof node === 'object') for (const [k, item] of Object.entries(node)) out.push([node as Record<string, unknown>, k]), walk(item);
  };
  walk(root.v);
  return out;
}

/** A valid body for the operation, with rows and entries shaped for the scenario's table. */
function baseBody(op: DocOperation): unknown {
  if (/\/(rows|entries)(\/|$)/.test(op.template) || op.template.endsWith('/bulk-entries')) {
    const row = { id: `fz-${Math.random().toString(36).slice(2, 8)}`, plan: 'fuzz', seats: 3 };
    return { data: op.template.endsWith('/bulk-entries') ? [row] : row };
  }
  return validValue(op.body as Schema);
}

function buildRequest(c: Case): { method: string; path: string; headers: Record<string, string>; body?: string; describe: string } {
  const op = opsByName.get(c.name)!;
  const pathValues: Record<string, string> = { ...ids };
  const rawPath: Record<string, string> = {};
  const query: string[] = [];
  const headers: Record<string, string> = { 'X-API-Key': s.key };
  if (c.style) headers['X-API-Style'] = c.style;
  let body: string | undefined;
  const root = { v: op.method === 'GET' ? undefined : baseBody(op) };
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
function envelopeProblems(res: supertest.Response): string[] {
  const problems: string[] = [];
  const b = res.body as Record<string, unknown> | undefined;
  if (!b || typeof b !== 'object') return [`no JSON body (content-type ${res.headers['content-type']})`];
  if (Object.keys(b).sort().join() !== 'error,request_id') problems.push(`top-level keys ${Object.keys(b).join()}`);
  const e = b.error as Record<string, unknown> | undefined;
  if (!e || typeof e.code !== 'string' || typeof e.message !== 'string' || e.status !== res.status) problems.push(`error ${JSON.stringify(e)}`);
  if (e && Object.keys(e).some((k) => !['code', 'message', 'status', 'details'].includes(k))) problems.push(`error keys ${Object.keys(e).join()}`);
  if (e?.details !== undefined) {
    const ok = Array.isArray(e.details) && e.details.every((d: Record<string, unknown>) => ERROR_LOCATIONS.includes(d.location as string) && typeof d.field === 'string' && typeof d.message === 'string');
    if (!ok) problems.push(`details ${JSON.stringify(e.details)}`);
  }
  if (typeof b.request_id !== 'string' || b.request_id !== res.headers['x-request-id']) problems.push(`request_id ${String(b.request_id)}`);
  return problems;
}

async function send(req: ReturnType<typeof buildRequest>): Promise<supertest.Response> {
  let r = t.http()[req.method.toLowerCase() as 'get'](req.path);
  for (const [name, value] of Object.entries(req.headers)) r = r.set(name, value);
  // Bodies go as raw text so malformed JSON reaches the server unchanged.
  if (req.body !== undefined) r = r.send(req.body);
  return r.buffer(true).parse((res, done) => {
    let text = '';
    res.setEncoding('utf8');
    res.on('data', (c: string) => (text += c));
    res.on('end', () => {
      try {
        done(null, text ? JSON.parse(text) : undefined);
      } catch {
        done(null, { __unparsed: text.slice(0, 200) });
      }
    });
  });
}

const property = fc.asyncProperty(caseArb, async (c) => {
  const req = buildRequest(c);
  const write = req.method !== 'GET';
  const before = write ? await workspaceState(t.db, s.ws) : undefined;
  const res = await send(req);
  const problems: string[] = [];
  if (res.status >= 500) problems.push(`status ${res.status}: ${JSON.stringify(res.body).slice(0, 400)}`);
  if (res.status >= 400) {
    // Pages and images answer their errors in their own documented media type (text/html for a form
    // page's 400); everything else, and anything undocumented, in the JSON error envelope.
    const documented = opsByName.get(c.name)!.responseTypes[String(res.status)] ?? [];
    const own = documented.length > 0 && !documented.some((m) => m.includes('json'));
    if (own) {
      if (!documented.some((m) => String(res.headers['content-type']).startsWith(m))) problems.push(`content-type ${res.headers['content-type']} not in ${documented.join()}`);
    } else problems.push(...envelopeProblems(res));
  }
  if (!['A', 'B'].includes(res.headers['x-api-style'] as string)) problems.push(`X-API-Style header ${res.headers['x-api-style']}`);
  problems.push(...headerProblems(opsByName.get(c.name)!, res.status, res.headers));
  if (write && res.status >= 400) {
    const after = await workspaceState(t.db, s.ws);
    for (const table of Object.keys(before!)) if (before![table] !== after[table]) problems.push(`rejected ${res.status} write changed ${table}`);
  }
  if (problems.length > 0) throw new Error(`${req.describe}\n→ ${res.status} ${problems.join('; ')}`);
});

describe('fuzz: malformed requests against every operation of openapi/', () => {
  it('covers every operation of the document, both styles on shared paths', () => {
    expect(ops.length).toBe(documentOperations().length);
    expect(ops.filter((o) => o.shared).length).toBeGreaterThanOrEqual(3);
  });

  it(`holds for the fixed seed ${FIXED_SEED}`, async () => {
    await fc.assert(property, { seed: FIXED_SEED, numRuns: RUNS, endOnFailure: true });
  });

  it('holds for a random seed (printed by fast-check on failure)', async () => {
    const seed = Number(process.env.FUZZ_SEED) || Date.now() ^ (Math.random() * 0x7fffffff);
    try {
      await fc.assert(property, { seed, numRuns: RUNS, endOnFailure: true });
    } catch (e) {
      throw new Error(`fuzz failed with random seed ${seed} (rerun: FUZZ_SEED=${seed} npx jest tests/component/platform/fuzz.test.ts)\n${(e as Error).message}`);
    }
  });
});
