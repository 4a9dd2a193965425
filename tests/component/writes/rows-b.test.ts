import { scenario, type Scenario } from '../../support/given';
import { useTestApp } from '../../support/app';

const t = useTestApp();
let s: Scenario;
beforeAll(async () => {
  s = await scenario(t.db, { responseCount: 0 });
});

const base = () => `/api/v1/workspaces/${s.ws}/tables/${s.table}`;
const send = (method: 'post' | 'patch' | 'delete', path: string, body?: unknown) => {
  const req = t.http()[method](`${base()}${path}`).set('X-API-Key', s.key);
  return body === undefined ? req : req.send(body as object);
};
const rowCount = async () => (await t.http().get(`/api/v1/workspaces/${s.ws}/datatables/${s.table}`).set('X-API-Key', s.key)).body.data.row_count as number;
const uniq = () => `b-${Math.random().toString(36).slice(2, 10)}`;

describe('Style B POST entries', () => {
  it('creates with status 201 and body {row_id, data} without envelope; the same id updates (merge) with 201', async () => {
    const id = uniq();
    const res = await send('post', '/entries', { data: { id, plan: 'basic', seats: 2 } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ row_id: expect.stringMatching(/^row_/), data: { id, plan: 'basic', seats: 2 } });
    expect(res.headers['x-api-style']).toBe('B');
    const again = await send('post', '/entries', { data: { id, seats: 3 } });
    expect(again.status).toBe(201);
    expect(again.body).toEqual({ row_id: res.body.row_id, data: { id, plan: 'basic', seats: 3 } });
  });

  it('rejects a missing data or data.id with 400 naming it', async () => {
    const noData = await send('post', '/entries', {});
    expect(noData.status).toBe(400);
    expect(noData.body.error.code).toBe('validation_error');
    expect(noData.body.error.details.map((d: { field: string }) => d.field)).toContain('data');
    const noId = await send('post', '/entries', { data: { plan: 'x' } });
    expect(noId.status).toBe(400);
    expect(noId.body.error.details.map((d: { field: string }) => d.field)).toContain('data.id');
  });

  it('rejects an unknown column and a wrong type naming the field', async () => {
    const res = await send('post', '/entries', { data: { id: uniq(), seats: true, nope: 1 } });
    expect(res.status).toBe(400);
    expect(res.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual(['data.nope', 'data.seats']);
  });
});

describe('Style B bulk-entries', () => {
  it('upserts in one transaction: 200 envelope, rows in request order, meta {created, updated}', async () => {
    const existing = uniq();
    await send('post', '/entries', { data: { id: existing, plan: 'basic', seats: 1 } });
    const before = await rowCount();
    const ids = [uniq(), existing, uniq()];
    const res = await send('post', '/bulk-entries', { data: ids.map((id, i) => ({ id, seats: 10 + i })) });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'links', 'meta', 'request_id']);
    expect(res.body.meta).toEqual({ created: 2, updated: 1 });
    expect(res.body.links).toEqual({});
    expect(res.body.data.map((r: { data: { id: string } }) => r.data.id)).toEqual(ids);
    expect(res.body.data[1].data).toEqual({ id: existing, plan: 'basic', seats: 11 });
    expect(await rowCount()).toBe(before + 2);
  });

  it('is all or nothing: one bad item writes nothing', async () => {
    const before = await rowCount();
    const items = Array.from({ length: 20 }, () => ({ id: uniq(), seats: 1 }));
    items[7] = { id: uniq(), seats: 'many' as unknown as number };
    const res = await send('post', '/bulk-entries', { data: items });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([expect.objectContaining({ field: 'data[7].seats' })]);
    expect(await rowCount()).toBe(before);
    const { rows } = await t.db.raw('SELECT count(*)::int AS n FROM datatable_rows WHERE workspace_id = ? AND external_id = ?', [s.ws, items[0]!.id]);
    expect(rows[0].n).toBe(0);
  });

  it('requires id on every item and accepts up to 1000 items', async () => {
    const noId = await send('post', '/bulk-entries', { data: [{ id: uniq() }, { plan: 'x' }] });
    expect(noId.status).toBe(400);
    expect(noId.body.error.details.map((d: { field: string }) => d.field)).toContain('data[1].id');
    const many = await send('post', '/bulk-entries', { data: Array.from({ length: 1000 }, () => ({ id: uniq() })) });
    expect(many.status).toBe(200);
    expect(many.body.meta).toEqual({ created: 1000, updated: 0 });
    const tooMany = await send('post', '/bulk-entries', { data: Array.from({ length: 1001 }, () => ({ id: uniq() })) });
    expect(tooMany.status).toBe(400);
  });
});

describe('Style B PATCH and DELETE entries', () => {
  it('patches: 200 envelope with {row_id, data}; null removes a column', async () => {
    const created = await send('post', '/entries', { data: { id: uniq(), plan: 'basic', active: true } });
    const res = await send('patch', `/entries/${created.body.row_id}`, { data: { plan: 'pro', active: null } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ data: { row_id: created.body.row_id, data: { id: created.body.data.id, plan: 'pro' } }, meta: {}, links: {} });
    expect(res.body.data.data).not.toHaveProperty('active');
  });

  it('deletes: 204, then 404 for the missing entry', async () => {
    const created = await send('post', '/entries', { data: { id: uniq() } });
    expect((await send('delete', `/entries/${created.body.row_id}`)).status).toBe(204);
    const again = await send('delete', `/entries/${created.body.row_id}`);
    expect(again.status).toBe(404);
    expect(again.body.error.code).toBe('resource_not_found');
  });
});
