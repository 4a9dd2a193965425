/**
 * POST /api/v1/translate (docs/migrating-between-styles.md, "Translating a request"): any valid key, a Style A
 * request for a Style B one, or 422 `unprocessable` naming the part. The property test
 * (tests/component/migration/translate.property.test.ts) checks that the translations return the same data.
 */
import { useTestApp } from '../support/app';
import { workspaceWithKey } from '../support/given';

const t = useTestApp();
let ws: string;
let key: string;
beforeAll(async () => {
  ({ ws, key } = await workspaceWithKey(t.db, { scopes: [] }));
});
const translate = (body: unknown, k = key) =>
  t
    .http()
    .post('/api/v1/translate')
    .set('X-API-Key', k)
    .send(body as object);

describe('POST /api/v1/translate', () => {
  it('translates rows with a filter, page and limit for a key without scopes', async () => {
    const res = await translate({
      method: 'GET',
      path: `/api/v1/workspaces/${ws}/tables/tbl_1/entries`,
      query: { filter: 'plan = pro', page: '3', limit: '200' },
      headers: { 'X-API-Style': 'B' },
    });
    expect(res.status).toBe(200);
    expect(res.headers['x-api-style']).toBe('A');
    expect(res.body.data).toMatchObject({
      operation: 'listTableEntriesB',
      equivalent: 'listDatatableRows',
      request: {
        method: 'GET',
        path: `/api/v1/workspaces/${ws}/datatables/tbl_1/rows`,
        query: { limit: '100', filter: 'plan = pro' },
        headers: { 'X-API-Style': 'A' },
      },
      walk: { limit: 100, follow_next: 4, read_pages: 2 },
    });
  });

  it('translates a responses filter to typed parameters and end_date to created_before', async () => {
    const res = await translate({
      method: 'GET',
      path: `/api/v1/workspaces/${ws}/responses?filter=${encodeURIComponent('score in [9, 10], form_id = frm_1, row_id = null')}&end_date=2026-01-31`,
    });
    expect(res.status).toBe(200);
    expect(res.body.data.request.query).toEqual({
      limit: '50',
      form_id: 'frm_1',
      row_id_present: 'false',
      score_in: ['9', '10'],
      created_before: '2026-02-01',
    });
  });

  it('answers 422 unprocessable naming the part', async () => {
    const res = await translate({ method: 'GET', path: `/api/v1/workspaces/${ws}/responses`, query: { sort: 'score:desc,created_at:asc' } });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'unprocessable', status: 422, details: [{ location: 'body', field: 'query.sort' }] });
    expect(res.body.error.details[0].message).toMatch(/^several sort fields/);
  });

  it('needs a valid key and a well-formed body', async () => {
    expect((await translate({ method: 'GET', path: '/x' }, 'fa_nope')).status).toBe(401);
    const bad = await translate({ method: 'GET' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('validation_error');
  });
});
