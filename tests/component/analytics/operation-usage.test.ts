/**
 * Usage per operation (docs/analytics.md, "Usage per operation"): every authenticated request counted per
 * key, UTC day, answer style and operationId in `api_key_operation_usage` within the flush interval (here
 * 200 ms), beside the unchanged per-style counts; both styles of a shared path apart; no count without a
 * valid key; several flushes add up and keep the first and last instant. /metrics shows the same counts
 * as `api_requests_by_style_total{style,operation}`.
 */
import type { Express } from 'express';
import supertest from 'supertest';
import { buildApp, stopAppBackground } from '../../../src/app';
import { createMetrics } from '../../../src/platform/metrics';
import { createLogger } from '../../../src/platform/logger';
import { createUsageCounter } from '../../../src/platform/usage-counter';
import { testConfig, useTestApp } from '../../support/app';
import { scenario } from '../../support/given';
import { keyIdOf, until } from './helpers';

const ctx = useTestApp();
const FLUSH_MS = 200;
let app: Express;

beforeAll(() => {
  const logger = createLogger('silent');
  const metrics = createMetrics();
  const usage = createUsageCounter({ db: ctx.db, logger, intervalMs: FLUSH_MS, onCount: (s, o) => metrics.requestByStyle(s, o) });
  app = buildApp(testConfig(), { db: ctx.db, logger, usage, metrics });
});
afterAll(() => stopAppBackground(app));

interface Row {
  style: string;
  operation: string;
  requests: number;
  first_seen: Date;
  last_seen: Date;
}
const rowsOf = async (keyId: string): Promise<Row[]> =>
  ((await ctx.db('api_key_operation_usage').where('api_key_id', keyId).orderBy(['style', 'operation'])) as Row[]).map((r) => ({
    ...r,
    requests: Number(r.requests),
  }));

/** Parses one sample of the text format (undefined when absent). */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const have = Object.fromEntries([...(/\{([^}]*)\}/.exec(line)?.[1] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.keys(labels).length === Object.keys(have).length && Object.entries(labels).every(([k, v]) => have[k] === v))
      return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

describe('usage per operation', () => {
  it('counts each request per style and operationId within the flush interval, both styles of a shared path apart', async () => {
    const s = await scenario(ctx.db, { responseCount: 3 });
    const id = await keyIdOf(ctx.db, s.key);
    const base = `/api/v1/workspaces/${s.ws}`;
    const get = (path: string, style?: string) => {
      const r = supertest(app).get(`${base}${path}`).set('X-API-Key', s.key);
      return style ? r.set('X-API-Style', style) : r;
    };
    const statuses = [
      (await get('/responses')).status, // A (key default): listResponses
      (await get('/responses', 'B')).status, // B: listResponses
      (await get('/responses?page=1')).status, // B (style-only parameter)
      (await get(`/tables/${s.table}/entries`)).status, // B path
      (await get('/forms/nope')).status, // A, 404 of a known operation
      (await get('/nowhere')).status, // an unknown path: unmatched
    ];
    expect(statuses).toEqual([200, 200, 200, 200, 404, 404]);
    const started = Date.now();
    const rows = await until(
      () => rowsOf(id),
      (r) => r.reduce((n, x) => n + x.requests, 0) === 6,
      5000,
    );
    expect(Date.now() - started).toBeLessThan(FLUSH_MS * 5);
    expect(rows.map((r) => [r.style, r.operation, r.requests])).toEqual([
      ['A', 'getForm', 1],
      ['A', 'listResponses', 1],
      ['A', 'unmatched', 1],
      ['B', 'listResponses', 2],
      ['B', 'listTableEntriesB', 1],
    ]);
    for (const r of rows) {
      expect(r.first_seen.getTime()).toBeLessThanOrEqual(r.last_seen.getTime());
      expect(Math.abs(r.last_seen.getTime() - Date.now())).toBeLessThan(60_000);
    }
    // Today's per-style counts are what they were.
    const perStyle = await ctx.db('api_key_usage').where('api_key_id', id).orderBy('style').select('style', 'requests');
    expect(perStyle.map((r: { style: string; requests: unknown }) => [r.style, Number(r.requests)])).toEqual([
      ['A', 3],
      ['B', 3],
    ]);
  });

  it('adds up across flushes, keeping the first and the last instant seen', async () => {
    const s = await scenario(ctx.db, { responseCount: 1 });
    const id = await keyIdOf(ctx.db, s.key);
    await supertest(app).get(`/api/v1/workspaces/${s.ws}/forms`).set('X-API-Key', s.key).expect(200);
    const first = await until(
      () => rowsOf(id),
      (r) => r.length === 1,
      5000,
    );
    await new Promise((r) => setTimeout(r, 20));
    await supertest(app).get(`/api/v1/workspaces/${s.ws}/forms`).set('X-API-Key', s.key).expect(200);
    const [second] = await until(
      () => rowsOf(id),
      (r) => r[0]?.requests === 2,
      5000,
    );
    expect(second!.first_seen.getTime()).toBe(first[0]!.first_seen.getTime());
    expect(second!.last_seen.getTime()).toBeGreaterThan(first[0]!.last_seen.getTime());
  });

  it('counts no request without a valid key', async () => {
    // Its own counter and app: the shared test database takes other files' counts at the same time.
    const counted: string[] = [];
    const logger = createLogger('silent');
    const usage = createUsageCounter({ db: ctx.db, logger, intervalMs: FLUSH_MS, onCount: (st, o) => counted.push(`${st} ${o}`) });
    const own = buildApp(testConfig(), { db: ctx.db, logger, usage });
    try {
      const s = await scenario(ctx.db, { responseCount: 1 });
      await supertest(own).get(`/api/v1/workspaces/${s.ws}/responses`).expect(401);
      await supertest(own).get(`/api/v1/workspaces/${s.ws}/tables`).set('X-API-Key', 'fa_unknown_key_00000000000000000000000').expect(401);
      expect(counted).toEqual([]);
      // The same counter does count a request with a valid key (the check above can fail).
      await supertest(own).get(`/api/v1/workspaces/${s.ws}/forms`).set('X-API-Key', s.key).expect(200);
      expect(counted).toEqual(['A listForms']);
      const id = await keyIdOf(ctx.db, s.key);
      const rows = await until(
        () => rowsOf(id),
        (r) => r.length === 1,
        5000,
      );
      expect(rows.map((r) => [r.style, r.operation, r.requests])).toEqual([['A', 'listForms', 1]]);
    } finally {
      await stopAppBackground(own);
    }
  });
});

describe('api_requests_by_style_total', () => {
  it('counts authenticated requests by style and operationId (or unmatched), none without a key', async () => {
    const s = await scenario(ctx.db, { responseCount: 1 });
    const base = `/api/v1/workspaces/${s.ws}`;
    const http = ctx.http();
    await http.get(`${base}/responses`).set('X-API-Key', s.key).expect(200);
    await http.get(`${base}/responses`).set('X-API-Key', s.key).set('X-API-Style', 'B').expect(200);
    await http.get(`${base}/responses`).set('X-API-Key', s.key).set('X-API-Style', 'B').expect(200);
    await http.get(`${base}/tables`).set('X-API-Key', s.key).expect(200);
    await http.get('/nowhere').set('X-API-Key', s.key).expect(404);
    await http.get(`${base}/tables`).expect(401);
    const text = (await http.get('/metrics').expect(200)).text;
    expect(text).toContain('# TYPE api_requests_by_style_total counter');
    expect(sample(text, 'api_requests_by_style_total', { style: 'A', operation: 'listResponses' })).toBe(1);
    expect(sample(text, 'api_requests_by_style_total', { style: 'B', operation: 'listResponses' })).toBe(2);
    expect(sample(text, 'api_requests_by_style_total', { style: 'B', operation: 'listTablesB' })).toBe(1);
    expect(sample(text, 'api_requests_by_style_total', { style: 'A', operation: 'unmatched' })).toBe(1);
    // The 401 and /metrics itself (no key) are not counted.
    expect(sample(text, 'api_requests_by_style_total', { style: 'A', operation: 'getMetrics' })).toBeUndefined();
    expect(sample(text, 'api_requests_by_style_total', { style: 'B', operation: 'listTablesB' })).toBe(1);
    expect(text).not.toContain(s.ws);
  });
});
