/** Inputs that decode but cannot be used (tampered cursors, NUL characters) are 400s, never 500s. */
import { encodeCursor } from '../../../src/core/query/keyset';
import { useTestApp } from '../../support/app';
import { scenario, type Scenario } from '../../support/given';

const t = useTestApp();
let s: Scenario;
beforeAll(async () => {
  s = await scenario(t.db, { responseCount: 3 });
});

it.each([[['not-a-date', 'rsp_1']], [[12, 'rsp_1']], [[{ a: 1 }, 'rsp_1']], [[null, 'rsp_1']]])(
  'answers 400 naming cursor, never 500, for a cursor whose sort key is %j',
  async (k) => {
    const cursor = encodeCursor({ l: `responses:${s.ws}`, s: 'created_at:desc,id:desc', k, d: 'n' });
    const res = await t.http().get(`/api/v1/workspaces/${s.ws}/responses?cursor=${cursor}`).set('X-API-Key', s.key);
    expect(res.status).toBe(400);
    expect(res.body.error.details[0]).toMatchObject({ location: 'query', field: 'cursor' });
  },
);

it('answers 400 naming filter, never 500, for a NUL character in a filter value', async () => {
  const res = await t.http().get(`/api/v1/workspaces/${s.ws}/datatables/${s.table}/rows?filter=plan%20%3D%20a%00b`).set('X-API-Key', s.key);
  expect(res.status).toBe(400);
  expect(res.body.error).toMatchObject({ code: 'validation_error', details: [expect.objectContaining({ location: 'query', field: 'filter' })] });
});

// PostgreSQL cannot compare a NUL, so a path id holding one is input that cannot be used: step 6 of
// docs/api-rules.md, "Order of checks" (400), never step 7 (404) and never a 500.
it.each([
  ['a response id', 'responses/rsp%00x'],
  ['a form id', 'forms/frm%00x'],
  ['a datatable id', 'datatables/tbl%00x/rows'],
])('answers 400 validation_error, never 404 or 500, for a NUL character in %s', async (_what, path) => {
  const res = await t.http().get(`/api/v1/workspaces/${s.ws}/${path}`).set('X-API-Key', s.key);
  expect(res.status).toBe(400);
  expect(res.body).toMatchObject({
    error: { code: 'validation_error', status: 400, details: [{ location: 'path', field: 'path', message: 'The path holds a NUL character (\\u0000).' }] },
  });
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
