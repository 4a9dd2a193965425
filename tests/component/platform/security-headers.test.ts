/**
 * Headers on every answer (docs/api-rules.md, "Headers on every answer"), on both databases: every /api/
 * answer, errors, 401s and 404s included, carries `X-Content-Type-Options: nosniff` and
 * `Cache-Control: no-store`, but for the answers that carry an ETag (a list or resource, the form schema): `private,
 * no-cache`, so a client may keep them and revalidate (docs/api-rules.md, "Conditional requests"); the
 * documentation pages may not be framed (`frame-ancestors 'none'`).
 */
import { useTestApp } from '../../support/app';
import { scenario, type Scenario } from '../../support/given';

const t = useTestApp();
let s: Scenario;
beforeAll(async () => {
  s = await scenario(t.db, { responseCount: 1 });
});

type Case = [what: string, method: 'get' | 'put' | 'post', path: () => string, style: 'A' | 'B' | undefined, status: number];

describe('X-Content-Type-Options and Cache-Control on every API answer', () => {
  const cases: Case[] = [
    ['a Style A list', 'get', () => `/api/v1/workspaces/${s.ws}/responses`, 'A', 200],
    ['a Style B list', 'get', () => `/api/v1/workspaces/${s.ws}/responses`, 'B', 200],
    ['a Style B page', 'get', () => `/api/v1/workspaces/${s.ws}/tables/${s.table}/entries`, undefined, 200],
    ['the workspaces', 'get', () => '/api/v1/workspaces', undefined, 200],
    ['the OpenAPI document', 'get', () => '/api/v1/openapi', undefined, 200],
    ['a 400', 'get', () => `/api/v1/workspaces/${s.ws}/responses?limit=0`, 'A', 400],
    ['a 404 of a resource', 'get', () => `/api/v1/workspaces/${s.ws}/forms/frm_nothing`, undefined, 404],
    ['a 404 of a path', 'get', () => `/api/v1/workspaces/${s.ws}/nothing-here`, undefined, 404],
    ['a 403', 'get', () => '/api/v1/workspaces/ws_not_mine/forms', undefined, 403],
    ['a 405', 'put', () => `/api/v1/workspaces/${s.ws}/forms`, undefined, 405],
    ['a 201', 'post', () => `/api/v1/workspaces/${s.ws}/datatables/${s.table}/rows`, undefined, 201],
    ['a v2 list', 'get', () => `/api/v2/workspaces/${s.ws}/responses`, undefined, 200],
  ];
  it.each(cases)('%s', async (_what, method, path, style, status) => {
    let req = t.http()[method](path()).set('X-API-Key', s.key);
    if (style) req = req.set('X-API-Style', style);
    const res = method === 'post' ? await req.send({ data: { plan: 'pro' } }) : await req;
    const revalidated = method === 'get' && status === 200 && !path().endsWith('/openapi');
    expect([res.status, res.headers['x-content-type-options'], res.headers['cache-control'], res.headers.etag !== undefined]).toEqual([
      status,
      'nosniff',
      revalidated ? 'private, no-cache' : 'no-store',
      revalidated,
    ]);
  });

  it('a 401 without a key, and one with an unknown key', async () => {
    for (const key of [undefined, 'fa_unknown']) {
      const req = t.http().get(`/api/v1/workspaces/${s.ws}/forms`);
      const res = key ? await req.set('X-API-Key', key) : await req;
      expect([res.status, res.headers['x-content-type-options'], res.headers['cache-control']]).toEqual([401, 'nosniff', 'no-store']);
    }
  });

  it('the form schema keeps private, no-cache and answers 304 to its ETag', async () => {
    const path = `/api/v1/workspaces/${s.ws}/forms/${s.nps}/schema`;
    const first = await t.http().get(path).set('X-API-Key', s.key);
    expect([first.status, first.headers['cache-control'], first.headers['x-content-type-options']]).toEqual([200, 'private, no-cache', 'nosniff']);
    const again = await t.http().get(path).set('X-API-Key', s.key).set('If-None-Match', first.headers.etag!);
    expect([again.status, again.headers.etag, again.headers['cache-control']]).toEqual([304, first.headers.etag, 'private, no-cache']);
  });
});

describe('documentation pages may not be framed', () => {
  it.each(['/docs', '/docs/migrating'])('%s: a CSP with frame-ancestors none, and nosniff', async (path) => {
    const res = await t.http().get(path);
    expect(res.status).toBe(200);
    expect(res.headers['content-security-policy']).toMatch(/(^|; )frame-ancestors 'none'(;|$)/);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });
});
