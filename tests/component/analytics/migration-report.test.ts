/**
 * The migration report (docs/analytics.md, "Migration report"): GET {ws}/api-keys/{key_id}/migration-report
 * names every Style B operation a key called in the window with its Style A equivalent and status, never
 * a Style A call; the schedule dates, the window, the verdict; `days` 1–400; a key of another workspace is
 * a 404; a key reads its own report without api_keys:read, not another's. Usage flushed every 200 ms.
 */
import type { Express } from 'express';
import supertest from 'supertest';
import { buildApp, stopAppBackground } from '../../../src/app';
import { createLogger } from '../../../src/platform/logger';
import { createUsageCounter } from '../../../src/platform/usage-counter';
import { testConfig } from '../../support/app';
import { openTestDb } from '../../support/db';
import { keyFor, scenario, workspaceWithKey } from '../../support/given';
import type { Db } from '../../../src/db/connection';
import { keyIdOf, until } from './helpers';

let db: Db;
let app: Express;
beforeAll(async () => {
  db = await openTestDb();
  const logger = createLogger('silent');
  const usage = createUsageCounter({ db, logger, intervalMs: 200 });
  app = buildApp(testConfig({ styleBSunset: '2027-03-01' }), { db, logger, usage });
});
afterAll(async () => {
  await stopAppBackground(app);
  await db.destroy();
});

const today = () => new Date().toISOString().slice(0, 10);
const report = (ws: string, keyId: string, reader: string, query = '') =>
  supertest(app).get(`/api/v1/workspaces/${ws}/api-keys/${keyId}/migration-report${query}`).set('X-API-Key', reader);

interface ReportedOperation {
  operation: string;
  requests: number;
  style_a: { operation: string; path: string; params: Array<{ b: string; a: string | null; how: string }> };
  status: string;
}

describe('GET {ws}/api-keys/{key_id}/migration-report', () => {
  it('names each Style B operation the key called with its Style A equivalent and status, not its Style A calls', async () => {
    const s = await scenario(db, { responseCount: 3 });
    const client = await keyFor(db, [s.ws], { scopes: ['responses:read', 'datatables:read', 'forms:read'] });
    const clientId = await keyIdOf(db, client);
    const base = `/api/v1/workspaces/${s.ws}`;
    const call = (path: string, style?: string) => {
      const r = supertest(app).get(`${base}${path}`).set('X-API-Key', client);
      return style ? r.set('X-API-Style', style) : r;
    };
    expect((await call(`/tables/${s.table}/entries`)).status).toBe(200);
    expect((await call(`/tables/${s.table}/entries?page=2`)).status).toBe(200);
    expect((await call('/responses', 'B')).status).toBe(200);
    expect((await call('/responses')).status).toBe(200); // Style A (the key's default)
    expect((await call('/forms')).status).toBe(200); // Style A only

    const res = await until(
      () => report(s.ws, clientId, s.key),
      (r) => (r.body.data?.operations as ReportedOperation[] | undefined)?.reduce((n, o) => n + o.requests, 0) === 3,
      5000,
    );
    expect(res.status).toBe(200);
    expect(res.headers['x-api-style']).toBe('A');
    const data = res.body.data;
    expect(data).toMatchObject({
      key_id: clientId,
      default_style: 'A',
      deprecation: '2026-09-02',
      sunset: '2027-03-01',
      window: { days: 30, to: today() },
      verdict: { no_style_b_calls: false },
    });
    expect(data.verdict.message).toMatch(/^3 Style B requests to 2 operations in the last 30 days/);
    const ops = data.operations as ReportedOperation[];
    expect(ops.map((o) => [o.operation, o.requests, o.style_a.operation, o.status])).toEqual([
      ['listTableEntriesB', 2, 'listDatatableRows', 'ready'],
      ['listResponses', 1, 'listResponses', 'ready'],
    ]);
    expect(ops[0]).toMatchObject({ method: 'GET', path: '/api/v1/workspaces/{workspace_id}/tables/{table_id}/entries' });
    expect(ops[0]!.style_a.path).toBe('/api/v1/workspaces/{workspace_id}/datatables/{datatable_id}/rows');
    expect(ops[0]!.style_a.params).toContainEqual(expect.objectContaining({ b: 'table_id', a: 'datatable_id' }));
    expect(ops[1]!.style_a.params).toContainEqual(expect.objectContaining({ b: 'filter' }));
    for (const o of ops as unknown as Array<{ first_seen: string; last_seen: string }>) {
      expect(Date.parse(o.first_seen)).toBeLessThanOrEqual(Date.parse(o.last_seen));
      expect(Math.abs(Date.parse(o.last_seen) - Date.now())).toBeLessThan(60_000);
    }
  });

  it('marks an operation attention, with the reason and its share, when some of its Style B requests have no mechanical translation', async () => {
    const s = await scenario(db, { responseCount: 3 });
    const client = await keyFor(db, [s.ws], { scopes: ['responses:read'] });
    const clientId = await keyIdOf(db, client);
    const list = (query: string) => supertest(app).get(`/api/v1/workspaces/${s.ws}/responses${query}`).set('X-API-Key', client).set('X-API-Style', 'B');
    // Translates (score_gte/score_lte); then two that do not: several sort fields, and an in list with null.
    expect((await list('?filter=score%20in%20%5B9%2C10%5D')).status).toBe(200);
    expect((await list('?sort=score:asc,created_at:desc')).status).toBe(200);
    expect((await list('?filter=email_id%20in%20%5Bem_x%2C%20null%5D')).status).toBe(200);
    // Style B refuses this one itself (400): counted, but no migration gap.
    expect((await list('?filter=nope%20%3D%201')).status).toBe(400);

    const res = await until(
      () => report(s.ws, clientId, s.key),
      (r) => (r.body.data?.operations as ReportedOperation[] | undefined)?.[0]?.requests === 4,
      5000,
    );
    const op = res.body.data.operations[0] as ReportedOperation & { reason: string | null };
    expect(op).toMatchObject({ operation: 'listResponses', requests: 4, status: 'attention' });
    expect(op.reason).toBe('1 of 4 requests: query.filter: an in list holding null and values; 1 of 4 requests: query.sort: several sort fields');
    expect(res.body.data.verdict.message).toMatch(/1 of them need attention/);
  });

  it('says so when a key made no Style B call; days bounds the window and must be 1–400', async () => {
    const { ws, key } = await workspaceWithKey(db);
    const id = await keyIdOf(db, key);
    const day = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);
    const at = (d: string) => new Date(`${d}T10:00:00Z`);
    await db('api_key_operation_usage').insert([
      { api_key_id: id, day: day(40), style: 'B', operation: 'listTablesB', requests: 4, first_seen: at(day(40)), last_seen: at(day(40)) },
      { api_key_id: id, day: day(41), style: 'B', operation: 'listTablesB', requests: 1, first_seen: at(day(41)), last_seen: at(day(41)) },
      { api_key_id: id, day: day(3), style: 'A', operation: 'listForms', requests: 9, first_seen: at(day(3)), last_seen: at(day(3)) },
    ]);
    const recent = await report(ws, id, key);
    expect(recent.body.data.operations).toEqual([]);
    expect(recent.body.data.window).toEqual({ days: 30, from: day(29), to: today() });
    expect(recent.body.data.verdict).toEqual({
      no_style_b_calls: true,
      message: "No Style B call in the last 30 days: this key's clients already call Style A only.",
    });
    const longer = await report(ws, id, key, '?days=400');
    expect(longer.body.data.operations).toMatchObject([
      { operation: 'listTablesB', requests: 5, first_seen: `${day(41)}T10:00:00.000Z`, last_seen: `${day(40)}T10:00:00.000Z`, status: 'ready' },
    ]);
    expect(longer.body.data.verdict.no_style_b_calls).toBe(false);
    for (const bad of ['0', '401', 'x']) {
      const r = await report(ws, id, key, `?days=${bad}`);
      expect(r.status).toBe(400);
      expect(r.body.error.details[0]).toMatchObject({ location: 'query', field: 'days' });
    }
  });

  it("answers 404 for a key of another workspace; a key reads its own report without api_keys:read, not another key's", async () => {
    const a = await workspaceWithKey(db);
    const b = await workspaceWithKey(db);
    const bId = await keyIdOf(db, b.key);
    const foreign = await report(a.ws, bId, a.key);
    expect([foreign.status, foreign.body.error.code]).toEqual([404, 'resource_not_found']);
    const limited = await keyFor(db, [a.ws], { scopes: ['forms:read'] });
    const limitedId = await keyIdOf(db, limited);
    const own = await report(a.ws, limitedId, limited);
    expect(own.status).toBe(200);
    expect(own.body.data.key_id).toBe(limitedId);
    const other = await report(a.ws, await keyIdOf(db, a.key), limited);
    expect([other.status, other.body.error.code]).toEqual([403, 'insufficient_scope']);
    // Its own usage list still needs the scope: only the report is open to its own key.
    const usage = await supertest(app).get(`/api/v1/workspaces/${a.ws}/api-keys/${limitedId}/usage`).set('X-API-Key', limited);
    expect(usage.status).toBe(403);
  });
});
