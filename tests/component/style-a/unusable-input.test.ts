/** Inputs that decode but cannot be used (tampered cursors, NUL characters) are 400s, never 500s. */
import { encodeCursor } from '../../../src/core/query/keyset';
import { useTestApp } from '../../support/app';
import { scenario, type Scenario } from '../../support/given';

const t = useTestApp();
let s: Scenario;
beforeAll(async () => {
  s = await scenario(t.db, { responseCount: 3 });
});

it.each([
  [['not-a-date', 'rsp_1']],
  [[12, 'rsp_1']],
  [[{ a: 1 }, 'rsp_1']],
  [[null, 'rsp_1']],
])('answers 400 naming cursor, never 500, for a cursor whose sort key is %j', async (k) => {
  const cursor = encodeCursor({ l: `responses:${s.ws}`, s: 'created_at:desc,id:desc', k, d: 'n' });
  const res = await t.http().get(`/api/v1/workspaces/${s.ws}/responses?cursor=${cursor}`).set('X-API-Key', s.key);
  expect(res.status).toBe(400);
  expect(res.body.error.details[0]).toMatchObject({ location: 'query', field: 'cursor' });
});

it('answers 400, never 500, for a NUL character in a filter value or a path id', async () => {
  const filter = await t.http().get(`/api/v1/workspaces/${s.ws}/datatables/${s.table}/rows?filter=plan%20%3D%20a%00b`).set('X-API-Key', s.key);
  expect(filter.status).toBe(400);
  const path = await t.http().get(`/api/v1/workspaces/${s.ws}/responses/rsp%00x`).set('X-API-Key', s.key);
  expect([400, 404]).toContain(path.status);
});

it('answers 400, never 500, and writes nothing for a NUL character in a row body', async () => {
  const res = await t
    .http()
    .post(`/api/v1/workspaces/${s.ws}/datatables/${s.table}/rows`)
    .set('X-API-Key', s.key)
    .send({ data: { id: 'nul-row', plan: 'a\u0000b' } });
  expect(res.status).toBe(400);
  const rows = await t.http().get(`/api/v1/workspaces/${s.ws}/datatables/${s.table}/rows?filter=id%20%3D%20nul-row`).set('X-API-Key', s.key);
  expect(rows.body.data).toEqual([]);
});
