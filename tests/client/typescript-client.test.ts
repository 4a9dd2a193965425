/**
 * The TypeScript client (clients/typescript, docs/typescript-client.md) against the running service, in
 * both styles: reads, Style A cursor iteration across pages, Style B pages with totals and a `filter`, a
 * datatable row upsert, an idempotent retry, and a 429 whose `Retry-After` the client waits before it
 * sends the request again. The app listens on a random port; responses are validated against openapi/.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Redis from 'ioredis';
import { nanoid } from 'nanoid';
import { buildApp, stopAppBackground } from '../../src/app';
import type { Db } from '../../src/db/connection';
import { createLogger } from '../../src/platform/logger';
import { createRateLimiter } from '../../src/platform/rate-limit';
import { ApiError, createClient, eachItem, sdk, type ReconnectInfo, type RetryInfo, type RowA } from '../../clients/typescript/src';
import { testConfig } from '../support/app';
import { openTestDb } from '../support/db';
import { keyFor, newestFirst, scenario, workspaceWithKey, type Scenario } from '../support/given';

let db: Db;
let redis: Redis;
let app: ReturnType<typeof buildApp>;
let server: Server;
let baseUrl: string;
let s: Scenario;
// The limiter's Redis keys start with this prefix, so a test can end a key's window (see `resetBudgets`).
const prefix = `fs-client-${nanoid(8)}`;

beforeAll(async () => {
  db = await openTestDb();
  redis = new Redis(process.env.TEST_REDIS_URL!, { enableOfflineQueue: true, maxRetriesPerRequest: 1 });
  const logger = createLogger('silent');
  app = buildApp(testConfig(), { db, logger, redis, limiter: createRateLimiter({ redis, logger, prefix }) });
  server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  s = await scenario(db, { responseCount: 30 });
});

afterAll(async () => {
  await new Promise<void>((resolve) => server?.close(() => resolve()));
  if (app) await stopAppBackground(app);
  await db?.destroy();
  redis?.disconnect();
});

/** Ends every rate-limit window of this file's app, as if the minute had passed. */
async function resetBudgets(): Promise<void> {
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

describe('Style A', () => {
  const a = () => createClient({ baseUrl, apiKey: s.key, style: 'A' });

  it('reads workspaces and forms through the generated SDK with the key and style set', async () => {
    const { data, response } = await sdk.listWorkspaces({ client: a().client, throwOnError: true });
    expect(response.headers.get('X-API-Style')).toBe('A');
    expect(data.data.map((w) => w.id)).toEqual([s.ws]);
    const client = a().client;
    const forms = await collect(
      eachItem(async (cursor) => (await sdk.listForms({ client, path: { workspace_id: s.ws }, query: { limit: 1, cursor }, throwOnError: true })).data),
    );
    expect(forms.map((f) => f.id).sort()).toEqual([s.nps, s.csat].sort());
  });

  it('sends a typed filter given as one value, as the server reads it (score_ne: 5 is score_ne=5)', async () => {
    const score = s.responses[0]!.score;
    const items = await collect(a().responses.list(s.ws, { score_ne: score, limit: 100 }));
    expect(items.map((r) => r.id)).toEqual(newestFirst(s.responses.filter((r) => r.score !== score)).map((r) => r.id));
    expect(items.length).toBeLessThan(s.responses.length);
  });

  it('iterates every response across cursor pages', async () => {
    const pages: string[] = [];
    const client = createClient({
      baseUrl,
      apiKey: s.key,
      style: 'A',
      fetch: (input, init) => (pages.push(String(input instanceof Request ? input.url : input)), fetch(input, init)),
    });
    const items = await collect(client.responses.list(s.ws, { limit: 7 }));
    expect(items.map((r) => r.id)).toEqual(newestFirst(s.responses).map((r) => r.id));
    expect(items[0]).toHaveProperty('created_at');
    expect(pages).toHaveLength(5); // 30 responses, 7 a page
    expect(pages.slice(1).every((url) => new URL(url).searchParams.has('cursor'))).toBe(true);
  });

  it('iterates the rows of a datatable and upserts one on data.id', async () => {
    const client = a();
    const before = await collect(client.rows.list(s.ws, s.table, { limit: 2 }));
    expect(before).toHaveLength(5);
    const updated = await client.rows.upsert(s.ws, s.table, { data: { id: 'c-1', plan: 'enterprise' } });
    expect(updated.status).toBe(200);
    const row = updated.data.data as RowA;
    expect(row).toMatchObject({ id: 'c-1', plan: 'enterprise', seats: 10 });
    expect(row.row_id).toBe(before.find((r) => r.id === 'c-1')!.row_id);
    const created = await client.rows.upsert(s.ws, s.table, { data: [{ id: 'c-a1', plan: 'pro', seats: 1, active: true }] });
    expect(created.status).toBe(201);
  });

  it('replays a write sent twice with one idempotency key', async () => {
    const client = a();
    const key = `idem-a-${nanoid(8)}`;
    const body = { data: { id: 'c-a2', plan: 'basic', seats: 2, active: false } };
    const first = await client.rows.upsert(s.ws, s.table, body, { idempotencyKey: key });
    const again = await client.rows.upsert(s.ws, s.table, body, { idempotencyKey: key });
    expect(first.replayed).toBe(false);
    expect(again.replayed).toBe(true);
    expect(again.response.headers.get('Idempotent-Replayed')).toBe('true');
    expect(again.status).toBe(first.status);
    expect(again.data).toEqual(first.data);
  });
});

describe('Style B', () => {
  const b = () => createClient({ baseUrl, apiKey: s.key, style: 'B' });

  it('pages the responses with totals and a filter', async () => {
    const pages = await collect(b().responses.pages(s.ws, { limit: 8, filter: `form_id = ${s.nps}` }));
    const nps = newestFirst(s.responses.filter((r) => r.form_id === s.nps));
    expect(pages.map((p) => [p.page, p.limit, p.items.length])).toEqual([
      [1, 8, 8],
      [2, 8, 8],
      [3, 8, 4],
    ]);
    expect(pages.every((p) => p.total === 30 && p.filteredTotal === nps.length)).toBe(true);
    const items = pages.flatMap((p) => p.items);
    expect(items.map((r) => r.id)).toEqual(nps.map((r) => r.id));
    expect(items[0]).toHaveProperty('createdAt');
    const one = await b().responses.get(s.ws, nps[0]!.id);
    expect(one.createdAt).toBe(items[0]!.createdAt);
  });

  it('reads tables and pages entries', async () => {
    const { data } = await sdk.listTablesB({ client: b().client, path: { workspace_id: s.ws }, throwOnError: true });
    expect(data.data.map((t) => t.id)).toContain(s.table);
    const pages = await collect(b().entries.pages(s.ws, s.table, { limit: 100 }));
    expect(pages).toHaveLength(1);
    expect(pages[0]!.items.length).toBe(pages[0]!.filteredTotal);
  });

  it('upserts an entry on data.id and replays it with one idempotency key', async () => {
    const client = b();
    const created = await client.entries.upsert(s.ws, s.table, { data: { id: 'c-b1', plan: 'pro', seats: 3, active: true } });
    expect(created.status).toBe(201);
    const updated = await client.entries.upsert(s.ws, s.table, { data: { id: 'c-b1', plan: 'basic' } });
    expect(updated.data).toEqual({ row_id: created.data.row_id, data: { id: 'c-b1', plan: 'basic', seats: 3, active: true } });
    const key = `idem-b-${nanoid(8)}`;
    const body = { data: { id: 'c-b2', plan: 'pro', seats: 4, active: true } };
    const first = await client.entries.upsert(s.ws, s.table, body, { idempotencyKey: key });
    const again = await client.entries.upsert(s.ws, s.table, body, { idempotencyKey: key });
    expect([first.replayed, again.replayed]).toEqual([false, true]);
    expect(again.data).toEqual(first.data);
    // Another body under the same key is refused, not replayed.
    await expect(client.entries.upsert(s.ws, s.table, { data: { ...body.data, seats: 5 } }, { idempotencyKey: key })).rejects.toMatchObject({
      status: 409,
      code: 'idempotency_replay',
    });
  });
});

describe.each(['A', 'B'] as const)('429 in Style %s', (style) => {
  it('waits Retry-After seconds, then sends the request again', async () => {
    const apiKey = await keyFor(db, [s.ws], { rateLimitPerMinute: 2 });
    const waits: number[] = [];
    const retries: RetryInfo[] = [];
    // Instead of sleeping out the minute, note the wait and end the window.
    const sleep = async (ms: number) => (waits.push(ms), resetBudgets());
    const client = createClient({ baseUrl, apiKey, style, sleep, onRetry: (info) => retries.push(info) });
    const read = () => sdk.getResponse({ client: client.client, path: { workspace_id: s.ws, response_id: s.responses[0]!.id } });
    expect((await read()).response!.status).toBe(200);
    expect((await read()).response!.status).toBe(200);
    const third = await read(); // the budget of 2 is spent: a 429, waited for, then a 200
    expect(third.response!.status).toBe(200);
    expect(third.response!.headers.get('X-API-Style')).toBe(style);
    expect(retries).toHaveLength(1);
    expect(retries[0]!.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(retries[0]!.retryAfterSeconds).toBeLessThanOrEqual(60);
    expect(waits).toEqual([retries[0]!.retryAfterSeconds * 1000]);
  });

  it('gives up after maxRetries and answers the 429', async () => {
    const apiKey = await keyFor(db, [s.ws], { rateLimitPerMinute: 1 });
    const waits: number[] = [];
    const retries: RetryInfo[] = [];
    const client = createClient({ baseUrl, apiKey, style, maxRetries: 2, sleep: async (ms) => void waits.push(ms), onRetry: (info) => retries.push(info) });
    const read = () => sdk.getResponse({ client: client.client, path: { workspace_id: s.ws, response_id: s.responses[0]!.id } });
    expect((await read()).response!.status).toBe(200);
    const refused = await read();
    expect(refused.response!.status).toBe(429);
    expect(refused.error).toMatchObject({ error: { code: 'rate_limit_exceeded' } });
    expect(waits).toEqual(retries.map((r) => r.retryAfterSeconds * 1000));
    expect(retries.map((r) => r.attempt)).toEqual([1, 2]);
    // The answer is the third 429; its Retry-After counts down the same window (a second may have turned).
    expect(Math.abs(Number(refused.response!.headers.get('Retry-After')) - retries[1]!.retryAfterSeconds)).toBeLessThanOrEqual(1);
  });
});

it('sleeps for real when no sleep is given (a stub 429 with Retry-After: 1 first)', async () => {
  let sent = 0;
  const stub429 = (input: Parameters<typeof fetch>[0], init?: RequestInit) =>
    sent++ === 0 ? Promise.resolve(new Response('{}', { status: 429, headers: { 'Retry-After': '1' } })) : fetch(input, init);
  const client = createClient({ baseUrl, apiKey: s.key, style: 'A', fetch: stub429 });
  const started = Date.now();
  const { data } = await sdk.listWorkspaces({ client: client.client, throwOnError: true });
  expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  expect(data.data).toHaveLength(1);
  expect(sent).toBe(2);
  await expect(createClient({ baseUrl, apiKey: 'fa_unknown', style: 'B' }).responses.get(s.ws, 'rsp_x')).rejects.toBeInstanceOf(ApiError);
});

describe.each(['A', 'B'] as const)('following the responses stream in Style %s', (style) => {
  const submit = async () => {
    const init = {
      method: 'POST',
      headers: { 'X-API-Key': s.key, 'X-API-Style': 'A', 'Idempotency-Key': nanoid(), 'content-type': 'application/json' },
      body: JSON.stringify({ form_id: s.nps, answers: [{ question_id: 'q_score', value: 9 }] }),
    };
    const url = `${baseUrl}/api/v1/workspaces/${s.ws}/responses`;
    // A kept-alive connection the drop below closed may fail once: the same idempotency key makes sending again safe.
    const res = await fetch(url, init).catch(() => fetch(url, init));
    expect(res.status).toBe(201);
    return ((await res.json()) as { data: { id: string } }).data.id;
  };
  const streamsOpen = async (n: number) => {
    while ((app.locals.live as { count(): number }).count() < n) await new Promise((r) => setTimeout(r, 20));
  };

  it('yields each new response and, after the connection drops, resumes with Last-Event-ID: none missed, none repeated', async () => {
    const ac = new AbortController();
    const reconnects: ReconnectInfo[] = [];
    const follow = createClient({ baseUrl, apiKey: s.key, style })
      .responses.follow(s.ws, {}, { signal: ac.signal, retryMs: 50, onReconnect: (i) => reconnects.push(i) })
      [Symbol.asyncIterator]();
    const first = follow.next();
    await streamsOpen(1);
    const ids = [await submit()];
    const one = (await first).value!;
    expect([one.event, one.data.id]).toEqual(['response.created', ids[0]]);
    // The connection drops (a restart, the network); a response is written while the client is away.
    server.closeAllConnections();
    ids.push(await submit());
    const two = (await follow.next()).value!;
    expect(reconnects[0]).toMatchObject({ lastEventId: one.id });
    ids.push(await submit());
    const three = (await follow.next()).value!;
    expect([two.data.id, three.data.id]).toEqual(ids.slice(1));
    expect(one.id < two.id && two.id < three.id).toBe(true);
    ac.abort();
    expect((await follow.next()).done).toBe(true);
  });

  it('ends with ApiError 410 position_expired for a position the log has pruned', async () => {
    const { ws, key } = await workspaceWithKey(db);
    await db('event_log_pruned').insert({ workspace_id: ws, xid: '100', seq: 5 });
    const follow = createClient({ baseUrl, apiKey: key, style }).responses.follow(ws, {}, { after: '00000000000000010000000000000001' });
    await expect(follow.next()).rejects.toMatchObject({ status: 410, code: 'position_expired' });
  });
});
