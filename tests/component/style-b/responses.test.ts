import type { Response } from 'supertest';
import { keyFor, newestFirst, scenario, type Scenario } from '../../support/given';
import { useTestApp } from '../../support/app';

const t = useTestApp();
let s: Scenario;
beforeAll(async () => {
  s = await scenario(t.db, { responseCount: 30 });
});

type Rsp = Scenario['responses'][number];
const get = (path: string, key = s.key) => t.http().get(path).set('X-API-Key', key);
const getB = (path: string, key = s.key) => get(path, key).set('X-API-Style', 'B');
const list = (query: string) => getB(`/api/v1/workspaces/${s.ws}/responses?${query}`);
const ids = (body: { data: Array<{ id: string }> }) => body.data.map((r) => r.id);
const relative = (url: string) => url.replace(/^http:\/\/[^/]+/, '');
const byScoreAsc = (a: Rsp, b: Rsp) => a.score - b.score || (a.id < b.id ? -1 : 1);

describe('Style B responses list', () => {
  it('returns page 1 newest first with meta totals and absolute page links', async () => {
    const res = await list('limit=5');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'links', 'meta', 'request_id']);
    expect(res.body.meta).toEqual({ total: 30, page: 1, limit: 5, filtered_total: 30 });
    expect(ids(res.body)).toEqual(
      newestFirst(s.responses)
        .slice(0, 5)
        .map((r) => r.id),
    );
    expect(res.body.links).toEqual({
      self: expect.stringMatching(/^http:\/\/127\.0\.0\.1(:\d+)?\/api\/v1\/workspaces\/.+\/responses\?limit=5$/),
      next: expect.stringMatching(/\/responses\?limit=5&page=2$/),
      prev: null,
    });
    expect(res.headers['x-api-style']).toBe('B');
  });

  it('uses the defaults page 1 and limit 50', async () => {
    const res = await list('');
    expect(res.body.meta).toEqual({ total: 30, page: 1, limit: 50, filtered_total: 30 });
    expect(res.body.data).toHaveLength(30);
    expect(res.body.links.next).toBeNull();
  });

  it('links next and prev keep every other parameter', async () => {
    const res = await list(`form_id=${s.nps}&limit=4&page=2&sort=score:asc`);
    const next = new URL(res.body.links.next);
    const prev = new URL(res.body.links.prev);
    expect(Object.fromEntries(next.searchParams)).toEqual({ form_id: s.nps, limit: '4', page: '3', sort: 'score:asc' });
    expect(Object.fromEntries(prev.searchParams)).toEqual({ form_id: s.nps, limit: '4', page: '1', sort: 'score:asc' });
    const back = await getB(relative(res.body.links.prev));
    expect(ids(back.body)).toEqual(ids((await list(`form_id=${s.nps}&limit=4&sort=score:asc`)).body));
  });

  it('walks every page without repeating or skipping a row across equal created_at', async () => {
    const seen: string[] = [];
    let url: string | null = `/api/v1/workspaces/${s.ws}/responses?limit=7&page=1`;
    while (url) {
      const res = await get(relative(url));
      expect(res.status).toBe(200);
      seen.push(...ids(res.body));
      url = res.body.links.next;
    }
    expect(seen).toEqual(newestFirst(s.responses).map((r) => r.id));
  });

  it('returns an empty page past the last with the right totals', async () => {
    const res = await list(`form_id=${s.csat}&limit=5&page=9`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
    expect(res.body.meta).toEqual({ total: 30, page: 9, limit: 5, filtered_total: 10 });
    expect(res.body.links.next).toBeNull();
    expect(new URL(res.body.links.prev).searchParams.get('page')).toBe('2');
  });

  it('counts total over the workspace and filtered_total after form_id', async () => {
    const res = await list(`form_id=${s.csat}&limit=100`);
    const expected = newestFirst(s.responses.filter((r) => r.form_id === s.csat));
    expect(res.body.meta).toEqual({ total: 30, page: 1, limit: 100, filtered_total: expected.length });
    expect(ids(res.body)).toEqual(expected.map((r) => r.id));
  });

  it('narrows with a score filter', async () => {
    const res = await list(`filter=${encodeURIComponent('score in [0, 1, 2], form_id = ' + s.nps)}&limit=100`);
    expect(res.status).toBe(200);
    const expected = newestFirst(s.responses.filter((r) => r.form_id === s.nps && r.score <= 2));
    expect(expected.length).toBeGreaterThan(0);
    expect(res.body.meta).toMatchObject({ total: 30, filtered_total: expected.length });
    expect(ids(res.body)).toEqual(expected.map((r) => r.id));
    const ne = await list(`filter=${encodeURIComponent('score != 5')}&limit=100`);
    expect(ne.body.meta.filtered_total).toBe(s.responses.filter((r) => r.score !== 5).length);
  });

  it('narrows with a date range: start_date inclusive, end_date a whole day', async () => {
    const res = await list('start_date=2026-01-10T15:00:00Z&end_date=2026-01-10&limit=100');
    const expected = newestFirst(s.responses.filter((r) => r.created_at >= '2026-01-10T15:00:00.000Z' && r.created_at < '2026-01-11T00:00:00.000Z'));
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(30);
    expect(res.body.meta).toMatchObject({ total: 30, filtered_total: expected.length });
    expect(ids(res.body)).toEqual(expected.map((r) => r.id));
  });

  it('narrows with a case-insensitive ~ (contains) filter', async () => {
    const res = await list(`filter=${encodeURIComponent('respondent_email ~ PERSON1')}&limit=100`);
    const expected = newestFirst(s.responses.filter((r) => (r.respondent_email ?? '').includes('person1')));
    expect(expected.length).toBeGreaterThan(0);
    expect(res.body.meta).toMatchObject({ total: 30, filtered_total: expected.length });
    expect(ids(res.body)).toEqual(expected.map((r) => r.id));
  });

  it('matches an absent value with a bare null', async () => {
    const res = await list(`filter=${encodeURIComponent('email_id = null')}&limit=100`);
    expect(res.body.meta.filtered_total).toBe(s.responses.filter((r) => r.email_id === null).length);
  });

  it('sorts by several fields, each with its own direction, ending with the id tie-breaker', async () => {
    const res = await list('sort=score:desc,createdAt:asc&limit=100');
    expect(res.status).toBe(200);
    const expected = [...s.responses].sort(
      (a, b) => b.score - a.score || (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id < b.id ? -1 : 1),
    );
    expect(ids(res.body)).toEqual(expected.map((r) => r.id));
  });

  it('gives the same rows in the same order as Style A cursors for the same filters', async () => {
    const a: string[] = [];
    let url: string | null = `/api/v1/workspaces/${s.ws}/responses?form_id=${s.nps}&sort=score:asc&limit=6`;
    while (url) {
      const res: Response = await get(relative(url)).set('X-API-Style', 'A');
      expect(res.body.meta).toHaveProperty('has_more');
      a.push(...ids(res.body));
      url = res.body.links.next;
    }
    const b: string[] = [];
    for (let page = 1; ; page++) {
      const res = await list(`form_id=${s.nps}&sort=score:asc&limit=6&page=${page}`);
      if (res.body.data.length === 0) break;
      b.push(...ids(res.body));
    }
    expect(b).toEqual(a);
    expect(b).toEqual(
      s.responses
        .filter((r) => r.form_id === s.nps)
        .sort(byScoreAsc)
        .map((r) => r.id),
    );
  });
});

describe('Style B response shape', () => {
  it('renders a response with form, answers, table_data and actionlist_data on request', async () => {
    const target = s.responses.find((r) => r.row_id && r.form_id === s.nps && r.score <= 3)!;
    const res = await getB(`/api/v1/workspaces/${s.ws}/responses/${target.id}?include_table_data=true&include_actionlist_data=true`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ meta: {}, links: {}, request_id: expect.any(String) });
    expect(res.body.data).toEqual({
      id: target.id,
      score: target.score,
      version: expect.any(Number),
      createdAt: target.created_at,
      form: { id: s.nps, name: 'NPS' },
      answers: [
        { id: 'q_score', title: expect.any(String), type: 'nps', value: target.score },
        { id: 'q_plan', title: expect.any(String), type: 'single_choice', value: { id: expect.any(String), value: expect.any(String) } },
      ],
      email_id: target.email_id,
      respondent_email: target.respondent_email,
      row_id: target.row_id,
      // No text answer: no overall sentiment (docs/analytics.md, "Sentiment").
      sentiment: null,
      table_data: expect.objectContaining({ row_id: target.row_id, _captured_at: target.created_at, id: expect.any(String) }),
      actionlist_data: [{ actionlist_id: 'al_detractor', triggered_score: target.score, triggers: ['detractor'] }],
    });
  });

  it('gives table_data null and actionlist_data [] when there are none, and omits both unless asked', async () => {
    const target = s.responses.find((r) => !r.row_id && r.score > 3)!;
    const res = await getB(`/api/v1/workspaces/${s.ws}/responses/${target.id}?include_table_data=true&include_actionlist_data=true`);
    expect(res.body.data).toMatchObject({ table_data: null, actionlist_data: [] });
    const plain = await getB(`/api/v1/workspaces/${s.ws}/responses/${target.id}`);
    expect(plain.body.data).not.toHaveProperty('table_data');
    expect(plain.body.data).not.toHaveProperty('actionlist_data');
    expect(plain.body.data).not.toHaveProperty('created_at');
    expect(plain.body.data.answers[0]).not.toHaveProperty('reporting_label');
  });

  it('adds table_data and actionlist_data to list items on request', async () => {
    const res = await list('include_table_data=true&include_actionlist_data=true&limit=100');
    for (const item of res.body.data) {
      const r = s.responses.find((x) => x.id === item.id)!;
      expect(item.table_data === null).toBe(r.row_id === null);
      expect(item.actionlist_data).toHaveLength(r.score <= 3 ? 1 : 0);
      expect(item.form.name).toBe(r.form_id === s.nps ? 'NPS' : 'CSAT');
    }
  });

  it('shows answers in the language the response was given in', async () => {
    const de = s.responses.find((r) => r.language === 'de')!;
    const res = await getB(`/api/v1/workspaces/${s.ws}/responses/${de.id}`);
    expect(res.body.data.answers[1]).toMatchObject({ id: 'q_plan', title: 'Tarif?' });
  });
});

describe('v2 responses', () => {
  it('adds reporting_label to every answer of the translated form in Style B, and not to the untranslated one', async () => {
    const res = await getB(`/api/v2/workspaces/${s.ws}/responses?limit=100`);
    expect(res.status).toBe(200);
    expect(res.headers['x-api-style']).toBe('B');
    expect(res.body.meta).toMatchObject({ total: 30, filtered_total: 30 });
    const de = res.body.data.find((r: { id: string }) => r.id === s.responses.find((x) => x.language === 'de')!.id);
    expect(de.answers).toEqual([
      expect.objectContaining({ id: 'q_score', reporting_label: 'How likely are you to recommend us?' }),
      expect.objectContaining({ id: 'q_plan', title: 'Tarif?', reporting_label: 'Plan?' }),
    ]);
    for (const item of res.body.data) {
      const translated = item.form.id === s.nps;
      for (const answer of item.answers) expect(answer.hasOwnProperty('reporting_label')).toBe(translated);
    }
  });

  it('selects Style B on v2 by a Style B-only parameter and keeps the v1 list free of labels', async () => {
    const v2 = await get(`/api/v2/workspaces/${s.ws}/responses?page=1&form_id=${s.nps}`);
    expect(v2.headers['x-api-style']).toBe('B');
    expect(v2.body.data[0].answers[0]).toHaveProperty('reporting_label');
    const v1 = await list(`form_id=${s.nps}&limit=100`);
    for (const item of v1.body.data) for (const answer of item.answers) expect(answer).not.toHaveProperty('reporting_label');
  });
});

describe('style selection on the shared paths', () => {
  const path = () => `/api/v1/workspaces/${s.ws}/responses`;
  const isB = (body: { meta: Record<string, unknown> }) => 'filtered_total' in body.meta;

  it.each(['B', 'b', ' b '])('answers in Style B for the header X-API-Style: %p', async (header) => {
    const res = await get(`${path()}?limit=1`).set('X-API-Style', header);
    expect(res.status).toBe(200);
    expect(isB(res.body)).toBe(true);
    expect(res.headers['x-api-style']).toBe('B');
  });

  it('answers in Style A for the header a, even with a Style B key', async () => {
    const keyB = await keyFor(t.db, [s.ws], { style: 'B' });
    const res = await get(`${path()}?limit=1`, keyB).set('X-API-Style', 'a');
    expect(res.body.meta).toEqual({ limit: 1, has_more: true });
    expect(res.headers['x-api-style']).toBe('A');
  });

  // The header is refused before a style is chosen: the answer keeps the provisional A of
  // src/platform/style-selection.ts, whatever the key's default.
  it.each(['A', 'B'] as const)('rejects another header value with a 400 naming X-API-Style, marked Style A for a key of style %s', async (style) => {
    const key = await keyFor(t.db, [s.ws], { style });
    const res = await get(path(), key).set('X-API-Style', 'C');
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'validation_error', details: [expect.objectContaining({ location: 'header', field: 'X-API-Style' })] });
    expect(res.headers['x-api-style']).toBe('A');
  });

  it('picks Style B for a Style B-only parameter and Style A for a Style A-only one', async () => {
    const b = await get(`${path()}?page=1&limit=2`);
    expect(b.headers['x-api-style']).toBe('B');
    expect(b.body.meta).toEqual({ total: 30, page: 1, limit: 2, filtered_total: 30 });
    const a = await get(`${path()}?score_gte=5&limit=2`);
    expect(a.headers['x-api-style']).toBe('A');
    expect(a.body.meta).toEqual({ limit: 2, has_more: true });
    const cursor = new URL(a.body.links.next).searchParams.get('cursor')!;
    const byCursor = await get(`${path()}?score_gte=5&limit=2&cursor=${cursor}`);
    expect(byCursor.headers['x-api-style']).toBe('A');
    expect(byCursor.status).toBe(200);
  });

  it('rejects parameters of both styles with a 400 naming them', async () => {
    const res = await get(`${path()}?page=1&score_gte=3&cursor=x`);
    expect(res.status).toBe(400);
    const fields = res.body.error.details.map((d: { field: string }) => d.field).sort();
    expect(fields).toEqual(['cursor', 'page', 'score_gte']);
  });

  it('rejects a Style A-only parameter in a request the header put in Style B', async () => {
    const res = await list('score_gte=3');
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([expect.objectContaining({ location: 'query', field: 'score_gte' })]);
  });

  it('rejects a Style B-only parameter in a request the header or the key put in Style A', async () => {
    const res = await get(`${path()}?filter=${encodeURIComponent('score = 1')}&start_date=2026-01-01`).set('X-API-Style', 'A');
    expect(res.status).toBe(400);
    expect(res.headers['x-api-style']).toBe('A');
    expect(res.body.error.details.map((d: { field: string }) => d.field)).toEqual(['filter', 'start_date']);
    const keyA = await keyFor(t.db, [s.ws], { style: 'A' });
    const one = await get(`${path()}/${s.responses[0]!.id}?include_actionlist_data=true`, keyA).set('X-API-Style', 'A');
    expect(one.status).toBe(400);
    expect(one.body.error.details).toEqual([expect.objectContaining({ field: 'include_actionlist_data' })]);
  });

  it("falls back to the key's default style", async () => {
    const keyB = await keyFor(t.db, [s.ws], { style: 'B' });
    const b = await get(`${path()}?limit=3`, keyB);
    expect(b.headers['x-api-style']).toBe('B');
    expect(b.body.meta).toEqual({ total: 30, page: 1, limit: 3, filtered_total: 30 });
    const one = await get(`${path()}/${s.responses[0]!.id}`, keyB);
    expect(one.body.data).toHaveProperty('createdAt');
    const a = await get(`${path()}?limit=3`);
    expect(a.headers['x-api-style']).toBe('A');
    const overridden = await get(`${path()}?limit=3&created_after=2026-01-01`, keyB);
    expect(overridden.headers['x-api-style']).toBe('A');
  });

  it('sends X-API-Style on a 401 too', async () => {
    const res = await t.http().get(path()).set('X-API-Style', 'B');
    expect(res.status).toBe(401);
    expect(res.headers['x-api-style']).toBe('B');
    const plain = await t.http().get(path());
    expect(plain.headers['x-api-style']).toBe('A');
  });
});

describe('Style B response errors', () => {
  it('returns 401 without a key', async () => {
    const res = await t.http().get(`/api/v1/workspaces/${s.ws}/responses?page=1`);
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ error: { code: 'invalid_api_key', status: 401 }, request_id: expect.any(String) });
  });

  it('returns 403 for a workspace the key has no access to', async () => {
    const other = await scenario(t.db, { responseCount: 1 });
    const res = await list('').set('X-API-Key', other.key);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('workspace_access_denied');
  });

  it('names Style B in X-API-Style on a 403 for a key whose default style is B (issue 26 item 6)', async () => {
    const other = await scenario(t.db, { responseCount: 1 });
    const keyB = await keyFor(t.db, [s.ws], { style: 'B' });
    const denied = await get(`/api/v1/workspaces/${other.ws}/responses`, keyB);
    expect([denied.status, denied.body.error.code, denied.headers['x-api-style']]).toEqual([403, 'workspace_access_denied', 'B']);
    const narrowB = await keyFor(t.db, [s.ws], { style: 'B', scopes: ['forms:read'] });
    const scope = await get(`/api/v1/workspaces/${s.ws}/responses`, narrowB);
    expect([scope.status, scope.body.error.code, scope.headers['x-api-style']]).toEqual([403, 'insufficient_scope', 'B']);
    const links = await get(`/api/v1/workspaces/${s.ws}/forms/${s.nps}/dashboard-links`, narrowB);
    expect([links.status, links.headers['x-api-style']]).toEqual([200, 'B']);
    // The header still wins over the key's default, and a Style A path stays A.
    const asked = await get(`/api/v1/workspaces/${other.ws}/responses`, keyB).set('X-API-Style', 'A');
    expect([asked.status, asked.headers['x-api-style']]).toEqual([403, 'A']);
    const styleA = await get(`/api/v1/workspaces/${other.ws}/forms`, keyB);
    expect([styleA.status, styleA.headers['x-api-style']]).toEqual([403, 'A']);
  });

  it('returns 404 for a response of another workspace', async () => {
    const other = await scenario(t.db, { responseCount: 1 });
    const res = await getB(`/api/v1/workspaces/${s.ws}/responses/${other.responses[0]!.id}`);
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ error: { code: 'resource_not_found', status: 404 } });
    expect(res.headers['x-api-style']).toBe('B');
  });

  it.each([
    ['limit=1001', 'limit'],
    ['limit=0', 'limit'],
    ['page=0', 'page'],
    ['page=-1', 'page'],
    ['page=1.5', 'page'],
    ['sort=nope:asc', 'sort'],
    ['sort=score:up', 'sort'],
    ['start_date=2024-02-30', 'start_date'],
    ['end_date=2024-01-01T10:00:00', 'end_date'],
    ['include_table_data=yes', 'include_table_data'],
  ])('rejects %s with a 400 naming %s', async (query, field) => {
    const res = await list(query);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'validation_error', status: 400 });
    expect(res.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ location: 'query', field })]));
  });

  it.each([
    ['score ?? 3', /"\?\?".*position 7/],
    ['nope = 1', /unknown field "nope".*position 1/],
    ['score = high', /"high" is not a number/],
    ['score ~ 3', /"~"/],
    ['form_id = "open', /unterminated.*position 11/],
  ])('rejects the filter %p with a 400 naming the token', async (filter, message) => {
    const res = await list(`filter=${encodeURIComponent(filter)}`);
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([expect.objectContaining({ location: 'query', field: 'filter', message: expect.stringMatching(message) })]);
  });
});
