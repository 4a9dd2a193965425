/**
 * The live streams (docs/live.md, "Stream"; issue 31 item 2), on both databases through a listening app: new responses
 * and events arrive live in each style with the list's filters; a resume from `Last-Event-ID` or `?after=` gets every
 * later event exactly once, in order; 400 and 410 for bad and pruned positions; the list's scope; the per-key cap (429);
 * a revoked key's streams close; heartbeats; a client that does not read is cut at the buffer bound; events committed
 * out of order arrive in position order (PostgreSQL); a shutdown ends streams with a `retry:` hint.
 */
import { EventEmitter } from 'node:events';
import type { Request, Response } from 'express';
import { nanoid } from 'nanoid';
import { endAppStreams } from '../../../src/app';
import { hashApiKeySecret } from '../../../src/core/api-keys/secrets';
import { positionToken } from '../../../src/core/events/event-log.store';
import { recordEvents } from '../../../src/core/webhooks/outbox';
import { withTransaction } from '../../../src/db';
import { createLogger } from '../../../src/platform/logger';
import { createLiveStreams, sseFrame, SHUTDOWN_RETRY_MS } from '../../../src/platform/live-streams';
import { commitOutOfOrder, rowDeleted } from '../../support/commit-order';
import { onEmbeddedDb } from '../../support/db';
import { formWorkspace, goodAnswers, keyFor, type FormWorkspace } from '../../support/given';
import { listenLocally, openStream, type SseStream } from '../../support/sse';
import { useWebhookApp } from '../webhooks/harness';

// Events become readable once every older transaction of the PostgreSQL server has ended: a long one elsewhere delays them.
jest.setTimeout(300_000);

const t = useWebhookApp({ streamsPerKey: 3, streamHeartbeatMs: 250, streamPollMs: 500 });
let base: string;
let stopListening: () => Promise<void>;
const open: SseStream[] = [];

beforeAll(async () => {
  const l = await listenLocally(t.app);
  base = l.base;
  stopListening = l.close;
});
afterEach(() => {
  open.splice(0).forEach((s) => s.close());
});
afterAll(async () => {
  await stopListening?.();
});

const stream = async (w: { ws: string; key: string }, path: string, headers: Record<string, string> = {}) => {
  const s = await openStream(`${base}/api/v1/workspaces/${w.ws}/${path}`, { 'X-API-Key': w.key, ...headers });
  open.push(s);
  return s;
};

async function submit(w: FormWorkspace, email = 'someone@example.com'): Promise<string> {
  const res = await t
    .http()
    .post(`/api/v1/workspaces/${w.ws}/responses`)
    .set('X-API-Key', w.key)
    .set('X-API-Style', 'A')
    .set('Idempotency-Key', nanoid())
    .send({ form_id: w.form, answers: goodAnswers(), respondent_email: email, email_id: 'em_1' });
  expect([res.status, res.body.error]).toEqual([201, undefined]);
  return res.body.data.id as string;
}

const data = (s: SseStream) => s.events.map((e) => JSON.parse(e.data) as Record<string, unknown>);

describe('GET {ws}/responses/stream', () => {
  it('sends each new response as the style presents it, with its position as the id (Style A)', async () => {
    const w = await formWorkspace(t.db);
    const s = await stream(w, 'responses/stream', { 'X-API-Style': 'A' });
    expect(s.status).toBe(200);
    expect(s.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(s.headers.get('x-api-style')).toBe('A');
    const ids = [await submit(w), await submit(w)];
    await s.atLeast(2);
    expect(data(s).map((d) => d.id)).toEqual(ids);
    expect(data(s)[0]).toMatchObject({ id: ids[0], form_id: w.form });
    expect(s.events.map((e) => e.event)).toEqual(['response.created', 'response.created']);
    expect(s.events.every((e) => /^[0-9a-f]{32}$/.test(e.id!))).toBe(true);
    expect(s.events[0]!.id! < s.events[1]!.id!).toBe(true);
  });

  it('presents responses in Style B (camelCase) for a Style B request', async () => {
    const w = await formWorkspace(t.db);
    const s = await stream(w, 'responses/stream', { 'X-API-Style': 'B' });
    const id = await submit(w);
    await s.atLeast(1);
    expect(data(s)[0]).toMatchObject({ id, form: { id: w.form }, createdAt: expect.any(String) });
    expect(data(s)[0]).not.toHaveProperty('created_at');
  });

  it("applies the list's filters in each style: Style A typed parameters, Style B `filter`", async () => {
    const w = await formWorkspace(t.db);
    const a = await stream(w, 'responses/stream?respondent_email=keep@example.com', { 'X-API-Style': 'A' });
    const b = await stream(w, `responses/stream?filter=${encodeURIComponent('respondent_email=keep@example.com')}`, { 'X-API-Style': 'B' });
    await submit(w, 'drop@example.com');
    const kept = await submit(w, 'keep@example.com');
    await Promise.all([a.atLeast(1), b.atLeast(1)]);
    // The dropped response came first: had it matched, it would have been sent first.
    expect(data(a).map((d) => d.id)).toEqual([kept]);
    expect(data(b).map((d) => d.id)).toEqual([kept]);
  });

  it('resumes after Last-Event-ID (or ?after=) with every later response exactly once, in order', async () => {
    const w = await formWorkspace(t.db);
    const first = await stream(w, 'responses/stream');
    const ids = [await submit(w), await submit(w), await submit(w)];
    await first.atLeast(3);
    const positions = first.events.map((e) => e.id!);
    first.close();

    const byHeader = await stream(w, 'responses/stream', { 'Last-Event-ID': positions[0]! });
    const byQuery = await stream(w, `responses/stream?after=${positions[1]}`, { 'X-API-Style': 'B' });
    const later = await submit(w);
    await Promise.all([byHeader.atLeast(3), byQuery.atLeast(2)]);
    expect(data(byHeader).map((d) => d.id)).toEqual([ids[1], ids[2], later]);
    expect(data(byQuery).map((d) => d.id)).toEqual([ids[2], later]);
    expect(byHeader.events.slice(0, 2).map((e) => e.id)).toEqual(positions.slice(1));
  });

  it('answers 400 naming Last-Event-ID for a value that is not a position', async () => {
    const w = await formWorkspace(t.db);
    const s = await stream(w, 'responses/stream', { 'Last-Event-ID': 'nope' });
    expect(s.status).toBe(400);
    expect(s.body).toMatchObject({ error: { code: 'validation_error', details: [{ location: 'header', field: 'Last-Event-ID' }] } });
  });

  it('answers 410 position_expired, as the events list does, for a position the log has pruned', async () => {
    const w = await formWorkspace(t.db);
    await t.db('event_log_pruned').insert({ workspace_id: w.ws, xid: '100', seq: 5 });
    const s = await stream(w, 'responses/stream', { 'Last-Event-ID': positionToken(1n, 1n) });
    expect(s.status).toBe(410);
    const list = await t
      .http()
      .get(`/api/v1/workspaces/${w.ws}/events?cursor=${positionToken(1n, 1n)}`)
      .set('X-API-Key', w.key)
      .set('X-API-Style', 'A');
    expect(list.status).toBe(410);
    expect((s.body as { error: { code: string } }).error.code).toBe(list.body.error.code);
    expect(list.body.error.code).toBe('position_expired');
  });

  it('needs responses:read, as the list does', async () => {
    const w = await formWorkspace(t.db);
    const key = await keyFor(t.db, [w.ws], { scopes: ['events:read'] });
    const s = await stream({ ws: w.ws, key }, 'responses/stream');
    const list = await t.http().get(`/api/v1/workspaces/${w.ws}/responses`).set('X-API-Key', key);
    expect([s.status, list.status]).toEqual([403, 403]);
    expect((s.body as { error: { code: string } }).error.code).toBe(list.body.error.code);
  });

  it('refuses a stream over STREAMS_PER_KEY with 429 rate_limit_exceeded and Retry-After', async () => {
    const w = await formWorkspace(t.db);
    await Promise.all([1, 2, 3].map(() => stream(w, 'responses/stream')));
    const over = await stream(w, 'events/stream');
    expect(over.status).toBe(429);
    expect(over.body).toMatchObject({ error: { code: 'rate_limit_exceeded', status: 429 } });
    expect(over.headers.get('retry-after')).toBe('5');
  });

  it("closes a key's streams when the key is revoked", async () => {
    const w = await formWorkspace(t.db);
    const key = await keyFor(t.db, [w.ws], { scopes: ['responses:read', 'events:read'] });
    const s = await stream({ ws: w.ws, key }, 'responses/stream');
    const other = await stream(w, 'responses/stream');
    expect(s.status).toBe(200);
    // This key, by its secret (the database is shared with other test files: never "the newest key").
    await t.db('api_keys').where('key_hash', hashApiKeySecret(key)).update({ revoked_at: new Date() });
    await s.ended;
    expect(s.isEnded()).toBe(true);
    // The workspace's other key streams on.
    const id = await submit(w);
    await other.atLeast(1);
    expect(data(other).map((d) => d.id)).toEqual([id]);
  });

  it('sends a heartbeat comment while nothing happens', async () => {
    const w = await formWorkspace(t.db);
    const s = await stream(w, 'responses/stream');
    await s.until((x) => x.comments.includes(' heartbeat') || x.comments.includes('heartbeat'));
    expect(s.events).toEqual([]);
  });
});

describe('GET {ws}/events/stream', () => {
  it("sends every kind of event as the style's list shows it, with the list's type filter", async () => {
    const w = await formWorkspace(t.db);
    const all = await stream(w, 'events/stream', { 'X-API-Style': 'A' });
    const rows = await stream(w, 'events/stream?type=row.created', { 'X-API-Style': 'B' });
    const rsp = await submit(w);
    const created = await t
      .http()
      .post(`/api/v1/workspaces/${w.ws}/datatables/${w.table}/rows`)
      .set('X-API-Key', w.key)
      .set('X-API-Style', 'A')
      .set('Idempotency-Key', nanoid())
      .send({ data: { id: 'c-new', plan: 'basic' } });
    expect(created.status).toBe(201);
    await Promise.all([all.atLeast(2), rows.atLeast(1)]);
    expect(all.events.map((e) => e.event)).toEqual(['response.created', 'row.created']);
    expect(data(all)[0]).toMatchObject({ type: 'response.created', position: all.events[0]!.id, created_at: expect.any(String), data: { id: rsp } });
    expect(rows.events.map((e) => e.event)).toEqual(['row.created']);
    expect(data(rows)[0]).toMatchObject({ type: 'row.created', createdAt: expect.any(String) });
    // The event is the list's: the same JSON as GET {ws}/events shows for it.
    const list = await t.http().get(`/api/v1/workspaces/${w.ws}/events`).set('X-API-Key', w.key).set('X-API-Style', 'A');
    expect(list.body.data).toEqual(data(all));
  });

  it('needs events:read', async () => {
    const w = await formWorkspace(t.db);
    const key = await keyFor(t.db, [w.ws], { scopes: ['responses:read'] });
    const s = await stream({ ws: w.ws, key }, 'events/stream');
    expect(s.status).toBe(403);
  });
});

(onEmbeddedDb() ? describe.skip : describe)('commit order (PostgreSQL: two connections)', () => {
  it('sends events of two transactions committing out of order in position order, skipping none', async () => {
    const w = await formWorkspace(t.db);
    const s = await stream(w, 'events/stream');
    // The second's notice wakes the stream while the first is open: nothing may be sent before the first commits.
    await commitOutOfOrder(t.db, w.ws, w.table, () =>
      withTransaction(t.db, (trx) => recordEvents(trx, w.ws, [rowDeleted('third', w.table)])).then(() => undefined),
    );
    await s.atLeast(3);
    expect(data(s).map((d) => (d.data as { row_id: string }).row_id)).toEqual(['first', 'second', 'third']);
    const ids = s.events.map((e) => e.id!);
    expect([...ids].sort()).toEqual(ids);
  });
});

describe('a client that does not read', () => {
  it('is disconnected once its unread output passes the bound, and its stream is forgotten', async () => {
    const w = await formWorkspace(t.db);
    // The workspace's own key: a key of another test file's workspace would be closed by the key check (it cannot read w.ws).
    const [key] = (await t.db('api_keys').select('id').where('key_hash', hashApiKeySecret(w.key))) as Array<{ id: string }>;
    const live = createLiveStreams({ db: t.db, logger: createLogger('silent'), limits: { maxBufferBytes: 4096, heartbeatMs: 60_000, pollMs: 200 } });
    // A socket whose client reads nothing: everything written stays buffered.
    const res = Object.assign(new EventEmitter(), {
      writableLength: 0,
      destroyed: false,
      status: () => res,
      setHeader: () => res,
      flushHeaders: () => undefined,
      write: (text: string) => ((res.writableLength += Buffer.byteLength(text)), false),
      end: () => res.emit('close'),
      destroy: () => ((res.destroyed = true), res.emit('close')),
    });
    // Listening from the start: a close during the submissions below must not be missed.
    const closed = new Promise<void>((resolve) => res.once('close', () => resolve()));
    const big = 'x'.repeat(1500);
    await live.open({ method: 'GET' } as Request, res as unknown as Response, {
      workspaceId: w.ws,
      after: undefined,
      key: { id: key!.id, revokedAt: null, expiresAt: null } as never,
      scope: 'responses:read',
      filterKey: 'slow',
      frames: async (_from, _to, events) => events.map((e) => sseFrame(e.position, e.type, { big })),
    });
    expect(live.count()).toBe(1);
    for (let i = 0; i < 4 && !res.destroyed; i++) await submit(w);
    await closed;
    expect(res.destroyed).toBe(true);
    expect(res.writableLength).toBeLessThan(4096 + 2 * 1600);
    expect(live.count()).toBe(0);
    await live.close();
  });
});

describe('shutdown', () => {
  it('ends every stream with a retry: hint, then closes it', async () => {
    const w = await formWorkspace(t.db);
    const s = await stream(w, 'responses/stream');
    const e = await stream(w, 'events/stream', { 'X-API-Style': 'B' });
    await endAppStreams(t.app);
    await Promise.all([s.ended, e.ended]);
    expect(s.retries).toEqual([SHUTDOWN_RETRY_MS]);
    expect(e.retries).toEqual([SHUTDOWN_RETRY_MS]);
  });
});
