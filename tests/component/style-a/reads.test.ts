import { keyFor, scenario, uid, type Scenario } from '../../support/given';
import { testConfig, useTestApp } from '../../support/app';
import { expectRateLimitHeaders, expectRequestId } from '../../support/headers';

const t = useTestApp();
let s: Scenario;
beforeAll(async () => {
  s = await scenario(t.db, { responseCount: 12 });
});

const get = (path: string, key = s.key) => t.http().get(path).set('X-API-Key', key);
const ws = () => `/api/v1/workspaces/${s.ws}`;

describe('workspaces', () => {
  it("lists exactly the key's workspaces and reads one", async () => {
    const list = await get('/api/v1/workspaces');
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([{ id: s.ws, name: `Workspace ${s.ws}`, link: expect.any(String) }]);
    expect(list.body.meta).toEqual({ limit: 1, has_more: false });
    const one = await get(ws());
    expect(one.body).toEqual({ data: list.body.data[0], meta: {}, links: {}, request_id: expect.any(String) });
  });
});

describe('forms', () => {
  it('lists forms by cursor, newest first, and by name', async () => {
    const res = await get(`${ws()}/forms?limit=1`);
    expect(res.body.data).toHaveLength(1);
    expect(res.body.data[0]).toMatchObject({ id: s.csat, name: 'CSAT', default_language: 'en', languages: ['en'], question_count: 1 });
    const next = await get(res.body.links.next.replace(/^http:\/\/[^/]+/, ''));
    expect(next.body.data[0]).toMatchObject({ id: s.nps, languages: ['en', 'de'], question_count: 2 });
    expect(next.body.meta.has_more).toBe(false);
    const byName = await get(`${ws()}/forms?sort=name:asc`);
    expect(byName.body.data.map((f: { name: string }) => f.name)).toEqual(['CSAT', 'NPS']);
  });

  it('embeds questions with include=questions and lists and reads questions', async () => {
    const res = await get(`${ws()}/forms/${s.nps}?include=questions`);
    expect(res.body.data.questions).toEqual([
      expect.objectContaining({ id: 'q_score', type: 'nps', required: true, validation: { min: 0, max: 10 }, options: [] }),
      expect.objectContaining({
        id: 'q_plan',
        type: 'single_choice',
        options: [
          { id: 'opt_basic', value: 'Basic' },
          { id: 'opt_pro', value: 'Pro' },
        ],
      }),
    ]);
    const plain = await get(`${ws()}/forms/${s.nps}`);
    expect(plain.body.data).not.toHaveProperty('questions');
    const qs = await get(`${ws()}/forms/${s.nps}/questions`);
    expect(qs.body.data.map((q: { id: string }) => q.id)).toEqual(['q_score', 'q_plan']);
    const q = await get(`${ws()}/forms/${s.nps}/questions/q_plan`);
    expect(q.body.data).toMatchObject({ id: 'q_plan', form_id: s.nps, position: 1 });
    expect((await get(`${ws()}/forms/${s.nps}/questions/q_nope`)).status).toBe(404);
  });

  it('serves the schema with a strong ETag and answers 304 to If-None-Match', async () => {
    const res = await get(`${ws()}/forms/${s.nps}/schema`);
    expect(res.status).toBe(200);
    const etag = res.headers.etag;
    // A quoted SHA-256 in base64url: 32 bytes are 43 characters (docs/decisions.md, "Resource shapes").
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    expect(res.body.data).toMatchObject({ form_id: s.nps, default_language: 'en', languages: ['en', 'de'] });
    expect(res.body.data.translations.de.q_plan.title).toBe('Tarif?');
    const again = await get(`${ws()}/forms/${s.nps}/schema`).set('If-None-Match', `"other", ${etag}`);
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect(again.headers.etag).toBe(etag);
    // A 304 is not counted against the key's budget (docs/api-rules.md, "Conditional requests"): the same as after the 200.
    const remaining = expectRateLimitHeaders(res, testConfig().rateLimitPerMinute);
    expect(expectRateLimitHeaders(again, testConfig().rateLimitPerMinute)).toBe(remaining);
    expect((await get(`${ws()}/forms/${s.nps}/schema`).set('If-None-Match', '*')).status).toBe(304);
    expect((await get(`${ws()}/forms/${s.nps}/schema`).set('If-None-Match', '"stale"')).status).toBe(200);
    const other = await get(`${ws()}/forms/${s.csat}/schema`);
    expect(other.headers.etag).not.toBe(etag);
  });

  it('summarises a form: total, average rounded to 2 decimals, last response', async () => {
    const res = await get(`${ws()}/forms/${s.nps}/analytics/summary`);
    const mine = s.responses.filter((r) => r.form_id === s.nps);
    const avg = Math.round((mine.reduce((a, r) => a + r.score, 0) / mine.length) * 100) / 100;
    const last = [...mine].sort((a, b) => (a.created_at === b.created_at ? (a.id < b.id ? 1 : -1) : a.created_at < b.created_at ? 1 : -1))[0]!;
    expect(res.body.data).toEqual({
      form_id: s.nps,
      total_responses: mine.length,
      average_score: avg,
      last_response: { id: last.id, score: last.score, created_at: last.created_at },
    });
  });

  it('summarises a form without responses with nulls', async () => {
    const other = await scenario(t.db, { responseCount: 0 });
    const res = await get(`/api/v1/workspaces/${other.ws}/forms/${other.nps}/analytics/summary`, other.key);
    expect(res.body.data).toEqual({ form_id: other.nps, total_responses: 0, average_score: null, last_response: null });
  });
});

describe('datatables and rows', () => {
  it('lists datatables and embeds fields with include=fields', async () => {
    const list = await get(`${ws()}/datatables`);
    expect(list.body.data).toEqual([expect.objectContaining({ id: s.table, name: 'Customers', row_count: 5 })]);
    const one = await get(`${ws()}/datatables/${s.table}?include=fields`);
    expect(one.body.data.fields).toEqual([
      { name: 'id', type: 'string' },
      { name: 'plan', type: 'string' },
      { name: 'seats', type: 'number' },
      { name: 'active', type: 'boolean' },
    ]);
  });

  it('lists rows with columns beside row_id, sorted by a number column, filtered, paged by cursor', async () => {
    const res = await get(`${ws()}/datatables/${s.table}/rows?sort=seats:desc&limit=2`);
    expect(res.body.data[0]).toEqual({
      row_id: s.rows[4],
      id: 'c-4',
      plan: 'basic',
      seats: 25,
      active: true,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(res.body.data[1].seats).toBe(20);
    const next = await get(res.body.links.next.replace(/^http:\/\/[^/]+/, ''));
    expect(next.body.data.map((r: { seats: number }) => r.seats)).toEqual([15, 10]);
    const filtered = await get(`${ws()}/datatables/${s.table}/rows?filter=${encodeURIComponent('plan = pro, seats in [10, 20, 30]')}`);
    expect(filtered.body.data.map((r: { id: string }) => r.id).sort()).toEqual(['c-1', 'c-3']);
    const contains = await get(`${ws()}/datatables/${s.table}/rows?filter=${encodeURIComponent('plan ~ AS')}`);
    expect(contains.body.data).toHaveLength(3);
    const bad = await get(`${ws()}/datatables/${s.table}/rows?filter=${encodeURIComponent('colour = red')}`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0]).toMatchObject({ location: 'query', field: 'filter' });
    expect(bad.body.error.message).toContain('colour');
  });

  it('reads one row and 404s for a row or table elsewhere', async () => {
    const res = await get(`${ws()}/datatables/${s.table}/rows/${s.rows[1]}`);
    expect(res.body.data).toMatchObject({ row_id: s.rows[1], id: 'c-1' });
    const other = await scenario(t.db, { responseCount: 0 });
    expect((await get(`${ws()}/datatables/${s.table}/rows/${other.rows[0]}`)).status).toBe(404);
    expect((await get(`${ws()}/datatables/${other.table}/rows`)).status).toBe(404);
  });
});

describe('email events', () => {
  it('lists events newest first with every filter', async () => {
    const all = await get(`${ws()}/email-events?limit=100`);
    expect(all.body.data).toHaveLength(s.events.length);
    expect(all.body.data[0]).toEqual({
      id: expect.any(String),
      email_id: expect.any(String),
      email: expect.any(String),
      type: expect.any(String),
      row_id: null,
      form_id: s.nps,
      flow_id: null,
      created_at: expect.any(String),
    });
    const opens = await get(`${ws()}/email-events?type=open&limit=100`);
    expect(opens.body.data.length).toBe(s.events.filter((e) => e.type === 'open').length);
    const target = s.events.find((e) => e.email.startsWith('Person'))!;
    const byRecipient = await get(`${ws()}/email-events?recipient=${encodeURIComponent(target.email.toLowerCase())}&limit=100`);
    expect(byRecipient.body.data.length).toBe(s.events.filter((e) => e.email.toLowerCase() === target.email.toLowerCase()).length);
    const byEmail = await get(`${ws()}/emails/${target.email_id}/events`);
    expect(byEmail.body.data.every((e: { email_id: string }) => e.email_id === target.email_id)).toBe(true);
    const ranged = await get(`${ws()}/email-events?created_after=2026-01-11&created_before=2026-01-12&limit=100`);
    expect(ranged.body.data.every((e: { created_at: string }) => e.created_at >= '2026-01-11' && e.created_at < '2026-01-12')).toBe(true);
    expect(ranged.body.data.length).toBeGreaterThan(0);
    expect((await get(`${ws()}/email-events?type=opened`)).status).toBe(400);
  });
});

describe('webhook endpoints and api keys (reads)', () => {
  it('lists webhook endpoints and 404s for an unknown one', async () => {
    const res = await get(`${ws()}/webhook-endpoints`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
    expect((await get(`${ws()}/webhook-endpoints/we_nope`)).status).toBe(404);
  });

  it('lists key metadata without secrets', async () => {
    const res = await get(`${ws()}/api-keys`);
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(1);
    expect(res.body.data[0]).toMatchObject({ id: expect.stringMatching(/^key_/), prefix: s.key.slice(0, 8), revoked_at: null });
    expect(JSON.stringify(res.body)).not.toContain(s.key);
  });
});

describe('authentication and access (order of checks)', () => {
  it('401 invalid_api_key for a missing or unknown key, with rate-limit and style headers', async () => {
    const remaining: number[] = [];
    for (const res of [await t.http().get(ws()), await get(ws(), 'fa_unknownunknownunknownunknownunknown'), await get(ws(), 'nope')]) {
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: { code: 'invalid_api_key', message: expect.any(String), status: 401 }, request_id: expect.any(String) });
      expectRequestId(res);
      // Without a valid key the budget is the client address's (AUTH_FAILURES_PER_MINUTE), counted per request.
      remaining.push(expectRateLimitHeaders(res, testConfig().authFailuresPerMinute, 'address'));
      expect(res.headers['x-api-style']).toBe('A');
    }
    expect(remaining).toEqual([remaining[0], remaining[0]! - 1, remaining[0]! - 2]);
  });

  it('401 api_key_expired for revoked and expired keys', async () => {
    const revoked = await keyFor(t.db, [s.ws], { revokedAt: '2026-01-01T00:00:00Z' });
    const expired = await keyFor(t.db, [s.ws], { expiresAt: '2020-01-01T00:00:00Z' });
    for (const key of [revoked, expired]) {
      const res = await get(ws(), key);
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('api_key_expired');
    }
  });

  it('403 workspace_access_denied for another workspace, existing or not', async () => {
    const other = await scenario(t.db, { responseCount: 0 });
    for (const path of [`/api/v1/workspaces/${other.ws}/forms`, `/api/v1/workspaces/${uid('ws')}/forms`]) {
      const res = await get(path);
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('workspace_access_denied');
    }
  });

  it('403 insufficient_scope for a key without the scope, before input validation', async () => {
    const key = await keyFor(t.db, [s.ws], { scopes: ['forms:read'] });
    const res = await get(`${ws()}/responses?limit=0`, key);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('insufficient_scope');
    expect((await get(`${ws()}/forms`, key)).status).toBe(200);
  });

  it('404 resource_not_found in the envelope for an unknown route', async () => {
    const res = await get(`${ws()}/nothing-here`);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('resource_not_found');
  });

  it('400 validation_error for an unknown query parameter', async () => {
    const res = await get(`${ws()}/forms?colour=red`);
    expect(res.status).toBe(400);
    expect(res.body.error.details[0]).toMatchObject({ location: 'query', field: 'colour' });
  });

  it('serves the OpenAPI document with a key and without one at /openapi.json', async () => {
    const withKey = await get('/api/v1/openapi');
    expect(withKey.status).toBe(200);
    expect(withKey.body.openapi).toMatch(/^3\.0/);
    const open = await t.http().get('/openapi.json');
    expect(open.body).toEqual(withKey.body);
    expect((await t.http().get('/api/v1/openapi')).status).toBe(401);
  });
});
