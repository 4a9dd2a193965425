import { scenario, type Scenario } from '../../support/given';
import { useTestApp } from '../../support/app';

const t = useTestApp();
let s: Scenario;
beforeAll(async () => {
  s = await scenario(t.db, { responseCount: 5 });
});

const get = (path: string, key = s.key) => t.http().get(path).set('X-API-Key', key);
const tables = () => `/api/v1/workspaces/${s.ws}/tables`;
const rowIds = (body: { data: Array<{ row_id: string }> }) => body.data.map((r) => r.row_id);
// Scenario rows: i = 0..4, data {id: c-i, plan: basic|pro, seats: (i+1)*5, active: i even}, created 1 s apart.
const rowData = (i: number) => ({ id: `c-${i}`, plan: i % 2 ? 'pro' : 'basic', seats: (i + 1) * 5, active: i % 2 === 0 });

describe('Style B tables', () => {
  it('lists the tables as {id, name} with Style B meta', async () => {
    const res = await get(tables());
    expect(res.status).toBe(200);
    expect(res.headers['x-api-style']).toBe('B');
    expect(res.body).toMatchObject({
      data: [{ id: s.table, name: 'Customers' }],
      meta: { total: 1, page: 1, limit: 1, filtered_total: 1 },
      links: { next: null, prev: null },
    });
  });

  it('lists the field names with row_id first', async () => {
    const res = await get(`${tables()}/${s.table}/fields`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(['row_id', 'id', 'plan', 'seats', 'active']);
  });

  it.each(['', '/entries'])('lists rows at tables/{id}%s newest first as {row_id, data}', async (suffix) => {
    const res = await get(`${tables()}/${s.table}${suffix}`);
    expect(res.status).toBe(200);
    expect(res.body.meta).toEqual({ total: 5, page: 1, limit: 50, filtered_total: 5 });
    expect(res.body.data).toEqual([4, 3, 2, 1, 0].map((i) => ({ row_id: s.rows[i], data: rowData(i) })));
  });

  it('adds created_at and updated_at with include_metadata=true', async () => {
    const res = await get(`${tables()}/${s.table}/entries?include_metadata=true&limit=1`);
    expect(res.body.data).toEqual([{ row_id: s.rows[4], data: rowData(4), created_at: '2026-01-10T12:00:04.000Z', updated_at: expect.any(String) }]);
  });

  it('pages with page and limit, links and totals', async () => {
    const res = await get(`${tables()}/${s.table}/entries?limit=2&page=2`);
    expect(rowIds(res.body)).toEqual([s.rows[2], s.rows[1]]);
    expect(res.body.meta).toEqual({ total: 5, page: 2, limit: 2, filtered_total: 5 });
    expect(new URL(res.body.links.next).searchParams.get('page')).toBe('3');
    expect(new URL(res.body.links.prev).searchParams.get('page')).toBe('1');
    const past = await get(`${tables()}/${s.table}/entries?limit=2&page=4`);
    expect(past.body.data).toEqual([]);
    expect(past.body.meta).toEqual({ total: 5, page: 4, limit: 2, filtered_total: 5 });
  });

  it.each([
    ['plan = pro', [3, 1]],
    ['plan != pro', [4, 2, 0]],
    ['seats in [5, 15]', [2, 0]],
    ['seats = 20', [3]],
    ['active = true', [4, 2, 0]],
    ['id ~ C-', [4, 3, 2, 1, 0]],
    ['plan = basic, seats != 5', [4, 2]],
  ])('filters rows with %p', async (filter, expected) => {
    const res = await get(`${tables()}/${s.table}/entries?filter=${encodeURIComponent(filter)}`);
    expect(res.status).toBe(200);
    expect(rowIds(res.body)).toEqual(expected.map((i) => s.rows[i]));
    expect(res.body.meta).toMatchObject({ total: 5, filtered_total: expected.length });
  });

  it('filters on row_id', async () => {
    const res = await get(`${tables()}/${s.table}?filter=${encodeURIComponent(`row_id = "${s.rows[2]}"`)}`);
    expect(rowIds(res.body)).toEqual([s.rows[2]]);
  });

  it('sorts by several columns, numbers as numbers', async () => {
    const res = await get(`${tables()}/${s.table}/entries?sort=plan:asc,seats:desc`);
    expect(rowIds(res.body)).toEqual([4, 2, 0, 3, 1].map((i) => s.rows[i]));
    const bySeats = await get(`${tables()}/${s.table}/entries?sort=seats:asc`);
    expect(rowIds(bySeats.body)).toEqual([0, 1, 2, 3, 4].map((i) => s.rows[i]));
  });

  it('narrows by creation date with start_date and end_date', async () => {
    const res = await get(`${tables()}/${s.table}/entries?start_date=2026-01-10T12:00:01Z&end_date=2026-01-10T12:00:03Z`);
    expect(rowIds(res.body)).toEqual([3, 2, 1].map((i) => s.rows[i]));
    expect(res.body.meta).toMatchObject({ total: 5, filtered_total: 3 });
    const none = await get(`${tables()}/${s.table}/entries?start_date=2026-01-11`);
    expect(none.body).toMatchObject({ data: [], meta: { total: 5, filtered_total: 0 } });
  });

  it('returns one entry as {row_id, data} in a single envelope', async () => {
    const res = await get(`${tables()}/${s.table}/entries/${s.rows[1]}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { row_id: s.rows[1], data: rowData(1) }, meta: {}, links: {}, request_id: expect.any(String) });
  });
});

describe('Style B table errors', () => {
  it('returns 404 for a table of another workspace on every table path', async () => {
    const other = await scenario(t.db, { responseCount: 1 });
    for (const suffix of ['', '/fields', '/entries', `/entries/${other.rows[0]}`]) {
      const res = await get(`${tables()}/${other.table}${suffix}`);
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({ code: 'resource_not_found', status: 404 });
    }
  });

  it('returns 404 for an unknown row', async () => {
    const res = await get(`${tables()}/${s.table}/entries/row_nope`);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('resource_not_found');
  });

  it('returns 401 without a key and 403 for another workspace, with X-API-Style B', async () => {
    const anonymous = await t.http().get(tables());
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers['x-api-style']).toBe('B');
    const other = await scenario(t.db, { responseCount: 1 });
    const denied = await get(tables(), other.key);
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('workspace_access_denied');
  });

  it.each([
    ['limit=1001', 'limit'],
    ['page=0', 'page'],
    ['sort=nope:asc', 'sort'],
    ['filter=nope%20%3D%201', 'filter'],
    ['filter=plan%20%3D', 'filter'],
    ['start_date=yesterday', 'start_date'],
    ['include_metadata=1', 'include_metadata'],
  ])('rejects %s with a 400 naming %s', async (query, field) => {
    const res = await get(`${tables()}/${s.table}/entries?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ location: 'query', field })]));
  });
});
