/**
 * The event log (docs/live.md, "Event log"), on both databases: every kind of write records its event with no webhook
 * subscribed; two transactions committing out of order are read in position order with none skipped (PostgreSQL);
 * `GET {ws}/events` in both styles with filters, behind `events:read`; the retention prune and `410 position_expired`;
 * an erasure removes the person's events from the log.
 */
import { createHash } from 'node:crypto';
import { nanoid } from 'nanoid';
import * as events022 from '../../../migrations/20261127_022_event_log';
import { eventsAfter, positionToken, pruneEventLog } from '../../../src/core/events/event-log.store';
import { recordEvents } from '../../../src/core/webhooks/outbox';
import { ALL_SCOPES } from '../../../src/core/scopes';
import { withTransaction } from '../../../src/db';
import { pruneExpiredResponses } from '../../../src/delivery/deletions';
import { onEmbeddedDb } from '../../support/db';
import { commitOutOfOrder } from '../../support/commit-order';
import { formWorkspace, goodAnswers, keyFor, type FormWorkspace } from '../../support/given';
import { eventsReadable, useWebhookApp } from '../webhooks/harness';

jest.setTimeout(60_000);

// A database of the file's own on PostgreSQL: the prune test deletes every workspace's old events.
const t = useWebhookApp({}, { own: !onEmbeddedDb() });

interface EventA {
  id: string;
  type: string;
  position: string;
  created_at: string;
  data: Record<string, unknown>;
}

const settled = (ws: string) => eventsReadable(t.db, ws);

const listA = async (w: { ws: string; key: string }, query = '') => {
  await settled(w.ws);
  const res = await t.http().get(`/api/v1/workspaces/${w.ws}/events${query}`).set('X-API-Key', w.key).set('X-API-Style', 'A');
  return res;
};
const typesA = async (w: { ws: string; key: string }, query = '') => ((await listA(w, query)).body.data as EventA[]).map((e) => e.type);

const send = (w: FormWorkspace, method: 'post' | 'patch' | 'delete', path: string, body?: object) => {
  const req = t.http()[method](`/api/v1/workspaces/${w.ws}${path}`).set('X-API-Key', w.key).set('X-API-Style', 'A').set('Idempotency-Key', nanoid());
  return body ? req.send(body) : req;
};

async function submit(w: FormWorkspace, email = 'someone@example.com'): Promise<string> {
  const res = await send(w, 'post', '/responses', { form_id: w.form, answers: goodAnswers(), respondent_email: email, email_id: 'em_1' });
  expect([res.status, res.body.error]).toEqual([201, undefined]);
  return res.body.data.id as string;
}

describe('the event log records every change', () => {
  it('logs each kind of write with no webhook endpoint, in order, with its resource in the style asked', async () => {
    const w = await formWorkspace(t.db);
    const rsp = await submit(w);
    expect((await send(w, 'post', `/datatables/${w.table}/rows`, { data: { id: 'c-new', plan: 'basic' } })).status).toBe(201);
    expect((await send(w, 'patch', `/datatables/${w.table}/rows/${w.row}`, { data: { plan: 'basic' } })).status).toBe(200);
    expect((await send(w, 'delete', `/datatables/${w.table}/rows/${w.row}`)).status).toBe(204);
    expect((await send(w, 'post', '/email-events', { data: { email_id: 'em_1', email: 'x@example.com', type: 'send' } })).status).toBe(201);
    expect((await send(w, 'delete', `/responses/${rsp}`)).status).toBe(204);
    const rsp2 = await submit(w);
    expect((await send(w, 'post', '/response-deletions', { form_id: w.form })).status).toBe(200);

    const res = await listA(w);
    expect(res.status).toBe(200);
    const events = res.body.data as EventA[];
    expect(events.map((e) => e.type)).toEqual([
      'response.created',
      'row.created',
      'row.updated',
      'row.deleted',
      'email_event.created',
      'response.deleted',
      'response.created',
      'response.deleted',
    ]);
    // Positions are 32 hex digits, increasing as text; ids are the events' own.
    const positions = events.map((e) => e.position);
    expect(positions.every((p) => /^[0-9a-f]{32}$/.test(p))).toBe(true);
    expect([...positions].sort()).toEqual(positions);
    expect(events[0]!.data).toMatchObject({ id: rsp, form_id: w.form, respondent_email: 'someone@example.com' });
    expect(events[3]!.data).toEqual({ row_id: w.row, datatable_id: w.table });
    expect(events[7]!.data).toEqual({ id: rsp2, form_id: w.form });
    // No webhook was involved.
    expect(Number((await t.db('webhook_events').where('workspace_id', w.ws).count({ n: '*' }).first())!.n)).toBe(0);

    // Style B: camelCase, page paging with totals, the resource as Style B shows it.
    const b = await t.http().get(`/api/v1/workspaces/${w.ws}/events?page=1&limit=2`).set('X-API-Key', w.key);
    expect(b.status).toBe(200);
    expect(b.body.meta).toEqual({ total: 8, page: 1, limit: 2, filtered_total: 8 });
    expect(b.body.data[0]).toMatchObject({
      type: 'response.created',
      position: positions[0],
      data: { id: rsp, form: { id: w.form }, createdAt: expect.any(String) },
    });
    expect(Object.keys(b.body.data[0] as object).sort()).toEqual(['createdAt', 'data', 'id', 'position', 'type']);
  });

  it('logs the retention prune of responses and an erasure as events, and the erasure removes the person from the log', async () => {
    const w = await formWorkspace(t.db);
    await submit(w, 'erase.me@example.com');
    const keep = await submit(w, 'stays@example.com');
    const erased = await send(w, 'post', '/erasure-requests', { email: 'erase.me@example.com' });
    expect(erased.status).toBe(201);
    const events = (await listA(w)).body.data as EventA[];
    expect(events.map((e) => e.type)).toEqual(['response.created', 'response.deleted', 'respondent.erased']);
    expect(events[0]!.data).toMatchObject({ id: keep });
    expect(JSON.stringify(events)).not.toContain('erase.me@example.com');
    expect(JSON.stringify(await t.db('event_log').where('workspace_id', w.ws))).not.toContain('erase.me@example.com');
    expect(events[2]!.data).toMatchObject({ erasure_id: erased.body.data.id });

    // The workspace's response retention deletes the other one: a response.deleted event too.
    await t.db('workspaces').where('id', w.ws).update({ response_retention_days: 1 });
    await t
      .db('responses')
      .where('workspace_id', w.ws)
      .update({ created_at: new Date(Date.now() - 3 * 86_400_000) });
    await pruneExpiredResponses(t.db, new Date(), { pauseMs: 0 });
    expect((await typesA(w)).slice(-1)).toEqual(['response.deleted']);
  });
});

describe('GET {ws}/events', () => {
  it('pages Style A by position, filters by type and time, and resumes from any position', async () => {
    const w = await formWorkspace(t.db);
    for (let i = 0; i < 3; i++) await submit(w);
    await send(w, 'patch', `/datatables/${w.table}/rows/${w.row}`, { data: { plan: 'basic' } });
    const first = await listA(w, '?limit=2');
    expect(first.body.meta).toEqual({ limit: 2, has_more: true });
    const all = ((await listA(w)).body.data as EventA[]).map((e) => e.position);
    expect((first.body.data as EventA[]).map((e) => e.position)).toEqual(all.slice(0, 2));
    const next = await t
      .http()
      .get(new URL(first.body.links.next as string).pathname + new URL(first.body.links.next as string).search)
      .set('X-API-Key', w.key);
    expect((next.body.data as EventA[]).map((e) => e.position)).toEqual(all.slice(2, 4));
    expect(next.body.meta.has_more).toBe(false);
    // The position of any event is a cursor: what follows it.
    expect(((await listA(w, `?cursor=${all[0]}`)).body.data as EventA[]).map((e) => e.position)).toEqual(all.slice(1));
    expect(await typesA(w, '?type=row.updated')).toEqual(['row.updated']);
    expect(await typesA(w, '?type=row.updated&type=response.created')).toHaveLength(4);
    expect(await typesA(w, `?created_after=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).toEqual([]);
    // Style B: type and filter.
    const b = await t
      .http()
      .get(`/api/v1/workspaces/${w.ws}/events?filter=${encodeURIComponent('type = row.updated')}`)
      .set('X-API-Key', w.key);
    expect(b.status).toBe(200);
    expect(b.body.meta).toMatchObject({ total: 4, filtered_total: 1 });
  });

  it('answers 400 naming a bad cursor, 403 without events:read', async () => {
    const w = await formWorkspace(t.db);
    const bad = await listA(w, '?cursor=nope');
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].field).toBe('cursor');
    const other = await keyFor(t.db, [w.ws], { scopes: ALL_SCOPES.filter((s) => s !== 'events:read') });
    const denied = await t.http().get(`/api/v1/workspaces/${w.ws}/events`).set('X-API-Key', other).set('X-API-Style', 'A');
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('insufficient_scope');
  });
});

describe('the scope migration', () => {
  it('gives events:read to keys holding every resource scope, not to narrower ones', async () => {
    const w = await formWorkspace(t.db);
    const all = await keyFor(t.db, [w.ws], { scopes: ALL_SCOPES.filter((sc) => sc !== 'events:read') });
    const narrow = await keyFor(t.db, [w.ws], { scopes: ['webhooks:read'] });
    const scopesOf = async (secret: string) =>
      ((await t.db('api_keys').where('key_hash', createHash('sha256').update(secret).digest('hex')).first('scopes')) as { scopes: string[] }).scopes;
    await events022.up(t.db);
    await events022.up(t.db);
    expect((await scopesOf(all)).filter((sc) => sc === 'events:read')).toEqual(['events:read']);
    expect(await scopesOf(narrow)).toEqual(['webhooks:read']);
  });
});

describe('retention', () => {
  it('prunes old events in batches, remembers the pruned position and answers 410 position_expired below it', async () => {
    const w = await formWorkspace(t.db);
    for (let i = 0; i < 5; i++) await submit(w);
    const positions = ((await listA(w)).body.data as EventA[]).map((e) => e.position);
    // The three oldest are 40 days old.
    const old = await t
      .db('event_log')
      .where('workspace_id', w.ws)
      .orderBy([{ column: 'xid' }, { column: 'seq' }])
      .limit(3)
      .select('seq');
    await t
      .db('event_log')
      .where('workspace_id', w.ws)
      .whereIn(
        'seq',
        old.map((r: { seq: string }) => r.seq),
      )
      .update({ created_at: new Date(Date.now() - 40 * 86_400_000) });
    expect(await pruneEventLog(t.db, 30, new Date(), { batchSize: 2, pauseMs: 0 })).toBe(3);
    expect(await pruneEventLog(t.db, 30, new Date(), { batchSize: 2, pauseMs: 0 })).toBe(0);

    const kept = ((await listA(w)).body.data as EventA[]).map((e) => e.position);
    expect(kept).toEqual(positions.slice(3));
    // From the last pruned position on: fine; from below it: 410.
    expect(((await listA(w, `?cursor=${positions[2]}`)).body.data as EventA[]).map((e) => e.position)).toEqual(positions.slice(3));
    const gone = await listA(w, `?cursor=${positions[1]}`);
    expect(gone.status).toBe(410);
    expect(gone.body.error.code).toBe('position_expired');
    await expect(eventsAfter(t.db, w.ws, positions[0], { limit: 10 })).rejects.toMatchObject({ code: 'position_expired', status: 410 });
  });
});

(onEmbeddedDb() ? describe.skip : describe)('commit order (PostgreSQL: two connections)', () => {
  it('reads events of two transactions committing out of order in position order, skipping none', async () => {
    const w = await formWorkspace(t.db);
    await commitOutOfOrder(t.db, w.ws, w.table, async () => {
      // The second has committed; the first is still open: a reader sees neither (the second is above the open xid).
      expect((await eventsAfter(t.db, w.ws, undefined, { limit: 10 })).events).toEqual([]);
    });
    await settled(w.ws);
    const read = (await eventsAfter(t.db, w.ws, undefined, { limit: 10 })).events;
    expect(read.map((e) => (e.resource as { rowId: string }).rowId)).toEqual(['first', 'second']);
    expect(read[0]!.position < read[1]!.position).toBe(true);
  });

  it('a position read is never overtaken: a later commit lands above it', async () => {
    const w = await formWorkspace(t.db);
    const event = (id: string) => ({ type: 'row.deleted' as const, resource: { kind: 'row_deleted' as const, rowId: id, datatableId: w.table } });
    await withTransaction(t.db, (trx) => recordEvents(trx, w.ws, [event('a')]));
    await settled(w.ws);
    const [a] = (await eventsAfter(t.db, w.ws, undefined, { limit: 10 })).events;
    await withTransaction(t.db, (trx) => recordEvents(trx, w.ws, [event('b')]));
    await settled(w.ws);
    const after = (await eventsAfter(t.db, w.ws, a!.position, { limit: 10 })).events;
    expect(after.map((e) => (e.resource as { rowId: string }).rowId)).toEqual(['b']);
    expect(positionToken('1', 2)).toBe('00000000000000010000000000000002');
  });
});
