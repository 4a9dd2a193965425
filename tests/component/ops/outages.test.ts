/**
 * docs/operations.md, "Outages": an unreachable database gives 503 service_unavailable (envelope,
 * Retry-After) within 5 s and the service recovers by itself; a hanging Redis still lets requests answer
 * within 2 s, logged once per outage.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Writable } from 'node:stream';
import Redis from 'ioredis';
import pino from 'pino';
import supertest from 'supertest';
import { buildApp } from '../../../src/app';
import { createDb, type Db } from '../../../src/db/connection';
import { createLogger } from '../../../src/platform/logger';
import { createRedis } from '../../../src/platform/redis';
import { testConfig } from '../../support/app';
import { openTestDb, testDbUrl } from '../../support/db';
import { declaredHeaderProblems } from '../../support/openapi-ops';
import { scenario, workspaceWithKey } from '../../support/given';
import { freePort, silentServer, TcpProxy, until, urlOnPort } from './helpers';

const silent = createLogger('silent');
let db: Db;
beforeAll(async () => {
  db = await openTestDb();
});
afterAll(async () => {
  await db.destroy();
});

const expectUnavailable = (res: supertest.Response) => {
  expect(res.status).toBe(503);
  expect(res.body).toEqual({
    error: {
      code: 'service_unavailable',
      message: 'The service is temporarily unavailable (its database cannot be reached); retry in 5 s.',
      status: 503,
    },
    request_id: res.headers['x-request-id'],
  });
  expect(res.headers['retry-after']).toBe('5');
};

describe('database unreachable', () => {
  it('answers 503 service_unavailable with Retry-After at once when nothing listens on its port', async () => {
    const down = createDb({ databaseUrl: urlOnPort(testDbUrl(), await freePort()), dataDir: '', requestTimeouts: true });
    try {
      const app = buildApp(testConfig(), { db: down, logger: silent });
      const request = () =>
        supertest(app)
          .get('/api/v1/workspaces')
          .set('X-API-Key', `fa_${'x'.repeat(40)}`);
      // A new app's first request shares the event loop with its start-up work: time the second one.
      expectUnavailable(await request());
      const started = Date.now();
      const res = await request();
      expect(Date.now() - started).toBeLessThan(5000);
      expectUnavailable(res);
      // Down during the key lookup: Retry-After (required), no rate-limit headers (declared as sent only once counted).
      expect(declaredHeaderProblems('GET', '/api/v1/workspaces', res.status, res.headers)).toEqual([]);
      expect(res.headers['x-ratelimit-limit']).toBeUndefined();
    } finally {
      await down.destroy();
    }
  });

  it('answers a hosted form page with a 503 HTML page and Retry-After, not a 500', async () => {
    const down = createDb({ databaseUrl: urlOnPort(testDbUrl(), await freePort()), dataDir: '', requestTimeouts: true });
    try {
      const app = buildApp(testConfig(), { db: down, logger: silent });
      await supertest(app).get('/f/frm_any');
      const started = Date.now();
      const res = await supertest(app).get('/f/frm_any');
      expect(Date.now() - started).toBeLessThan(5000);
      expect(res.status).toBe(503);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers['retry-after']).toBe('5');
      expect(res.text).toContain('<html lang="en">');
      expect(declaredHeaderProblems('GET', '/f/{form_id}', res.status, res.headers)).toEqual([]);
    } finally {
      await down.destroy();
    }
  });

  it('answers 503 within 5 s, never hangs, when the database accepts connections but never answers', async () => {
    const hanging = await silentServer();
    const stuck = createDb({ databaseUrl: urlOnPort(testDbUrl(), hanging.port), dataDir: '', requestTimeouts: true });
    try {
      const app = buildApp(testConfig(), { db: stuck, logger: silent });
      const request = () =>
        supertest(app)
          .get('/api/v1/workspaces')
          .set('X-API-Key', `fa_${'x'.repeat(40)}`);
      expectUnavailable(await request());
      const started = Date.now();
      const res = await request();
      expect(Date.now() - started).toBeLessThan(5000);
      expectUnavailable(res);
    } finally {
      await stuck.destroy();
      await hanging.close();
    }
  });

  it('recovers by itself when the database comes back (a proxy to it cut and restored)', async () => {
    const target = new URL(testDbUrl());
    const proxy = new TcpProxy(await freePort(), { host: target.hostname, port: Number(target.port || 5432) });
    await proxy.start();
    const viaProxy = createDb({ databaseUrl: urlOnPort(testDbUrl(), proxy.port), dataDir: '', requestTimeouts: true });
    try {
      const { ws, key } = await workspaceWithKey(db);
      const app = buildApp(testConfig(), { db: viaProxy, logger: silent });
      const get = () => supertest(app).get(`/api/v1/workspaces/${ws}`).set('X-API-Key', key);
      expect((await get()).status).toBe(200);

      await proxy.stop();
      const started = Date.now();
      const during = await get();
      expect(Date.now() - started).toBeLessThan(5000);
      expectUnavailable(during);
      expectUnavailable(await get());
      expect((await supertest(app).get('/readyz')).body).toEqual({ status: 'unavailable', checks: { database: 'down', redis: 'absent' } });

      await proxy.start();
      let after = await get();
      for (let i = 0; i < 20 && after.status !== 200; i++) {
        await new Promise((r) => setTimeout(r, 100));
        after = await get();
      }
      expect(after.status).toBe(200);
      expect(after.body.data.id).toBe(ws);
      expect((await supertest(app).get('/readyz')).status).toBe(200);
    } finally {
      await viaProxy.destroy();
      await proxy.stop();
    }
  });
});

describe('Redis hanging', () => {
  let child: ChildProcess | undefined;
  afterAll(() => {
    if (child && child.exitCode === null) {
      child.kill('SIGCONT');
      child.kill('SIGKILL');
    }
  });

  it('still answers within 2 s (in-process fallback) and logs the outage once at warn, and its end once', async () => {
    const port = await freePort();
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    await until(async () => {
      const probe = new Redis(port, '127.0.0.1', { lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
      probe.on('error', () => undefined);
      const up = await probe.connect().then(
        () => true,
        () => false,
      );
      probe.disconnect();
      return up;
    });
    const lines: Array<{ level: number; msg: string }> = [];
    const logger = pino({ level: 'info' }, new Writable({ write: (chunk, _enc, cb) => (lines.push(JSON.parse(String(chunk))), cb()) }));
    const redis = createRedis(`redis://127.0.0.1:${port}`, logger);
    try {
      await until(() => redis.status === 'ready');
      const app = buildApp(testConfig({ rateLimitPerMinute: 50 }), { db, logger: silent, redis });
      const s = await scenario(db, { responseCount: 0 });
      expect((await supertest(app).get(`/api/v1/workspaces/${s.ws}`).set('X-API-Key', s.key)).status).toBe(200);
      const write = (i: number) =>
        supertest(app)
          .post(`/api/v1/workspaces/${s.ws}/datatables/${s.table}/rows`)
          .set('X-API-Key', s.key)
          .set('Idempotency-Key', `hanging-${i}`)
          .send({ data: { plan: 'x' } });
      expect((await write(-1)).status).toBe(201); // the validator compiles the route before the clock runs

      child.kill('SIGSTOP'); // Redis keeps its connections open and stops answering.
      // The first requests wait up to 500 ms per Redis command; once the 2 s ping has found the hang, none.
      for (let i = 0; i < 8; i++) {
        const started = Date.now();
        const res = await write(i);
        expect(Date.now() - started).toBeLessThan(2000);
        expect(res.status).toBe(201);
        expect(res.headers['x-ratelimit-limit']).toBe('50');
      }
      expect((await supertest(app).get('/readyz')).body.checks).toEqual({ database: 'ok', redis: 'down' });
      await until(() => lines.some((l) => l.level === 40));
      child.kill('SIGCONT');
      await until(() => lines.some((l) => /Redis is back/.test(l.msg)), 6000);
      const warnings = lines.filter((l) => l.level === 40);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]!.msg).toMatch(/^Redis unavailable: .*in-process/);
      expect(lines.filter((l) => /Redis is back/.test(l.msg))).toHaveLength(1);
      expect((await supertest(app).get('/readyz')).status).toBe(200);
    } finally {
      redis.disconnect();
    }
  });
});
