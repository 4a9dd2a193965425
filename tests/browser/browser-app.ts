/**
 * Browser tests: the test app (buildApp as in tests/support/app.ts, response validation on) listening
 * on a free port, PUBLIC_URL pointing at it (so minted links open in the browser), and one headless
 * Chromium per file (Debian's /usr/bin/chromium through playwright-core).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Redis from 'ioredis';
import { nanoid } from 'nanoid';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import supertest from 'supertest';
import { buildApp } from '../../src/app';
import type { Db } from '../../src/platform/db/connection';
import { createLogger } from '../../src/platform/logger';
import { createRateLimiter } from '../../src/platform/rate-limit';
import { testConfig } from '../support/app';
import { openTestDb } from '../support/db';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

export interface BrowserContextHandle {
  db: Db;
  baseUrl: string;
  browser: Browser;
  /** supertest against the listening app (API reads in the tests). */
  http: () => supertest.Agent;
  /** A fresh browser context and page (cookies and cache of its own). */
  newPage(opts?: { width?: number; locale?: string }): Promise<{ context: BrowserContext; page: Page }>;
}

export function useBrowserApp(): BrowserContextHandle {
  const ctx = {} as BrowserContextHandle;
  let server: http.Server;
  let redis: Redis;
  beforeAll(async () => {
    const url = process.env.TEST_REDIS_URL;
    if (!url) throw new Error('TEST_REDIS_URL is not set: run the tests through jest (global-setup finds Redis).');
    server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    ctx.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    ctx.db = await openTestDb();
    redis = new Redis(url, { enableOfflineQueue: true, maxRetriesPerRequest: 1 });
    const logger = createLogger('silent');
    const limiter = createRateLimiter({ redis, logger, prefix: `fs-test-${nanoid(8)}` });
    const app = buildApp(testConfig({ publicUrl: ctx.baseUrl }), { db: ctx.db, logger, redis, limiter });
    server.on('request', app);
    ctx.http = () => supertest.agent(ctx.baseUrl);
    ctx.browser = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
    });
    ctx.newPage = async (opts = {}) => {
      const context = await ctx.browser.newContext({
        viewport: { width: opts.width ?? 1280, height: 900 },
        locale: opts.locale ?? 'en-US',
        javaScriptEnabled: false,
      });
      const page = await context.newPage();
      page.setDefaultTimeout(5000);
      return { context, page };
    };
  }, 30_000);
  afterAll(async () => {
    await ctx.browser?.close();
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await ctx.db?.destroy();
    redis?.disconnect();
  });
  return ctx;
}
