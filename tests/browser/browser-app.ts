/**
 * Browser tests: the test app (buildApp as in tests/support/app.ts, response validation on) listening
 * on a free port, PUBLIC_URL pointing at it (so minted links open in the browser), and one headless
 * Chromium per file (Debian's /usr/bin/chromium through playwright-core).
 *
 * Every page from `newPage` is watched, and each test fails after it ends when a page logged a console
 * error, threw (`pageerror`), or had a subresource fail or answer 400 or more (`pageProblems`). A
 * document's own status is the test's business: an error page it opens on purpose is no problem, but
 * what that page loads is.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Redis from 'ioredis';
import { nanoid } from 'nanoid';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import supertest from 'supertest';
import { buildApp } from '../../src/app';
import type { Db } from '../../src/db/connection';
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
  /**
   * A fresh browser context and page (cookies and cache of its own), watched for console errors and
   * failed loads. JavaScript is off unless `javaScript` is true (the hosted pages need none; /docs does).
   */
  newPage(opts?: { width?: number; locale?: string; javaScript?: boolean }): Promise<{ context: BrowserContext; page: Page }>;
  /** What the server answered to the browser (requests from Chromium only), oldest first. */
  servedToBrowser(): ReadonlyArray<{ path: string; status: number }>;
}

/** What a watched page reported, kept raw until the test ends (events arrive in any order). */
interface PageEvents {
  /** `{status} {url}` of every main-frame document: the console's "Failed to load resource" for them is expected. */
  documents: Set<string>;
  problems: string[];
  consoleErrors: Array<{ text: string; url: string }>;
}

const DOCUMENT_STATUS = /^Failed to load resource: the server responded with a status of (\d+)/;

/** Records a page's console errors, page errors, failed requests and failed subresources into `events`. */
function watchPage(page: Page, events: PageEvents): void {
  page.on('console', (m) => {
    if (m.type() === 'error') events.consoleErrors.push({ text: m.text(), url: m.location().url });
  });
  page.on('pageerror', (err) => events.problems.push(`page error: ${err.message}`));
  page.on('requestfailed', (req) => {
    const reason = req.failure()?.errorText ?? 'failed';
    // Aborted when the test navigates on or closes the page before a load ends: not the page's fault.
    if (reason !== 'net::ERR_ABORTED') events.problems.push(`request failed (${reason}): ${req.method()} ${req.url()}`);
  });
  page.on('response', (res) => {
    const req = res.request();
    if (req.isNavigationRequest() && req.frame() === page.mainFrame()) events.documents.add(`${res.status()} ${res.url()}`);
    else if (res.status() >= 400) events.problems.push(`subresource answered ${res.status()}: ${req.method()} ${res.url()}`);
  });
}

/** One line per problem the watched pages reported (empty when all went well). */
function pageProblems(events: PageEvents): string[] {
  const logged = events.consoleErrors
    .filter(({ text, url }) => {
      const status = DOCUMENT_STATUS.exec(text)?.[1];
      return status === undefined || !events.documents.has(`${status} ${url}`);
    })
    .map(({ text, url }) => `console error: ${text} (${url})`);
  return [...events.problems, ...logged];
}

export function useBrowserApp(): BrowserContextHandle {
  const ctx = {} as BrowserContextHandle;
  let server: http.Server;
  let redis: Redis;
  let events: PageEvents = { documents: new Set(), problems: [], consoleErrors: [] };
  const served: Array<{ path: string; status: number }> = [];
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
    server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
      // Chromium's own requests too (the favicon), which playwright does not report as the page's.
      if (req.headers['user-agent']?.includes('HeadlessChrome')) res.on('finish', () => served.push({ path: req.url ?? '', status: res.statusCode }));
    });
    server.on('request', app);
    ctx.servedToBrowser = () => served;
    ctx.http = () => supertest.agent(ctx.baseUrl);
    ctx.browser = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
    });
    ctx.newPage = async (opts = {}) => {
      const context = await ctx.browser.newContext({
        viewport: { width: opts.width ?? 1280, height: 900 },
        locale: opts.locale ?? 'en-US',
        javaScriptEnabled: opts.javaScript ?? false,
      });
      const page = await context.newPage();
      page.setDefaultTimeout(5000);
      watchPage(page, events);
      return { context, page };
    };
  }, 30_000);
  afterEach(() => {
    const problems = pageProblems(events);
    events = { documents: new Set(), problems: [], consoleErrors: [] };
    expect(problems).toEqual([]);
  });
  afterAll(async () => {
    await ctx.browser?.close();
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await ctx.db?.destroy();
    redis?.disconnect();
  });
  return ctx;
}
