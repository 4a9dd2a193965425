import { newestFirst, scenario, type Scenario } from '../../support/given';
import { useTestApp } from '../../support/app';

const t = useTestApp();
let s: Scenario;
beforeAll(async () => {
  s = await scenario(t.db, { responseCount: 30 });
});

const get = (path: string, key = s.key) => t.http().get(path).set('X-API-Key', key);

describe('Style A responses list', () => {
  it('returns the first page newest first in the envelope with has_more and links', async () => {
    const res = await get(`/api/v1/workspaces/${s.ws}/responses?limit=5`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'links', 'meta', 'request_id']);
    expect(res.body.meta).toEqual({ limit: 5, has_more: true });
    expect(res.body.data.map((r: { id: string }) => r.id)).toEqual(
      newestFirst(s.responses)
        .slice(0, 5)
        .map((r) => r.id),
    );
    expect(res.body.links.prev).toBeNull();
    expect(res.body.links.next).toMatch(/^http:\/\/127\.0\.0\.1(:\d+)?\/api\/v1\/workspaces\/.+\/responses\?limit=5&cursor=/);
    expect(res.headers['x-api-style']).toBe('A');
    expect(res.headers['x-request-id']).toBe(res.body.request_id);
  });

  it('walks every page by cursor without repeating or skipping a row, also across equal created_at', async () => {
    const seen: string[] = [];
    let url: string | null = `/api/v1/workspaces/${s.ws}/responses?limit=4`;
    let pages = 0;
    while (url) {
      const res = await get(url.replace(/^http:\/\/[^/]+/, ''));
      expect(res.status).toBe(200);
      seen.push(...res.body.data.map((r: { id: string }) => r.id));
      url = res.body.links.next;
      pages++;
    }
    expect(pages).toBe(Math.ceil(30 / 4));
    expect(seen).toEqual(newestFirst(s.responses).map((r) => r.id));
  });

  it('goes back to the previous page with links.prev', async () => {
    const first = await get(`/api/v1/workspaces/${s.ws}/responses?limit=3`);
    const second = await get(first.body.links.next.replace(/^http:\/\/[^/]+/, ''));
    const back = await get(second.body.links.prev.replace(/^http:\/\/[^/]+/, ''));
    expect(back.body.data).toEqual(first.body.data);
    expect(back.body.links.prev).toBeNull();
  });

  it('filters by form, score bounds and created range', async () => {
    const res = await get(
      `/api/v1/workspaces/${s.ws}/responses?form_id=${s.nps}&score_gte=3&score_lte=7&created_after=2026-01-10&created_before=2026-01-10T20:00:00Z&limit=100`,
    );
    expect(res.status).toBe(200);
    const expected = newestFirst(
      s.responses.filter(
        (r) => r.form_id === s.nps && r.score >= 3 && r.score <= 7 && r.created_at >= '2026-01-10T00:00:00.000Z' && r.created_at < '2026-01-10T20:00:00.000Z',
      ),
    );
    expect(expected.length).toBeGreaterThan(0);
    expect(res.body.data.map((r: { id: string }) => r.id)).toEqual(expected.map((r) => r.id));
  });

  it('sorts by score ascending with the id tie-breaker', async () => {
    const res = await get(`/api/v1/workspaces/${s.ws}/responses?sort=score:asc&limit=100`);
    const got = res.body.data.map((r: { id: string; score: number }) => [r.score, r.id]);
    const expected = [...s.responses].sort((a, b) => a.score - b.score || (a.id < b.id ? -1 : 1)).map((r) => [r.score, r.id]);
    expect(got).toEqual(expected);
  });

  it('accepts the camelCase spelling of a sort field', async () => {
    const res = await get(`/api/v1/workspaces/${s.ws}/responses?sort=createdAt:asc&limit=2`);
    expect(res.status).toBe(200);
    expect(res.body.data[0].id).toBe([...newestFirst(s.responses)].reverse()[0]!.id);
  });

  it('shows answers in the response language and table_data on request', async () => {
    const target = s.responses.find((r) => r.row_id && r.language === 'en' && r.form_id === s.nps)!;
    const res = await get(`/api/v1/workspaces/${s.ws}/responses/${target.id}?include_table_data=true`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id: target.id,
      form_id: s.nps,
      score: target.score,
      created_at: target.created_at,
      row_id: target.row_id,
      table_data: { row_id: target.row_id, _captured_at: target.created_at },
    });
    expect(res.body.data.answers[1]).toEqual({
      question_id: 'q_plan',
      title: 'Plan?',
      type: 'single_choice',
      value: expect.objectContaining({ id: expect.any(String) }),
    });
    expect(res.body.data.answers[0]).not.toHaveProperty('reporting_label');
    const de = s.responses.find((r) => r.language === 'de')!;
    const deRes = await get(`/api/v1/workspaces/${s.ws}/responses/${de.id}`);
    expect(deRes.body.data.answers[1].title).toBe('Tarif?');
    expect(deRes.body.data).not.toHaveProperty('table_data');
  });

  it("lists one form's responses and 404s for an unknown form", async () => {
    const res = await get(`/api/v1/workspaces/${s.ws}/forms/${s.csat}/responses?limit=100`);
    expect(res.body.data.every((r: { form_id: string }) => r.form_id === s.csat)).toBe(true);
    expect(res.body.data).toHaveLength(s.responses.filter((r) => r.form_id === s.csat).length);
    const missing = await get(`/api/v1/workspaces/${s.ws}/forms/frm_nope/responses`);
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('resource_not_found');
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=abc', 'limit'],
    ['cursor=notacursor', 'cursor'],
    ['created_after=2024-02-30', 'created_after'],
    ['created_after=2024-01-01T10:00:00', 'created_after'],
    ['sort=nope:asc', 'sort'],
    ['sort=score:sideways', 'sort'],
  ])('rejects %s with a 400 naming %s', async (query, field) => {
    const res = await get(`/api/v1/workspaces/${s.ws}/responses?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'validation_error', status: 400 });
    expect(res.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ location: 'query', field })]));
  });

  it('rejects a cursor of another list', async () => {
    const forms = await get(`/api/v1/workspaces/${s.ws}/forms?limit=1`);
    const cursor = new URL(forms.body.links.next).searchParams.get('cursor');
    const res = await get(`/api/v1/workspaces/${s.ws}/responses?cursor=${cursor}`);
    expect(res.status).toBe(400);
    expect(res.body.error.details[0]).toMatchObject({ field: 'cursor' });
  });

  it('returns 404 for a response of another workspace', async () => {
    const other = await scenario(t.db, { responseCount: 1 });
    const res = await get(`/api/v1/workspaces/${s.ws}/responses/${other.responses[0]!.id}`);
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ error: { code: 'resource_not_found', status: 404 }, request_id: expect.any(String) });
  });
});
