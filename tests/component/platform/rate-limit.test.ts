import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { Writable } from 'node:stream';
import Redis from 'ioredis';
import { nanoid } from 'nanoid';
import pino from 'pino';
import supertest from 'supertest';
import { buildApp } from '../../../src/app';
import type { Config } from '../../../src/config';
import type { Db } from '../../../src/platform/db/connection';
import { createLogger } from '../../../src/platform/logger';
import { createRateLimiter } from '../../../src/platform/rate-limit';
import { createRedis } from '../../../src/platform/redis';
import { openTestDb } from '../../support/db';
import { testConfig } from '../../support/app';
import { scenario, workspaceWithKey } from '../../support/given';

let db: Db;
let redis: Redis;
const silent = createLogger('silent');
/** One app per instance is expensive (the validator compiles the document), so tests share this one. */
let shared: ReturnType<typeof buildApp>;
const sharedPrefix = `fs-rl-${nanoid(8)}`;
beforeAll(async () => {
  db = await openTestDb();
  redis = new Redis(process.env.TEST_REDIS_URL!, { enableOfflineQueue: true, maxRetriesPerRequest: 1 });
  shared = appWith({ rateLimitPerMinute: 60, authFailuresPerMinute: 3 }, sharedPrefix);
});
afterAll(async () => {
  await db.destroy();
  redis.disconnect();
});

/** An app on the shared test Redis with its own limiter prefix (or the given one). */
const appWith = (overrides: Partial<Config> = {}, prefix = `fs-rl-${nanoid(8)}`) =>
  buildApp(testConfig(overrides), { db, logger: silent, redis, limiter: createRateLimiter({ redis, logger: silent, prefix }) });

const expectRateHeaders = (res: supertest.Response, limit: number, remaining: number) => {
  expect(res.headers['x-ratelimit-limit']).toBe(String(limit));
  expect(res.headers['x-ratelimit-remaining']).toBe(String(remaining));
  const reset = Number(res.headers['x-ratelimit-reset']);
  const now = Date.now() / 1000;
  expect(reset).toBeGreaterThanOrEqual(Math.floor(now));
  expect(reset).toBeLessThanOrEqual(Math.ceil(now) + 61);
};

describe('per-key rate limit', () => {
  it('counts the current request in X-RateLimit-Remaining and refuses past the limit with 429 and Retry-After', async () => {
    const app = shared;
    const { ws, key } = await workspaceWithKey(db, { rateLimitPerMinute: 3 });
    const get = () => supertest(app).get(`/api/v1/workspaces/${ws}`).set('X-API-Key', key);
    expectRateHeaders(await get(), 3, 2);
    expectRateHeaders(await get(), 3, 1);
    // errors carry the headers too
    const notFound = await supertest(app).get(`/api/v1/workspaces/${ws}/forms/frm_missing`).set('X-API-Key', key);
    expect(notFound.status).toBe(404);
    expectRateHeaders(notFound, 3, 0);
    const refused = await get();
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ code: 'rate_limit_exceeded', status: 429 });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
    expectRateHeaders(refused, 3, 0);
  });

  it('uses RATE_LIMIT_PER_MINUTE for a key without a limit of its own (first request of 60 shows 59)', async () => {
    const app = shared;
    const { ws, key } = await workspaceWithKey(db);
    expectRateHeaders(await supertest(app).get(`/api/v1/workspaces/${ws}`).set('X-API-Key', key), 60, 59);
  });

  it('shares one budget between two instances on one Redis: the 61st request across both is a 429', async () => {
    const one = shared;
    const two = appWith({ rateLimitPerMinute: 60 }, sharedPrefix);
    const { ws, key } = await workspaceWithKey(db);
    for (let i = 0; i < 60; i++) {
      const res = await supertest(i % 2 ? two : one).get(`/api/v1/workspaces/${ws}`).set('X-API-Key', key);
      expect(res.status).toBe(200);
      expect(res.headers['x-ratelimit-remaining']).toBe(String(59 - i));
    }
    const refused = await supertest(two).get(`/api/v1/workspaces/${ws}`).set('X-API-Key', key);
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('rate_limit_exceeded');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expectRateHeaders(refused, 60, 0);
  });

  it('counts in-process when there is no Redis (REDIS_URL unset)', async () => {
    const app = buildApp(testConfig(), { db, logger: silent });
    const { ws, key } = await workspaceWithKey(db, { rateLimitPerMinute: 2 });
    const get = () => supertest(app).get(`/api/v1/workspaces/${ws}`).set('X-API-Key', key);
    expectRateHeaders(await get(), 2, 1);
    expectRateHeaders(await get(), 2, 0);
    const refused = await get();
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });
});

describe('per-address limit for missing or unknown keys', () => {
  it('answers 401 up to AUTH_FAILURES_PER_MINUTE, then 429 instead of 401; valid keys still pass', async () => {
    const app = shared;
    const res1 = await supertest(app).get('/api/v1/workspaces');
    expect(res1.status).toBe(401);
    expect(res1.body.error.code).toBe('invalid_api_key');
    expectRateHeaders(res1, 3, 2);
    expect((await supertest(app).get('/api/v1/workspaces').set('X-API-Key', 'fa_unknown')).status).toBe(401);
    expect((await supertest(app).get('/api/v1/workspaces').set('X-API-Key', 'nonsense')).status).toBe(401);
    const refused = await supertest(app).get('/api/v1/workspaces').set('X-API-Key', 'fa_guess');
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('rate_limit_exceeded');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    const { key } = await workspaceWithKey(db);
    expect((await supertest(app).get('/api/v1/workspaces').set('X-API-Key', key)).status).toBe(200);
  });
});

describe('when Redis fails', () => {
  let child: ChildProcess | undefined;
  let ownRedis: Redis | undefined;
  afterAll(() => {
    ownRedis?.disconnect();
    if (child && child.exitCode === null) child.kill('SIGKILL');
  });

  const freePort = () =>
    new Promise<number>((resolve, reject) => {
      const srv = net.createServer();
      srv.once('error', reject);
      srv.listen(0, '127.0.0.1', () => {
        const { port } = srv.address() as net.AddressInfo;
        srv.close(() => resolve(port));
      });
    });
  const until = async (check: () => boolean, ms = 5000) => {
    const end = Date.now() + ms;
    while (!check()) {
      if (Date.now() > end) throw new Error('timed out');
      await new Promise((r) => setTimeout(r, 25));
    }
  };

  it('keeps answering with the in-process insurance limiter (headers, no 5xx) and logs it', async () => {
    const port = await freePort();
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'], {
      stdio: 'ignore',
    });
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, new Writable({ write: (chunk, _enc, cb) => (lines.push(String(chunk)), cb()) }));
    ownRedis = createRedis(`redis://127.0.0.1:${port}`, logger);
    await until(() => ownRedis!.status === 'ready');
    const app = buildApp(testConfig({ rateLimitPerMinute: 50 }), { db, logger, redis: ownRedis });
    const s = await scenario(db, { responseCount: 0 });
    const get = () => supertest(app).get(`/api/v1/workspaces/${s.ws}`).set('X-API-Key', s.key);

    expectRateHeaders(await get(), 50, 49);
    child.kill('SIGKILL');
    await until(() => ownRedis!.status !== 'ready');

    const res = await get();
    expect(res.status).toBe(200);
    expect(res.headers['x-ratelimit-limit']).toBe('50');
    expect(Number(res.headers['x-ratelimit-remaining'])).toBeLessThan(50);
    const write = await supertest(app)
      .post(`/api/v1/workspaces/${s.ws}/datatables/${s.table}/rows`)
      .set('X-API-Key', s.key)
      .set('Idempotency-Key', 'while-redis-is-down')
      .send({ data: { plan: 'x' } });
    expect(write.status).toBe(201);
    expect(lines.join('\n')).toMatch(/in-process/);
  });
});
