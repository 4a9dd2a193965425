import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { Writable } from 'node:stream';
import Redis from 'ioredis';
import { nanoid } from 'nanoid';
import pino from 'pino';
import supertest from 'supertest';
import { buildApp } from '../../../src/app';
import type { Config } from '../../../src/config';
import type { Db } from '../../../src/db/connection';
import { createLogger } from '../../../src/platform/logger';
import { createRateLimiter } from '../../../src/platform/rate-limit';
import { createRedis, type RedisClient } from '../../../src/platform/redis';
import { openTestDb, testDbUrl } from '../../support/db';
import { testConfig } from '../../support/app';
import { declaredHeaderProblems } from '../../support/openapi-ops';
import { formWorkspace, goodAnswers, scenario, workspaceWithKey } from '../../support/given';
import { freePort } from '../ops/helpers';
import { cliJs } from '../../support/cli';
import { expectIetfRateLimitHeaders } from '../../support/headers';

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

/** The X-RateLimit-* values, and the draft's RateLimit-Policy and RateLimit parsed against them (budget `policy`). */
const expectRateHeaders = (res: supertest.Response, limit: number, remaining: number, policy: 'key' | 'address' = 'key') => {
  expectIetfRateLimitHeaders(res.headers, policy);
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
    expect(declaredHeaderProblems('GET', '/api/v1/workspaces/{workspace_id}', 429, refused.headers)).toEqual([]);
  });

  it('answers the 429 of a key in the style the request is answered in: a Style B key on a shared path gets X-API-Style: B', async () => {
    // docs/migrating-between-styles.md, "How the style is chosen": once the key is known, the style the request is answered in.
    const { ws, key } = await workspaceWithKey(db, { rateLimitPerMinute: 2, style: 'B' });
    const get = (header?: string) => {
      const req = supertest(shared).get(`/api/v1/workspaces/${ws}/responses`).set('X-API-Key', key);
      return header === undefined ? req : req.set('X-API-Style', header);
    };
    expect([(await get()).status, (await get()).status]).toEqual([200, 200]);
    const refused = await get();
    expect([refused.status, refused.body.error.code, refused.headers['x-api-style']]).toEqual([429, 'rate_limit_exceeded', 'B']);
    const asked = await get('A');
    expect([asked.status, asked.headers['x-api-style']]).toEqual([429, 'A']);
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
      const res = await supertest(i % 2 ? two : one)
        .get(`/api/v1/workspaces/${ws}`)
        .set('X-API-Key', key);
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
    expectRateHeaders(res1, 3, 2, 'address');
    expect((await supertest(app).get('/api/v1/workspaces').set('X-API-Key', 'fa_unknown')).status).toBe(401);
    expect((await supertest(app).get('/api/v1/workspaces').set('X-API-Key', 'nonsense')).status).toBe(401);
    const refused = await supertest(app).get('/api/v1/workspaces').set('X-API-Key', 'fa_guess');
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('rate_limit_exceeded');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(declaredHeaderProblems('GET', '/api/v1/workspaces', 429, refused.headers)).toEqual([]);
    const { key } = await workspaceWithKey(db);
    expect((await supertest(app).get('/api/v1/workspaces').set('X-API-Key', key)).status).toBe(200);
  });
});

describe('when Redis fails', () => {
  let child: ChildProcess | undefined;
  let ownRedis: RedisClient | undefined;
  afterAll(() => {
    ownRedis?.disconnect();
    if (child && child.exitCode === null) child.kill('SIGKILL');
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

/**
 * `serve` (the CLI, a child process) on the test database with `env`; resolves once it logs that it
 * listens, with its base URL and the JSON log lines it has written so far and later.
 */
async function startServe(env: Record<string, string>): Promise<{ url: string; log: Array<{ level: number; msg: string }>; stop(): Promise<void> }> {
  const port = await freePort();
  const proc = spawn(process.execPath, [cliJs, 'serve', '--no-worker', '--port', String(port)], {
    cwd: path.resolve(__dirname, '../../..'),
    env: { PATH: process.env.PATH ?? '', DATABASE_URL: testDbUrl(), LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log: Array<{ level: number; msg: string }> = [];
  let out = '';
  const stop = async () => {
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise((resolve) => proc.once('exit', resolve));
    proc.kill('SIGKILL');
    await exited;
  };
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${out}`)), 60_000);
    proc.stdout!.on('data', (c: Buffer) => {
      const lines = (out + c.toString()).split('\n');
      out = lines.pop()!;
      for (const line of lines) {
        log.push(JSON.parse(line) as { level: number; msg: string });
        if (log.at(-1)!.msg === 'feedback-service listening') {
          clearTimeout(timer);
          resolve();
        }
      }
    });
    proc.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    proc.once('exit', (code) => reject(new Error(`serve exited ${code}: ${out}`)));
  }).catch(async (err: unknown) => {
    await stop();
    throw err;
  });
  return { url: `http://127.0.0.1:${port}`, log, stop };
}

/**
 * The test Redis behind a loopback proxy that holds every connection (accepted, nothing forwarded: Redis
 * is up, but the client is not ready yet) until `release()`.
 */
async function heldRedis(): Promise<{ url: string; release(): void; close(): Promise<void> }> {
  const target = new URL(process.env.TEST_REDIS_URL!);
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const sockets = new Set<net.Socket>();
  const track = (s: net.Socket) => {
    sockets.add(s);
    s.on('error', () => undefined);
    s.on('close', () => sockets.delete(s));
  };
  const server = net.createServer((client) => {
    track(client);
    void released.then(() => {
      if (client.destroyed) return;
      const upstream = net.connect(Number(target.port || 6379), target.hostname);
      track(upstream);
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(target);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as net.AddressInfo).port);
  return {
    url: url.toString(),
    release,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A client address of its own (through TRUST_PROXY=loopback), so no other test or run shares its budgets. */
const freshAddress = () => `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.${1 + Math.floor(Math.random() * 250)}`;
const statuses = (answers: supertest.Response[]) => answers.map((r) => r.status).sort();
/** X-RateLimit-Remaining of the answers that were not refused, sorted. */
const remainingOfServed = (answers: supertest.Response[]) =>
  answers
    .filter((r) => r.status !== 429)
    .map((r) => r.headers['x-ratelimit-remaining'])
    .sort();
const redisWarnings = (log: Array<{ level: number; msg: string }>) => log.filter((l) => l.level >= 40 && /Redis/.test(l.msg));

describe('a server just started (docs/operations.md, "Redis at start")', () => {
  const budgets = { SUBMISSIONS_PER_MINUTE: '3', AUTH_FAILURES_PER_MINUTE: '3', TRUST_PROXY: 'loopback' };

  it('counts in Redis from the first request: bursts of 4 sent at once get 3 answers and a 429, and so does the next request', async () => {
    const w = await formWorkspace(db);
    const other = await formWorkspace(db);
    const limited = await workspaceWithKey(db, { rateLimitPerMinute: 3 });
    const [submitter, guesser] = [freshAddress(), freshAddress()];
    const redisProxy = await heldRedis();
    const server = await startServe({ REDIS_URL: redisProxy.url, ...budgets }).catch(async (err: unknown) => {
      await redisProxy.close();
      throw err;
    });
    try {
      const http = supertest(server.url);
      const submit = (form: string) => http.post(`/api/v1/forms/${form}/submissions`).set('X-Forwarded-For', submitter).send({ answers: goodAnswers() });
      const read = () => http.get(`/api/v1/workspaces/${limited.ws}`).set('X-API-Key', limited.key);
      const guess = (i: number) => http.get('/api/v1/workspaces').set('X-Forwarded-For', guesser).set('X-API-Key', `fa_guess${i}`);
      const idempotent = () => submit(other.form).set('Idempotency-Key', 'sent-on-start');
      const four = [0, 1, 2, 3];
      const bursts = Promise.all([
        Promise.all(four.map(() => submit(w.form))),
        Promise.all(four.map(() => read())),
        Promise.all(four.map((i) => guess(i))),
        idempotent(),
      ]);
      // Redis gets ready while the bursts are in the server: answered at once, they would be counted in-process.
      setTimeout(redisProxy.release, 100);
      const [submissions, reads, guesses, first] = await bursts;
      await new Promise((r) => setTimeout(r, 300));

      expect(statuses(submissions)).toEqual([201, 201, 201, 429]);
      expect(remainingOfServed(submissions)).toEqual(['0', '1', '2']);
      expect((await submit(w.form)).status).toBe(429);
      expect(statuses(reads)).toEqual([200, 200, 200, 429]);
      expect(remainingOfServed(reads)).toEqual(['0', '1', '2']);
      expect((await read()).status).toBe(429);
      expect(statuses(guesses)).toEqual([401, 401, 401, 429]);
      expect(remainingOfServed(guesses)).toEqual(['0', '1', '2']);
      expect((await guess(4)).status).toBe(429);
      // The Idempotency-Key of the first request was recorded in Redis: the retry replays it.
      expect(first.status).toBe(201);
      const retry = await idempotent();
      expect(retry.status).toBe(201);
      expect(retry.headers['idempotent-replayed']).toBe('true');
      expect(retry.body.data.id).toBe(first.body.data.id);
      expect(redisWarnings(server.log)).toEqual([]);
    } finally {
      await server.stop();
      await redisProxy.close();
    }
  }, 90_000);

  it('keeps Idempotency-Key records in Redis from the first request where no rate limit waited for Redis before', async () => {
    const redisProxy = await heldRedis();
    const ownRedis = createRedis(redisProxy.url, silent);
    try {
      // The rate limit counts in-process here: only the idempotency store waits for Redis.
      const app = buildApp(testConfig(), { db, logger: silent, redis: ownRedis, limiter: createRateLimiter({ logger: silent }) });
      const s = await scenario(db, { responseCount: 0 });
      const write = () =>
        supertest(app)
          .post(`/api/v1/workspaces/${s.ws}/datatables/${s.table}/rows`)
          .set('X-API-Key', s.key)
          .send({ data: { plan: 'x' } });
      expect((await write()).status).toBe(201); // the validator compiles the route (no Idempotency-Key yet)
      const first = write().set('Idempotency-Key', 'first-after-start');
      setTimeout(redisProxy.release, 300);
      expect((await first).status).toBe(201);
      const retry = await write().set('Idempotency-Key', 'first-after-start');
      expect(retry.status).toBe(201);
      expect(retry.headers['idempotent-replayed']).toBe('true');
      expect(retry.body).toEqual((await first).body);
    } finally {
      ownRedis.disconnect();
      await redisProxy.close();
    }
  });

  it('with Redis unreachable, answers within 2 s of start with the in-process fallback and logs one warning', async () => {
    const server = await startServe({ REDIS_URL: `redis://127.0.0.1:${await freePort()}`, ...budgets });
    try {
      const guesser = freshAddress();
      const guess = () => supertest(server.url).get('/api/v1/workspaces').set('X-Forwarded-For', guesser);
      const started = Date.now();
      const guesses = await Promise.all([0, 1, 2, 3].map(() => guess()));
      expect(Date.now() - started).toBeLessThan(2000);
      expect(statuses(guesses)).toEqual([401, 401, 401, 429]);
      expect(remainingOfServed(guesses)).toEqual(['0', '1', '2']);
      expect((await guess()).status).toBe(429);
      // The client keeps reconnecting in the background: still one warning for the whole outage.
      await new Promise((r) => setTimeout(r, 2000));
      const warnings = redisWarnings(server.log);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]!.msg).toMatch(/^Redis unavailable: .*in-process/);
    } finally {
      await server.stop();
    }
  }, 90_000);
});
