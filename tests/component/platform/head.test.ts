/**
 * HEAD wherever GET works (issue 26 item 1; docs/api-rules.md, "HEAD and 405"), generated from openapi/: every GET
 * operation of the document answers HEAD with GET's status and headers and no body, HEAD spends the rate-limit
 * budget as GET does, and every 405 names the allowed methods in `Allow`.
 */
import { useTestApp } from '../../support/app';
import { scenario, workspaceWithKey, type Scenario } from '../../support/given';
import { documentOperations, fillPath } from '../../support/openapi-ops';
import { headOfStream, streamsEvents } from '../../support/sse';

const t = useTestApp({ publicUrl: 'http://localhost:3000' });
let s: Scenario;
let ids: Record<string, string>;
let query: Record<string, string>;

beforeAll(async () => {
  s = await scenario(t.db, { responseCount: 4 });
  const auth = { 'X-API-Key': s.key };
  const ws = `/api/v1/workspaces/${s.ws}`;
  const endpoint = await t
    .http()
    .post(`${ws}/webhook-endpoints`)
    .set(auth)
    .send({ url: 'https://hooks.example.com/head', events: ['row.created'] });
  const key = await t
    .http()
    .post(`${ws}/api-keys`)
    .set(auth)
    .send({ name: 'head', scopes: ['forms:read'] });
  const dashboard = await t.http().post(`${ws}/forms/${s.nps}/dashboard-links`).set(auth).send({});
  const email = await t.http().post(`${ws}/forms/${s.nps}/links`).set(auth).send({ email: 'someone@example.com' });
  // A bulk delete and an erasure that select nothing, for `{deletion_id}` and `{erasure_id}`.
  const deletion = await t
    .http()
    .post(`${ws}/response-deletions`)
    .set(auth)
    .send({ ids: ['rsp_none'] });
  const erasure = await t.http().post(`${ws}/erasure-requests`).set(auth).send({ email: 'nobody@example.com' });
  const topic = await t.http().post(`${ws}/topics`).set(auth).send({ name: 'speed', query: 'slow | fast' });
  const recovery = await t
    .http()
    .post(`${ws}/webhook-endpoints/${endpoint.body.data.id as string}/recover`)
    .set(auth)
    .send({ since: new Date(Date.now() - 3600_000).toISOString() });
  const dashboardUrl = new URL(dashboard.body.data.url as string);
  const openUrl = new URL(email.body.data.open_url as string);
  ids = {
    workspace_id: s.ws,
    form_id: s.nps,
    datatable_id: s.table,
    table_id: s.table,
    row_id: s.rows[0]!,
    response_id: s.responses[0]!.id,
    email_id: s.emailIds[0]!,
    endpoint_id: endpoint.body.data.id,
    key_id: key.body.data.id,
    question_id: 'q_score',
    token: dashboardUrl.pathname.slice('/d/'.length),
    deletion_id: deletion.body.data.id,
    erasure_id: erasure.body.data.id,
    topic_id: topic.body.data.id,
    recovery_id: recovery.body.data.id,
  };
  // The open pixel's path is `/e/{token}.gif`; the dashboard export's query needs the page's format and token.
  ids['token.gif'] = openUrl.pathname.slice('/e/'.length);
  query = {
    '/d/{token}/export': `?format=csv&t=${encodeURIComponent(ids.token!)}`,
    '/api/v1/workspaces/{workspace_id}/respondents/export': '?email=someone%40example.com',
  };
});

/**
 * Headers that differ between any two requests (time, request id, the budget just spent), and the framing of a
 * streamed body (`Transfer-Encoding: chunked`), which HTTP lets a HEAD answer leave out (RFC 9110, 9.3.2).
 */
// `ratelimit` carries the remaining budget and the reset, as the X- pair does; `etag` is made on the Host, whose port
// supertest picks per request (its presence is compared below).
const VOLATILE = new Set(['date', 'x-request-id', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'ratelimit', 'transfer-encoding', 'etag']);

/** The metrics text grows between two requests (it counts them): its length is volatile too. */
const stable = (template: string, headers: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => !VOLATILE.has(name) && !(template === '/metrics' && name === 'content-length')));

const gets = documentOperations().filter((o) => o.method === 'GET');

function pathOf(template: string): string {
  const filled = template === '/e/{token}.gif' ? `/e/${ids['token.gif']}` : fillPath(template, ids);
  return filled + (query[template] ?? '');
}

describe('HEAD on every GET operation of openapi/', () => {
  it('covers the API, the public pages and the probes', () => {
    expect(gets.length).toBeGreaterThan(40);
    expect(gets.map((o) => o.template)).toEqual(
      expect.arrayContaining(['/api/v1/workspaces/{workspace_id}/responses', '/docs/migrating', '/f/{form_id}', '/healthz']),
    );
  });

  let ok = 0;
  // One test per operation: the validator compiles each method and route on first use, slow on a busy machine.
  it.each(gets.map((op) => [op.template]))("%s answers HEAD with GET's status and headers and an empty body", async (template) => {
    const path = pathOf(template);
    const op = gets.find((o) => o.template === template)!;
    const request = t.http().get(path).set('X-API-Key', s.key);
    // A live stream never ends: its GET is read up to the head.
    const get = await (streamsEvents(op) ? headOfStream(request) : request);
    const head = await t.http().head(path).set('X-API-Key', s.key);
    expect(`HEAD ${head.status}`).toBe(`HEAD ${get.status}`);
    expect(stable(template, head.headers)).toEqual(stable(template, get.headers));
    expect(head.headers.etag === undefined).toBe(get.headers.etag === undefined);
    expect([head.text ?? '', head.body ?? {}]).toEqual(['', {}]);
    if (get.status === 200) ok++;
  });

  it('reached the operations with real ids: nearly every GET above was a 200, not a comparison of two 404s', () => {
    expect(ok).toBeGreaterThanOrEqual(gets.length - 3);
  });

  it('spends the rate-limit budget as GET does: X-RateLimit-Remaining counts HEAD, and HEAD past the limit is a 429', async () => {
    const { ws, key } = await workspaceWithKey(t.db, { rateLimitPerMinute: 3 });
    const head = () => t.http().head(`/api/v1/workspaces/${ws}/forms`).set('X-API-Key', key);
    const first = await head();
    expect([first.status, first.headers['x-ratelimit-limit'], first.headers['x-ratelimit-remaining']]).toEqual([200, '3', '2']);
    const get = await t.http().get(`/api/v1/workspaces/${ws}/forms`).set('X-API-Key', key);
    expect([get.status, get.headers['x-ratelimit-remaining']]).toEqual([200, '1']);
    expect([(await head()).headers['x-ratelimit-remaining']]).toEqual(['0']);
    const refused = await head();
    expect([refused.status, refused.headers['x-ratelimit-remaining'], refused.text ?? '']).toEqual([429, '0', '']);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });
});

describe('405 method_not_allowed', () => {
  it('names the allowed methods in Allow on every path of the API, the pages and the docs', async () => {
    const cases: Array<[string, string, string]> = [
      ['put', `/api/v1/workspaces/${s.ws}/responses`, 'GET, HEAD, POST'],
      ['delete', `/api/v1/workspaces/${s.ws}/forms/${s.nps}`, 'GET, HEAD'],
      ['put', `/api/v1/workspaces/${s.ws}/datatables/${s.table}/rows`, 'GET, HEAD, POST'],
      ['post', `/api/v1/workspaces/${s.ws}/forms/${s.nps}/responses`, 'GET, HEAD'],
      ['post', '/docs/migrating', 'GET, HEAD'],
      ['put', `/f/${s.nps}`, 'GET, HEAD, POST'],
    ];
    for (const [method, path, allow] of cases) {
      const res = await t.http()[method as 'put'](path).set('X-API-Key', s.key);
      expect(`${method} ${path}: ${res.status} ${res.headers.allow} ${res.body.error?.code}`).toBe(`${method} ${path}: 405 ${allow} method_not_allowed`);
    }
  });
});
