/**
 * Exports whose clients stop reading (docs/analytics.md, "Exports, slow clients and caps"), on a real listening
 * server on 127.0.0.1 with real sockets: exports beyond the caps (per key, per instance) get 429 with Retry-After,
 * another workspace's list still answers, and a stalled export is aborted, its transaction rolled back and its
 * connection returned, after EXPORT_STALL_TIMEOUT_MS (shortened here).
 *
 * On the embedded database (one connection) an export holds the database while it streams, so the list answers
 * once the stalled export is aborted: within the stall timeout, not never. Keys are trusted for a minute here
 * (keyCacheTtlMs) so that a refused request needs no database, as on a warm PostgreSQL instance.
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Writable } from 'node:stream';
import Redis from 'ioredis';
import { nanoid } from 'nanoid';
import type { Express } from 'express';
import { buildApp, stopAppBackground } from '../../../src/app';
import type { FixtureQuestion } from '../../../src/core/import/fixture-schema';
import { importFixture } from '../../../src/core/import/importer';
import type { Db } from '../../../src/db/connection';
import { createHttpServer } from '../../../src/platform/http-server';
import { createLogger } from '../../../src/platform/logger';
import { createRateLimiter } from '../../../src/platform/rate-limit';
import { testConfig } from '../../support/app';
import { onEmbeddedDb, openTestDb } from '../../support/db';
import { keyFor, uid, workspaceWithKey } from '../../support/given';

const embedded = onEmbeddedDb();
const STALL_MS = embedded ? 4_000 : 5_000;
const MAX = embedded ? 1 : 2;
const QUESTIONS: FixtureQuestion[] = [{ id: 'q_text', type: 'text', title: 'Comment' }];

let db: Db;
let redis: Redis;
let app: Express;
let server: http.Server;
let port: number;
const log: Array<Record<string, unknown>> = [];
/** The server's side of every open connection: one whose write buffer stays full is waiting for 'drain'. */
const sockets = new Set<Socket>();
/** The clients' requests, destroyed after the tests (a paused one never notices the server's close). */
const clients = new Set<http.ClientRequest>();
let big: { ws: string; form: string; keys: string[] };
let other: { ws: string; key: string };

beforeAll(async () => {
  db = await openTestDb();
  redis = new Redis(process.env.TEST_REDIS_URL!, { maxRetriesPerRequest: 1 });
  if (redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString('utf8').split('\n')) if (l.trim() !== '') log.push(JSON.parse(l) as Record<string, unknown>);
      done();
    },
  });
  const logger = createLogger('info', sink);
  const config = testConfig({ logLevel: 'info', exportsPerKey: 1, exportsMax: MAX, exportStallTimeoutMs: STALL_MS, connectionsPerAddress: 0 });
  app = buildApp(config, { db, logger, redis, limiter: createRateLimiter({ redis, logger, prefix: `fs-stall-${nanoid(8)}` }), keyCacheTtlMs: 60_000 });
  server = createHttpServer(app, logger, config);
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  // ~16 MB of NDJSON: more than the loopback socket buffers hold, so a client that reads nothing stalls the export.
  const first = await workspaceWithKey(db);
  const form = uid('frm');
  const text = 'z'.repeat(9_000);
  await importFixture(db, {
    forms: [{ id: form, workspace_id: first.ws, name: 'Big', questions: QUESTIONS }],
    responses: Array.from({ length: 1_800 }, (_, i) => ({ id: uid('rsp'), form_id: form, score: i % 11, answers: [{ question_id: 'q_text', value: text }] })),
  });
  big = { ws: first.ws, form, keys: [first.key, await keyFor(db, [first.ws]), await keyFor(db, [first.ws])] };
  other = await workspaceWithKey(db);
}, 180_000);

afterAll(async () => {
  for (const req of clients) req.destroy();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  if (app) await stopAppBackground(app);
  await db?.destroy();
  redis?.disconnect();
});

/** GET on the listening server; the answer's head, and its body read (or, with `stall`, left unread until `resume()`). */
function get(path: string, key: string | undefined, stall = false) {
  return new Promise<{ res: http.IncomingMessage; body: string; resume: () => Promise<'ended' | 'cut'> }>((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path, headers: key === undefined ? {} : { 'X-API-Key': key }, agent: false });
    clients.add(req);
    req.once('error', reject);
    req.once('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      // Reads what arrived, then learns how the answer ended: complete, or cut by the server.
      const resume = () =>
        new Promise<'ended' | 'cut'>((done) => {
          res.on('error', () => done('cut'));
          res.once('aborted', () => done('cut'));
          res.once('close', () => done(res.complete ? 'ended' : 'cut'));
          res.resume();
        });
      if (stall) {
        res.pause(); // reads nothing: the server fills the socket and waits for 'drain'
        resolve({ res, body: '', resume });
        return;
      }
      res.on('data', (c: string) => (body += c));
      res.once('end', () => resolve({ res, body, resume }));
    });
  });
}

/** Resolves when `check()` holds (polled), or false after `ms`. */
async function until(check: () => boolean, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; !check();) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 25));
  }
  return true;
}

const exportPath = () => `/api/v1/workspaces/${big.ws}/responses/export?format=ndjson`;
const pool = () => (db.client as { pool: { numUsed(): number } }).pool;

describe('exports whose clients stop reading', () => {
  it('caps exports per key and per instance (429, Retry-After), keeps the API answering, and aborts a stalled export after the stall timeout', async () => {
    // Each key looked up once, so that the refusals below need no database.
    for (const key of [...big.keys, other.key]) expect((await get('/api/v1/workspaces', key)).res.statusCode).toBe(200);
    // The list once before, so that what is timed below is the answer, not the validator's first compile.
    expect((await get(`/api/v1/workspaces/${other.ws}/responses?limit=5`, other.key)).res.statusCode).toBe(200);

    const stalled = [await get(exportPath(), big.keys[0]!, true)];
    expect(stalled[0]!.res.statusCode).toBe(200);
    const sameKey = await get(exportPath(), big.keys[0]!);
    expect([sameKey.res.statusCode, sameKey.res.headers['retry-after'], JSON.parse(sameKey.body).error]).toEqual([
      429,
      '10',
      { code: 'rate_limit_exceeded', status: 429, message: 'Too many exports at once (at most 1 per key); retry in 10 s.' },
    ]);
    if (!embedded) {
      const second = await get(exportPath(), big.keys[1]!, true);
      expect(second.res.statusCode).toBe(200);
      stalled.push(second);
    }
    const overAll = await get(exportPath(), big.keys[embedded ? 1 : 2]!);
    expect([overAll.res.statusCode, overAll.res.headers['retry-after'], JSON.parse(overAll.body).error.message]).toEqual([
      429,
      '10',
      `Too many exports at once (at most ${MAX} on this server); retry in 10 s.`,
    ]);

    // Both exports now wait for 'drain': their sockets' buffers are full and the clients read nothing.
    expect(await until(() => [...sockets].filter((x) => x.writableLength > 0).length >= stalled.length, STALL_MS)).toBe(true);
    // Another workspace's list answers: at once on PostgreSQL, while the exports still hold their connections;
    // on the embedded database as soon as the stalled export has been aborted.
    const asked = Date.now();
    const list = await get(`/api/v1/workspaces/${other.ws}/responses?limit=5`, other.key);
    expect(list.res.statusCode).toBe(200);
    expect(Date.now() - asked).toBeLessThan(embedded ? STALL_MS + 4_000 : 2_000);
    let pids: number[] = [];
    if (!embedded) {
      expect(pool().numUsed()).toBe(2);
      const held = (await db.raw(
        "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND state = 'idle in transaction' AND query LIKE 'FETCH % FROM response_export'",
      )) as { rows: Array<{ pid: number }> };
      pids = held.rows.map((r) => r.pid);
      expect(pids.length).toBeGreaterThanOrEqual(2);
    }

    // After the stall timeout the exports are aborted: transactions rolled back, connections free, downloads cut.
    const abortLines = () => log.filter((l) => l.msg === 'export aborted: the client stopped reading');
    expect(await until(() => abortLines().length === stalled.length, STALL_MS + 10_000)).toBe(true);
    expect(abortLines()[0]).toMatchObject({ level: 30, stallTimeoutMs: STALL_MS });
    expect(await until(() => pool().numUsed() === 0, 2_000)).toBe(true);
    if (!embedded) {
      // The sessions that were idle in the exports' transactions are idle in none now.
      const still = (await db.raw("SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid = ANY(?) AND state = 'idle in transaction'", [pids])) as {
        rows: Array<{ n: number }>;
      };
      expect(still.rows[0]!.n).toBe(0);
    }
    expect(await Promise.all(stalled.map((x) => x.resume()))).toEqual(stalled.map(() => 'cut'));
    expect(log.filter((l) => (l.level as number) >= 50)).toEqual([]);

    // The slots are free again: the same key exports.
    const again = await get(`${exportPath()}&created_before=2000-01-01`, big.keys[0]!);
    expect([again.res.statusCode, again.body]).toEqual([200, '']);
  }, 120_000);

  it('a dashboard download counts against the caps (the 429 page keeps its token) and is cut after the stall timeout', async () => {
    const minted = await new Promise<string>((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: `/api/v1/workspaces/${big.ws}/forms/${big.form}/dashboard-links`,
          headers: { 'X-API-Key': big.keys[0]!, 'Content-Type': 'application/json' },
          agent: false,
        },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (body += c));
          res.once('end', () => resolve((JSON.parse(body) as { data: { url: string } }).data.url));
        },
      );
      req.once('error', reject);
      req.end('{}');
    });
    const page = await get(new URL(minted).pathname, undefined);
    expect(page.res.statusCode).toBe(200);
    const download = /href="(\/d\/[^"]+\/export\?format=ndjson&amp;t=[^"]+)"/.exec(page.body)![1]!.replace(/&amp;/g, '&');
    const before = log.filter((l) => l.msg === 'export aborted: the client stopped reading').length;
    const holders: Array<Awaited<ReturnType<typeof get>>> = [];
    if (!embedded) {
      // Every export place taken (a dashboard request reads its link first: on the embedded database it would wait
      // for the one connection the export holds, so the refusal is shown on PostgreSQL).
      for (const key of big.keys.slice(0, MAX)) holders.push(await get(exportPath(), key, true));
      const refused = await get(download, undefined);
      expect([refused.res.statusCode, refused.res.headers['retry-after'], refused.res.headers['content-type']]).toEqual([
        429,
        '10',
        'text/html; charset=utf-8',
      ]);
      expect(await until(() => log.filter((l) => l.msg === 'export aborted: the client stopped reading').length === before + MAX, STALL_MS + 10_000)).toBe(
        true,
      );
      for (const h of holders) expect(await h.resume()).toBe('cut');
    }
    // The token was not spent by the 429: it opens the download now, whose client then reads nothing.
    const stalled = await get(download, undefined, true);
    expect(stalled.res.statusCode).toBe(200);
    const aborted = () => log.filter((l) => l.msg === 'export aborted: the client stopped reading').length;
    expect(await until(() => aborted() === before + holders.length + 1, STALL_MS + 10_000)).toBe(true);
    expect(await until(() => pool().numUsed() === 0, 2_000)).toBe(true);
    expect(await stalled.resume()).toBe('cut');
  }, 120_000);
});
