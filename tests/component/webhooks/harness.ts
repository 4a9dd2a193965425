/**
 * Webhook test helpers: receivers (small node:http servers on 127.0.0.1 with a scripted answer per
 * request), a database of the file's own (so a worker of one file never takes another file's jobs),
 * and the app built on it.
 */
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import Redis from 'ioredis';
import knex from 'knex';
import { nanoid } from 'nanoid';
import supertest from 'supertest';
import { buildApp } from '../../../src/app';
import { settleFollowUps } from '../../../src/db/follow-up';
import type { Config } from '../../../src/config';
import type { Resolve } from '../../../src/core/webhooks/address-policy';
import { createDb, migrateLatest, type Db } from '../../../src/db/connection';
import { createLogger } from '../../../src/platform/logger';
import { createRateLimiter } from '../../../src/platform/rate-limit';
import { openTestDb } from '../../support/db';
import { testConfig } from '../../support/app';
import { databaseUrl } from '../../support/services';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface Answer {
  status: number;
  headers?: Record<string, string>;
  /** Wait this long before answering (a slow receiver). */
  delayMs?: number;
}

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** Resolves once `n` requests arrived (rejects after `ms`). */
  waitFor(n: number, ms?: number): Promise<Received[]>;
  close(): Promise<void>;
}

/** A receiver answering each request with `answer(request, index)` (index 0 for the first). */
export async function receiver(answer: (r: Received, i: number) => Answer = () => ({ status: 200 })): Promise<Receiver> {
  const received: Received[] = [];
  const waiters: Array<() => void> = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      const r: Received = { path: req.url ?? '', headers: req.headers, body, at: Date.now() };
      const i = received.length;
      received.push(r);
      waiters.forEach((w) => w());
      const a = answer(r, i);
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(a.status, a.headers);
        res.end('ok');
      };
      if (a.delayMs) setTimeout(send, a.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    received,
    waitFor(n, ms = 10_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`expected ${n} requests within ${ms} ms, got ${received.length}`)), ms);
        const check = () => {
          if (received.length >= n) {
            clearTimeout(timer);
            resolve(received.slice());
          }
        };
        waiters.push(check);
        check();
      });
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Waits until every event of `ws` is readable: a reader returns only events below the oldest transaction still open
 * in the cluster, and other test files (other databases of the same server) may hold one open for a moment.
 */
export async function eventsReadable(db: Db, ws: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const { rows } = (await db.raw('SELECT count(*) AS n FROM event_log WHERE workspace_id = ? AND xid >= pg_snapshot_xmin(pg_current_snapshot())', [ws])) as {
      rows: Array<{ n: string | number }>;
    };
    if (Number(rows[0]!.n) === 0) return;
    await sleep(25);
  }
  throw new Error('events stayed unreadable for 5 s');
}

/** A freshly created and migrated database for this file; `drop()` removes it. */
export async function ownDatabase(): Promise<{ url: string; db: Db; drop(): Promise<void> }> {
  const adminUrl = process.env.TEST_PG_ADMIN_URL;
  if (!adminUrl) throw new Error('TEST_PG_ADMIN_URL is not set: run the tests through jest.');
  const name = `fs_test_wh_${nanoid(10)
    .replace(/[^a-zA-Z0-9]/g, 'x')
    .toLowerCase()}`;
  const admin = knex({ client: 'pg', connection: adminUrl, pool: { min: 0, max: 1 } });
  await admin.raw('CREATE DATABASE ??', [name]);
  const url = databaseUrl(adminUrl, name);
  const db = createDb({ databaseUrl: url, dataDir: '', poolMax: 8 });
  await migrateLatest(db);
  return {
    url,
    db,
    async drop() {
      await db.destroy();
      try {
        await admin.raw('DROP DATABASE IF EXISTS ?? WITH (FORCE)', [name]);
      } finally {
        await admin.destroy();
      }
    },
  };
}

export interface WebhookTestApp {
  app: Express;
  db: Db;
  config: Config;
  http: () => supertest.Agent;
}

/**
 * Registers beforeAll/afterAll building the app (response validation on) on the file's own database
 * (`own: true`) or the run's shared one, with `resolveHost` for webhook URLs when given.
 */
export function useWebhookApp(overrides: Partial<Config>, opts: { own?: boolean; resolveHost?: Resolve } = {}): WebhookTestApp {
  const ctx = {} as WebhookTestApp;
  let redis: Redis;
  let drop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    if (opts.own) {
      const own = await ownDatabase();
      ctx.db = own.db;
      drop = own.drop;
    } else ctx.db = await openTestDb();
    redis = new Redis(process.env.TEST_REDIS_URL!, { enableOfflineQueue: true, maxRetriesPerRequest: 1 });
    const logger = createLogger('silent');
    const limiter = createRateLimiter({ redis, logger, prefix: `fs-test-${nanoid(8)}` });
    ctx.config = testConfig(overrides);
    ctx.app = buildApp(ctx.config, { db: ctx.db, logger, redis, limiter, resolveHost: opts.resolveHost });
    ctx.http = () => supertest.agent(ctx.app);
  });
  afterAll(async () => {
    redis?.disconnect();
    // The audit seals the last writes started end before the pool does.
    if (ctx.db) await settleFollowUps(ctx.db);
    if (drop) await drop();
    else await ctx.db?.destroy();
  });
  return ctx;
}
