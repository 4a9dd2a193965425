/**
 * Migration insight (docs/analytics.md, "Migration insight"): requests counted per key, answer style and UTC day (errors
 * included) and listed by GET {ws}/api-keys/{key_id}/usage within 5 s; the Style B deprecation headers
 * with STYLE_B_SUNSET; /docs/migrating.
 */
import { deprecationHeaders } from '../../../src/platform/deprecation';
import { renderMigrationGuide, translateCurl } from '../../../src/pages/migration-guide-page';
import { useTestApp } from '../../support/app';
import { keyFor, scenario, workspaceWithKey } from '../../support/given';
import { until } from './helpers';

const ctx = useTestApp({ styleBSunset: '2027-03-01', publicUrl: 'https://feedback.example.com' });

async function keyId(ws: string, reader: string, secret: string): Promise<string> {
  const res = await ctx.http().get(`/api/v1/workspaces/${ws}/api-keys`).set('X-API-Key', reader);
  const found = (res.body.data as Array<{ id: string; prefix: string }>).find((k) => k.prefix === secret.slice(0, 8));
  return found!.id;
}

describe('GET {ws}/api-keys/{key_id}/usage', () => {
  it('counts every request of a key per style and day, errors included, within 5 s', async () => {
    const s = await scenario(ctx.db, { responseCount: 3 });
    const caller = await keyFor(ctx.db, [s.ws]);
    const base = `/api/v1/workspaces/${s.ws}`;
    const call = (path: string, style?: string) => {
      const r = ctx.http().get(`${base}${path}`).set('X-API-Key', caller);
      return style ? r.set('X-API-Style', style) : r;
    };
    const statuses = [
      (await call('/responses')).status, // A (key default)
      (await call('/forms')).status, // A
      (await call('/forms/nope')).status, // A, 404
      (await call('/responses', 'B')).status, // B
      (await call('/tables')).status, // B path
      (await call('/tables/nope/entries')).status, // B, 404
      (await call('/responses?page=0')).status, // B (style-only parameter), 400
    ];
    expect(statuses).toEqual([200, 200, 404, 200, 200, 404, 400]);
    const id = await keyId(s.ws, s.key, caller);
    const today = new Date().toISOString().slice(0, 10);
    const expected = [
      { date: today, style: 'A', requests: 3 },
      { date: today, style: 'B', requests: 4 },
    ];
    const res = await until(
      () => ctx.http().get(`${base}/api-keys/${id}/usage`).set('X-API-Key', s.key),
      (r) => JSON.stringify(r.body.data) === JSON.stringify(expected),
    );
    expect(res.status).toBe(200);
    expect(res.headers['x-api-style']).toBe('A');
    expect(res.body).toMatchObject({ data: expected, meta: { limit: 2, has_more: false } });
  });

  it('lists newest first within `days`, and rejects days outside 1–90', async () => {
    const { ws, key } = await workspaceWithKey(ctx.db);
    const id = await keyId(ws, key, key);
    const day = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);
    await ctx.db('api_key_usage').insert([
      { api_key_id: id, day: day(1), style: 'B', requests: 7 },
      { api_key_id: id, day: day(1), style: 'A', requests: 2 },
      { api_key_id: id, day: day(5), style: 'B', requests: 3 },
      { api_key_id: id, day: day(40), style: 'B', requests: 9 },
    ]);
    const res = await ctx.http().get(`/api/v1/workspaces/${ws}/api-keys/${id}/usage?days=30`).set('X-API-Key', key);
    const past = (res.body.data as Array<{ date: string }>).filter((u) => u.date !== day(0));
    expect(past).toEqual([
      { date: day(1), style: 'A', requests: 2 },
      { date: day(1), style: 'B', requests: 7 },
      { date: day(5), style: 'B', requests: 3 },
    ]);
    const two = await ctx.http().get(`/api/v1/workspaces/${ws}/api-keys/${id}/usage?days=2`).set('X-API-Key', key);
    expect((two.body.data as Array<{ date: string }>).filter((u) => u.date !== day(0))).toEqual([
      { date: day(1), style: 'A', requests: 2 },
      { date: day(1), style: 'B', requests: 7 },
    ]);
    for (const bad of ['0', '91', 'x']) {
      const r = await ctx.http().get(`/api/v1/workspaces/${ws}/api-keys/${id}/usage?days=${bad}`).set('X-API-Key', key);
      expect(r.status).toBe(400);
      expect(r.body.error.details[0]).toMatchObject({ location: 'query', field: 'days' });
    }
  });

  it('answers 404 for a key without access to the workspace, 403 without api_keys:read', async () => {
    const a = await workspaceWithKey(ctx.db);
    const b = await workspaceWithKey(ctx.db);
    const bId = await keyId(b.ws, b.key, b.key);
    const res = await ctx.http().get(`/api/v1/workspaces/${a.ws}/api-keys/${bId}/usage`).set('X-API-Key', a.key);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('resource_not_found');
    const limited = await keyFor(ctx.db, [a.ws], { scopes: ['forms:read'] });
    const forbidden = await ctx.http().get(`/api/v1/workspaces/${a.ws}/api-keys/${bId}/usage`).set('X-API-Key', limited);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error.code).toBe('insufficient_scope');
  });
});

describe('Style B deprecation headers (STYLE_B_SUNSET=2027-03-01)', () => {
  const deprecation = `@${Date.parse('2027-03-01T00:00:00Z') / 1000 - 180 * 86_400}`;
  const B_HEADERS = {
    deprecation,
    sunset: 'Mon, 01 Mar 2027 00:00:00 GMT',
    link: '<https://feedback.example.com/docs/migrating>; rel="deprecation"',
  };

  it('marks every Style B answer, errors included, and no Style A answer', async () => {
    const s = await scenario(ctx.db, { responseCount: 2 });
    const base = `/api/v1/workspaces/${s.ws}`;
    const bAnswers = [
      await ctx.http().get(`${base}/responses`).set('X-API-Key', s.key).set('X-API-Style', 'B'),
      await ctx.http().get(`${base}/tables`).set('X-API-Key', s.key),
      await ctx.http().get(`${base}/tables/nope/entries`).set('X-API-Key', s.key),
      await ctx.http().get(`${base}/responses?page=0`).set('X-API-Key', s.key),
      await ctx.http().get(`${base}/tables`).set('X-API-Key', 'fa_unknown'),
    ];
    expect(bAnswers.map((r) => r.status)).toEqual([200, 200, 404, 400, 401]);
    for (const r of bAnswers) {
      expect(r.headers['x-api-style']).toBe('B');
      expect({ deprecation: r.headers.deprecation, sunset: r.headers.sunset, link: r.headers.link }).toEqual(B_HEADERS);
    }
    const aAnswers = [
      await ctx.http().get(`${base}/responses`).set('X-API-Key', s.key),
      await ctx.http().get(`${base}/forms`).set('X-API-Key', s.key),
      await ctx.http().get(`${base}/forms/nope`).set('X-API-Key', s.key),
      await ctx.http().get(`${base}/responses?cursor=bad`).set('X-API-Key', s.key),
    ];
    expect(aAnswers.map((r) => r.status)).toEqual([200, 200, 404, 400]);
    for (const r of aAnswers) {
      expect(r.headers['x-api-style']).toBe('A');
      expect([r.headers.deprecation, r.headers.sunset, r.headers.link]).toEqual([undefined, undefined, undefined]);
    }
  });

  it('takes STYLE_B_DEPRECATED_AT when set, and no headers without a sunset', () => {
    expect(deprecationHeaders({ styleBSunset: '2027-03-01', styleBDeprecatedAt: '2026-12-01', publicUrl: 'http://h' })).toEqual({
      Deprecation: `@${Date.parse('2026-12-01T00:00:00Z') / 1000}`,
      Sunset: 'Mon, 01 Mar 2027 00:00:00 GMT',
      Link: '<http://h/docs/migrating>; rel="deprecation"',
    });
    expect(deprecationHeaders({ styleBSunset: undefined, publicUrl: 'http://h' })).toBeUndefined();
    expect(() => deprecationHeaders({ styleBSunset: '2027-02-30', publicUrl: 'http://h' })).toThrow(
      'STYLE_B_SUNSET must be a date YYYY-MM-DD, got "2027-02-30"',
    );
  });
});

describe('GET /docs/migrating', () => {
  it('serves the migration guide as an HTML page without a key', async () => {
    const res = await ctx.http().get('/docs/migrating');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toBe(
      "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    );
    expect(res.text).toContain('<h1>Migrating between Style A and Style B</h1>');
    expect(res.text).toContain('<table>');
    expect(res.text).not.toContain('<script');
  });

  it('has the translator form, which shows a curl command for the request asked and never a key', async () => {
    const request = '/api/v1/workspaces/ws_1/responses?filter=score in [9,10]&page=2';
    const res = await ctx
      .http()
      .get('/docs/migrating')
      .query({ method: 'GET', request: `${request}<b>` });
    expect(res.status).toBe(200);
    expect(res.text).toContain('<form id="translate" method="get" action="/docs/migrating#translate">');
    expect(res.text).toContain('$FEEDBACK_API_KEY');
    expect(res.text).toContain(`{&quot;method&quot;:&quot;GET&quot;,&quot;path&quot;:&quot;${request.replace(/&/g, '&amp;')}&lt;b&gt;&quot;`);
    expect(res.text).not.toContain('<b>');
    expect(translateCurl({ method: 'PATCH', request: "/x'; rm -rf /" })).toContain(`<<'STYLE_B_REQUEST'\n{"method":"PATCH","path":"/x'; rm -rf /"`);
  });

  it('escapes raw HTML in the Markdown (html disabled)', () => {
    const html = renderMigrationGuide('# T\n\n<script>alert(1)</script> <b>x</b>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &lt;b&gt;x&lt;/b&gt;');
    expect(html).not.toContain('<script>');
  });
});
