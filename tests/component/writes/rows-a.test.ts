import { scenario, type Scenario } from '../../support/given';
import { testConfig, useTestApp } from '../../support/app';
import { expectRateLimitHeaders, expectRequestId } from '../../support/headers';

const t = useTestApp();
let s: Scenario;
beforeAll(async () => {
  s = await scenario(t.db, { responseCount: 0 });
});

const rowsPath = () => `/api/v1/workspaces/${s.ws}/datatables/${s.table}/rows`;
const post = (body: unknown, path = rowsPath()) =>
  t
    .http()
    .post(path)
    .set('X-API-Key', s.key)
    .send(body as object);
const patch = (rowId: string, body: unknown) =>
  t
    .http()
    .patch(`${rowsPath()}/${rowId}`)
    .set('X-API-Key', s.key)
    .send(body as object);
const get = (path: string) => t.http().get(path).set('X-API-Key', s.key);
const uniq = () => `c-${Math.random().toString(36).slice(2, 10)}`;

describe('Style A POST rows', () => {
  it('creates a row from an object: 201 with the row in the envelope', async () => {
    const id = uniq();
    const res = await post({ data: { id, plan: 'pro', seats: 3, active: true } });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'links', 'meta', 'request_id']);
    expect(res.body).toMatchObject({ data: { id, plan: 'pro', seats: 3, active: true }, meta: {}, links: {} });
    expect(res.body.data.row_id).toMatch(/^row_/);
    expect(res.body.data.created_at).toMatch(/Z$/);
    expectRequestId(res);
    // The scenario's key has no own limit: RATE_LIMIT_PER_MINUTE applies, and each request counts.
    const remaining = expectRateLimitHeaders(res, testConfig().rateLimitPerMinute);
    const read = await get(`${rowsPath()}/${res.body.data.row_id}`);
    expect(read.body.data).toEqual(res.body.data);
    expect(expectRateLimitHeaders(read, testConfig().rateLimitPerMinute)).toBe(remaining - 1);
  });

  it('creates a new row every time for an item without id', async () => {
    const a = await post({ data: { plan: 'free' } });
    const b = await post({ data: { plan: 'free' } });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.body.data.row_id).not.toBe(b.body.data.row_id);
  });

  it('merges into an existing data.id: 200, sent columns overwrite, others stay, null removes', async () => {
    const id = uniq();
    const first = await post({ data: { id, plan: 'basic', seats: 5, active: true } });
    const res = await post({ data: { id, plan: 'pro', active: null } });
    expect(res.status).toBe(200);
    expect(res.body.data.row_id).toBe(first.body.data.row_id);
    expect(res.body.data).toMatchObject({ id, plan: 'pro', seats: 5 });
    expect(res.body.data).not.toHaveProperty('active');
  });

  it('takes an array: rows in request order, 201 when all are new, 200 when any was updated', async () => {
    const [x, y] = [uniq(), uniq()];
    const created = await post({ data: [{ id: x, seats: 1 }, { id: y, seats: 2 }, { plan: 'free' }] });
    expect(created.status).toBe(201);
    expect(created.body.data.map((r: { id?: string }) => r.id)).toEqual([x, y, undefined]);
    const mixed = await post({ data: [{ id: uniq() }, { id: y, seats: 9 }] });
    expect(mixed.status).toBe(200);
    expect(mixed.body.data[1]).toMatchObject({ id: y, seats: 9, row_id: created.body.data[1].row_id });
  });

  it('does not store nulls of a new row', async () => {
    const res = await post({ data: { id: uniq(), plan: null, seats: 1 } });
    expect(res.status).toBe(201);
    expect(res.body.data).not.toHaveProperty('plan');
  });

  it('rejects an unknown column and a wrong type with details naming the field, writing nothing', async () => {
    const before = await get(`/api/v1/workspaces/${s.ws}/datatables/${s.table}`);
    const res = await post({ data: [{ id: uniq(), seats: 1 }, { id: uniq() }, { id: uniq() }, { id: uniq(), seats: 'ten', colour: 'red' }] });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.details).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ location: 'body', field: 'data[3].seats' }),
        expect.objectContaining({ location: 'body', field: 'data[3].colour' }),
      ]),
    );
    const after = await get(`/api/v1/workspaces/${s.ws}/datatables/${s.table}`);
    expect(after.body.data.row_count).toBe(before.body.data.row_count);
  });

  it('names `data.seats` for a single object', async () => {
    const res = await post({ data: { id: uniq(), seats: '3' } });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([expect.objectContaining({ field: 'data.seats' })]);
  });

  it('rejects the same id twice in one request', async () => {
    const id = uniq();
    const res = await post({ data: [{ id }, { id }] });
    expect(res.status).toBe(400);
    expect(res.body.error.details[0].field).toBe('data[1].id');
  });

  it('rejects more than 100 rows', async () => {
    const res = await post({ data: Array.from({ length: 101 }, () => ({ plan: 'x' })) });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
  });

  it('answers 404 for a datatable of another workspace', async () => {
    const other = await scenario(t.db, { responseCount: 0 });
    const res = await post({ data: { plan: 'x' } }, `/api/v1/workspaces/${s.ws}/datatables/${other.table}/rows`);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('resource_not_found');
  });

  it('keeps exactly one row under 50 concurrent upserts of one data.id', async () => {
    const id = uniq();
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => post({ data: { id, seats: i } })));
    expect(results.every((r) => r.status === 200 || r.status === 201)).toBe(true);
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    const { rows } = await t.db.raw('SELECT count(*)::int AS n FROM datatable_rows WHERE workspace_id = ? AND datatable_id = ? AND external_id = ?', [
      s.ws,
      s.table,
      id,
    ]);
    expect(rows[0].n).toBe(1);
  });
});

describe('Style A PATCH and DELETE rows', () => {
  it('merges columns and removes a column with null', async () => {
    const created = await post({ data: { id: uniq(), plan: 'basic', seats: 5, active: true } });
    const res = await patch(created.body.data.row_id, { data: { seats: 6, active: null } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ data: { row_id: created.body.data.row_id, plan: 'basic', seats: 6 }, meta: {}, links: {} });
    expect(res.body.data).not.toHaveProperty('active');
  });

  it('validates types and columns (400 naming the field) and answers 404 for a missing row', async () => {
    const created = await post({ data: { plan: 'basic' } });
    const bad = await patch(created.body.data.row_id, { data: { active: 'yes' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details).toEqual([expect.objectContaining({ location: 'body', field: 'data.active' })]);
    const missing = await patch('row_doesnotexist', { data: { plan: 'x' } });
    expect(missing.status).toBe(404);
  });

  it('answers 409 conflict when id is changed to the id of another row', async () => {
    const a = await post({ data: { id: uniq() } });
    const b = await post({ data: { id: uniq() } });
    const res = await patch(b.body.data.row_id, { data: { id: a.body.data.id } });
    expect(res.status).toBe(409);
    // The 409 names the field (issue 26 item 6).
    const message = '`data.id` is already the `id` of another row of this table; send another value.';
    expect(res.body.error).toEqual({ code: 'conflict', status: 409, message, details: [{ location: 'body', field: 'data.id', message }] });
  });

  it('deletes a row: 204 without body, then 404', async () => {
    const created = await post({ data: { plan: 'gone' } });
    const del = await t.http().delete(`${rowsPath()}/${created.body.data.row_id}`).set('X-API-Key', s.key);
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    const again = await t.http().delete(`${rowsPath()}/${created.body.data.row_id}`).set('X-API-Key', s.key);
    expect(again.status).toBe(404);
  });
});
