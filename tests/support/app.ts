/**
 * One app per test file, built with buildApp on the run's database and the real Redis, with
 * response validation against openapi/ switched on: every response a test receives has passed it.
 */
import type { Express } from 'express';
import Redis from 'ioredis';
import { nanoid } from 'nanoid';
import supertest from 'supertest';
import { buildApp, stopAppBackground } from '../../src/app';
import { loadConfig, type Config } from '../../src/config';
import type { Db } from '../../src/db/connection';
import { settleFollowUps } from '../../src/db/follow-up';
import { createLogger } from '../../src/platform/logger';
import { createRateLimiter } from '../../src/platform/rate-limit';
import { openTestDb } from './db';

export interface TestContext {
  app: Express;
  db: Db;
  redis: Redis;
  /** supertest bound to the app. */
  http: () => supertest.Agent;
}

export function testConfig(overrides: Partial<Config> = {}): Config {
  return loadConfig({ validateResponses: true, rateLimitPerMinute: 10_000, authFailuresPerMinute: 10_000, logLevel: 'silent', ...overrides }, {});
}

/** Registers beforeAll/afterAll that build the app; read the fields inside tests. */
export function useTestApp(overrides: Partial<Config> = {}): TestContext {
  const ctx = {} as TestContext;
  beforeAll(async () => {
    const url = process.env.TEST_REDIS_URL;
    if (!url) throw new Error('TEST_REDIS_URL is not set: run the tests through jest (global-setup finds Redis).');
    ctx.db = await openTestDb();
    ctx.redis = new Redis(url, { enableOfflineQueue: true, maxRetriesPerRequest: 1 });
    // Until Redis is ready the limiter counts in-process: wait, so budgets are Redis's from the first request.
    if (ctx.redis.status !== 'ready') await new Promise((resolve) => ctx.redis.once('ready', resolve));
    const logger = createLogger('silent');
    // A fresh prefix per file, so budgets never leak between files or runs.
    const limiter = createRateLimiter({ redis: ctx.redis, logger, prefix: `fs-test-${nanoid(8)}` });
    ctx.app = buildApp(testConfig(overrides), { db: ctx.db, logger, redis: ctx.redis, limiter });
    ctx.http = () => supertest.agent(ctx.app);
  });
  afterAll(async () => {
    if (ctx.app) await stopAppBackground(ctx.app);
    // The audit seals the last writes started (docs/security.md, "The audit trail") end before the pool does.
    if (ctx.db) await settleFollowUps(ctx.db);
    await ctx.db?.destroy();
    ctx.redis?.disconnect();
  });
  return ctx;
}
