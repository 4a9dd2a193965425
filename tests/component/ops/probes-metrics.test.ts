/**
 * docs/operations.md, "Probes", "Metrics": /healthz, /readyz (database and Redis, 1 s budget) and /metrics (Prometheus text,
 * route templates, style, refusals, auth failures, pool, default metrics; 404 with METRICS off).
 */
import supertest from 'supertest';
import { buildApp } from '../../../src/app';
import { createDb, type Db } from '../../../src/db/connection';
import { createLogger } from '../../../src/platform/logger';
import { createRedis } from '../../../src/platform/redis';
import { testConfig, useTestApp } from '../../support/app';
import { testDbUrl } from '../../support/db';
import { scenario, workspaceWithKey } from '../../support/given';
import { freePort, silentServer, urlOnPort } from './helpers';

const silent = createLogger('silent');
// A small missing-key budget: the probes and /metrics must stay outside it.
const t = useTestApp({ authFailuresPerMinute: 3 });

describe('GET /healthz', () => {
  it('answers 200 {"status":"ok"} without a key, without rate-limit headers', async () => {
    const res = await t.http().get('/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
    expect(res.headers['x-request-id']).toMatch(/^req_[A-Za-z0-9_-]{20}$/);
    expect(res.headers['x-api-style']).toBe('A');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['x-ratelimit-limit']).toBeUndefined();
  });
});

describe('GET /readyz', () => {
  it('answers 200 with database and redis "ok" when both answer', async () => {
    const res = await t.http().get('/readyz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok', checks: { database: 'ok', redis: 'ok' } });
  });

  it('reports redis "absent" when the service runs without Redis', async () => {
    const app = buildApp(testConfig(), { db: t.db, logger: silent });
    const res = await supertest(app).get('/readyz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok', checks: { database: 'ok', redis: 'absent' } });
  });

  it('answers 503 naming the database when it is down (nothing listens on its port)', async () => {
    const down = createDb({ databaseUrl: urlOnPort(testDbUrl(), await freePort()), dataDir: '', requestTimeouts: true });
    try {
      const app = buildApp(testConfig(), { db: down, logger: silent, redis: t.redis });
      const res = await supertest(app).get('/readyz');
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ status: 'unavailable', checks: { database: 'down', redis: 'ok' } });
    } finally {
      await down.destroy();
    }
  });

  it('answers 503 within about 1 s when the database hangs, and names Redis when it is down', async () => {
    const hanging = await silentServer();
    const db: Db = createDb({ databaseUrl: urlOnPort(testDbUrl(), hanging.port), dataDir: '', requestTimeouts: true });
    const redis = createRedis(`redis://127.0.0.1:${await freePort()}`, silent);
    try {
      const app = buildApp(testConfig(), { db, logger: silent, redis });
      // A new app's first request shares the event loop with its start-up work: time the second one.
      await supertest(app).get('/readyz');
      const started = Date.now();
      const res = await supertest(app).get('/readyz');
      expect(Date.now() - started).toBeLessThan(1800);
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ status: 'unavailable', checks: { database: 'down', redis: 'down' } });
      const onlyRedis = await supertest(buildApp(testConfig(), { db: t.db, logger: silent, redis })).get('/readyz');
      expect(onlyRedis.status).toBe(503);
      expect(onlyRedis.body).toEqual({ status: 'unavailable', checks: { database: 'ok', redis: 'down' } });
    } finally {
      redis.disconnect();
      await db.destroy();
      await hanging.close();
    }
  });
});

/** The value of one sample line of the text format, or undefined. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const body = /\{([^}]*)\}/.exec(line)?.[1] ?? '';
    const have = Object.fromEntries([...body.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

describe('GET /metrics', () => {
  it('counts requests by route template (never the raw id), status and style, refusals and auth failures', async () => {
    const s = await scenario(t.db, { responseCount: 1 });
    const limited = await workspaceWithKey(t.db, { rateLimitPerMinute: 2 });
    const http = t.http();
    await http.get(`/api/v1/workspaces/${s.ws}/responses`).set('X-API-Key', s.key).expect(200);
    await http.get(`/api/v1/workspaces/${s.ws}/responses?page=1`).set('X-API-Key', s.key).expect(200);
    await http.get(`/api/v1/workspaces/${s.ws}/responses/rsp_missing`).set('X-API-Key', s.key).expect(404);
    await http.get('/nowhere/at/all').set('X-API-Key', s.key).expect(404);
    await http.get(`/api/v1/workspaces/${s.ws}`).set('X-API-Key', 'fa_not_a_real_key_000000000000000000').expect(401);
    await http.get(`/api/v1/workspaces/ws_other`).set('X-API-Key', s.key).expect(403);
    for (let i = 0; i < 2; i++) await http.get(`/api/v1/workspaces/${limited.ws}`).set('X-API-Key', limited.key).expect(200);
    await http.get(`/api/v1/workspaces/${limited.ws}`).set('X-API-Key', limited.key).expect(429);
    // Past the missing-key budget of 3 (one used above): 429 per address.
    for (let i = 0; i < 3; i++) await http.get('/api/v1/workspaces');
    // The probes stay outside that budget.
    const before = sample((await http.get('/metrics')).text, 'http_requests_total', { route: '/healthz', status: '200' }) ?? 0;
    for (let i = 0; i < 3; i++) await http.get('/healthz').expect(200);

    const res = await http.get('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.headers['x-ratelimit-limit']).toBeUndefined();
    const text = res.text;
    const route = '/api/v1/workspaces/:workspace_id/responses';
    expect(sample(text, 'http_requests_total', { method: 'GET', route, status: '200', style: 'A' })).toBe(1);
    expect(sample(text, 'http_requests_total', { method: 'GET', route, status: '200', style: 'B' })).toBe(1);
    expect(sample(text, 'http_requests_total', { method: 'GET', route: `${route}/:response_id`, status: '404', style: 'A' })).toBe(1);
    expect(sample(text, 'http_requests_total', { method: 'GET', route: 'unmatched', status: '404' })).toBe(1);
    expect(sample(text, 'http_request_duration_seconds_count', { method: 'GET', route, status: '200', style: 'B' })).toBe(1);
    expect(sample(text, 'http_request_duration_seconds_bucket', { route, style: 'A', le: '+Inf' })).toBe(1);
    expect(sample(text, 'http_requests_total', { route: '/healthz', status: '200' })).toBe(before + 3);
    expect(sample(text, 'http_requests_total', { route: '/metrics', status: '200' })).toBeGreaterThanOrEqual(1);
    // Raw ids never become label values.
    expect(text).not.toContain(s.ws);
    expect(text).not.toContain('rsp_missing');
    expect(text).not.toContain('/nowhere');

    expect(sample(text, 'rate_limit_refusals_total', { kind: 'key' })).toBe(1);
    expect(sample(text, 'rate_limit_refusals_total', { kind: 'address' })).toBe(1);
    expect(sample(text, 'rate_limit_refusals_total', { kind: 'submission' })).toBe(0);
    expect(sample(text, 'auth_failures_total', { code: 'invalid_api_key' })).toBe(3);
    expect(sample(text, 'auth_failures_total', { code: 'workspace_access_denied' })).toBe(1);
    expect(sample(text, 'webhook_deliveries_total', { outcome: 'succeeded' })).toBe(0);
    expect(sample(text, 'webhook_queue_depth', {})).toBe(0);
    for (const state of ['used', 'idle', 'waiting']) {
      expect(sample(text, 'db_pool_connections', { state })).toBeGreaterThanOrEqual(0);
    }
    expect(sample(text, 'db_pool_connections', { state: 'idle' })! + sample(text, 'db_pool_connections', { state: 'used' })!).toBeGreaterThanOrEqual(1);
    // prom-client's default process metrics.
    expect(text).toMatch(/^process_cpu_user_seconds_total \d/m);
    expect(text).toMatch(/^nodejs_heap_size_used_bytes \d/m);
  });

  it('reports webhook deliveries and the queue depth through the functions the worker calls', async () => {
    const app = buildApp(testConfig(), { db: t.db, logger: silent });
    const metrics = (app.locals as { metrics: import('../../../src/platform/metrics').Metrics }).metrics;
    metrics.webhookDelivery('succeeded');
    metrics.webhookDelivery('retried');
    metrics.webhookDelivery('retried');
    metrics.rateLimitRefused('submission');
    metrics.setWebhookQueueDepthSource(async () => 7);
    const text = (await supertest(app).get('/metrics').expect(200)).text;
    expect(sample(text, 'webhook_deliveries_total', { outcome: 'succeeded' })).toBe(1);
    expect(sample(text, 'webhook_deliveries_total', { outcome: 'retried' })).toBe(2);
    expect(sample(text, 'webhook_deliveries_total', { outcome: 'failed' })).toBe(0);
    expect(sample(text, 'rate_limit_refusals_total', { kind: 'submission' })).toBe(1);
    expect(sample(text, 'webhook_queue_depth', {})).toBe(7);
  });

  it('is a 404 resource_not_found in the error envelope with METRICS=off', async () => {
    const app = buildApp(testConfig({ metricsEnabled: false }), { db: t.db, logger: silent });
    const res = await supertest(app).get('/metrics');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      error: { code: 'resource_not_found', message: 'No resource at GET /metrics.', status: 404 },
      request_id: res.headers['x-request-id'],
    });
  });
});
