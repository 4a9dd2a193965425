/**
 * The event log (docs/live.md, "Event log"; issue 31 item 1): the store of `event_log` and `event_log_pruned`
 * (migration 022). Every write that makes an event appends it here in its own transaction, through the one entry
 * point core/webhooks/outbox.ts `recordEvents` (which also adds the webhook deliveries of subscribed endpoints), so an
 * event is logged whether or not a webhook subscribes, and a rolled-back write logs nothing.
 *
 * Position: each row holds `xid`, the top-level id of the transaction that wrote it (`pg_current_xact_id()`, xid8: 64
 * bits, never wraps), and `seq`, a global bigserial in insert order; the log's order is (`xid`, `seq`). Transactions
 * commit out of order, so a reader only returns rows whose `xid` is below the xmin of its own statement's snapshot
 * (`pg_snapshot_xmin(pg_current_snapshot())`, computed in the same statement): every transaction id below xmin has
 * ended (committed, and so visible to the statement, or rolled back), and every transaction that has not ended, or has
 * not written yet, has an id at or above xmin, so its rows land above every position the reader returned. A reader that
 * has seen position N therefore never later finds an event below N appear. The cost: an open transaction with an id
 * (any write, in any database of the cluster) holds readers back until it ends; writers never wait for each other.
 *
 * The position is shown as a token (positionToken): 32 lower-case hex digits, `xid` then `seq`, each zero-padded to
 * 16, so comparing two tokens as text orders them as the log does. Clients treat it as opaque.
 */
import type { Knex } from 'knex';
import type { DbHandle } from '../../db';
import { resourceHoldsPerson, type PersonKey } from '../respondents/person-key';
import type { BatchOptions } from '../../db/batches';
import { deleteInBatches } from '../../db/batches';
import { errors } from '../errors';
import type { DateBound } from '../query/dates';
import { DAY_MS } from '../query/dates';
import { fieldMap, type ListField } from '../query/fields';
import { compileFilter } from '../query/filter';
import type { OffsetPage, OffsetPagination } from '../query/list';
import { sql } from '../query/sql';
import { decodeResource, type EventResource, type EventType } from './events.types';

/** Default of `EVENT_RETENTION_DAYS` (Stripe keeps events 30 days). */
export const DEFAULT_EVENT_RETENTION_DAYS = 30;

/** One logged event (times are UTC Dates). */
export interface LoggedEvent {
  id: string;
  type: EventType;
  /** The position token (positionToken). */
  position: string;
  createdAt: Date;
  resource: EventResource;
}

/** A position as stored: the transaction id and the sequence number, as decimal text (bigint-safe). */
interface Position {
  xid: bigint;
  seq: bigint;
}

const HEX16 = (n: bigint) => n.toString(16).padStart(16, '0');

/** The token of a position: 32 hex digits (`xid`, then `seq`, 16 each), ordered as text as the log is. */
export function positionToken(xid: string | bigint, seq: string | number | bigint): string {
  return HEX16(BigInt(xid)) + HEX16(BigInt(seq));
}

/**
 * Reads a position token.
 * @param field the parameter that carried it (named by the 400).
 * @throws AppError validation_error when it is not 32 hex digits.
 */
export function parsePosition(token: string, location: 'query' | 'header', field: string): Position {
  if (!/^[0-9a-f]{32}$/i.test(token)) {
    throw errors.invalid(
      location,
      field,
      `\`${field}\` must be an event position (32 hex digits, e.g. the \`position\` of an event); got "${token.slice(0, 40)}".`,
    );
  }
  return { xid: BigInt(`0x${token.slice(0, 16)}`), seq: BigInt(`0x${token.slice(16)}`) };
}

const below = (a: Position, b: Position) => a.xid < b.xid || (a.xid === b.xid && a.seq < b.seq);

interface LogRow {
  id: string;
  type: EventType;
  xid: string;
  seq: string | number;
  created_at: Date;
  resource: unknown;
}

const toEvent = (r: LogRow): LoggedEvent => ({
  id: r.id,
  type: r.type,
  position: positionToken(r.xid, r.seq),
  createdAt: r.created_at,
  resource: decodeResource(typeof r.resource === 'string' ? JSON.parse(r.resource) : r.resource),
});

// Writes.

/** One event to append: its id (`evt_…`), type and resource. */
export interface LogEntry {
  id: string;
  type: EventType;
  resource: EventResource;
}

/**
 * Appends events to the log in the caller's transaction (the write's: they commit or roll back with it), in order;
 * `xid` and `seq` are filled in by the database. Called by core/webhooks/outbox.ts `recordEvents` only.
 * @returns each event's time (the transaction's start, as `now()`), by id.
 */
export async function appendEvents(trx: Knex.Transaction, workspaceId: string, entries: readonly LogEntry[]): Promise<Map<string, Date>> {
  const out = new Map<string, Date>();
  // Large bulk writes: keep each insert well under the bind-parameter limit.
  for (let i = 0; i < entries.length; i += 1000) {
    const rows = (await trx('event_log')
      .insert(entries.slice(i, i + 1000).map((e) => ({ workspace_id: workspaceId, id: e.id, type: e.type, resource: JSON.stringify(e.resource) })))
      .returning(['id', 'created_at'])) as Array<{ id: string; created_at: Date }>;
    for (const r of rows) out.set(r.id, r.created_at);
  }
  return out;
}

// Reads.

const col = (name: string, column: string, type: ListField['type']): ListField => ({ name, expr: sql('??', column), type, nullable: false });
/** Style B `filter` fields (docs/api-rules.md, "Filter language"). */
const FILTER_FIELDS = fieldMap([col('type', 'e.type', 'text'), col('id', 'e.id', 'text'), col('created_at', 'e.created_at', 'timestamp')]);

/**
 * The narrowing of a read of the log: types (any of), `created_at` bounds (half-open as elsewhere), and Style B's
 * `filter` expression over `type`, `id`, `created_at`.
 */
export interface EventFilters {
  types?: readonly string[] | undefined;
  created?: readonly DateBound[] | undefined;
  filter?: string | undefined;
}

/** A read after a position: the events, and whether more follow the last one now. */
export interface EventsAfter {
  events: LoggedEvent[];
  hasMore: boolean;
}

/** The filters of a read (`e` is the log). @throws AppError validation_error for a `filter` problem. */
function filtered(q: Knex.QueryBuilder, f: EventFilters): Knex.QueryBuilder {
  if (f.types !== undefined && f.types.length > 0) q.whereIn('e.type', [...f.types]);
  for (const b of f.created ?? []) q.where('e.created_at', b.op, b.value);
  if (f.filter !== undefined) {
    const { where } = compileFilter(f.filter, { fields: FILTER_FIELDS });
    q.whereRaw(where.sql, where.bindings);
  }
  return q;
}

/** The conditions every read shares: the workspace, committed below the statement's xmin, and the filters. */
function narrowed(q: Knex.QueryBuilder, workspaceId: string, f: EventFilters): Knex.QueryBuilder {
  q.where('e.workspace_id', workspaceId).whereRaw('e.xid < pg_snapshot_xmin(pg_current_snapshot())');
  return filtered(q, f);
}

/** The token of the position before every event (a stream of a workspace with no event yet starts there). */
export const POSITION_ZERO = positionToken(0n, 0n);

/**
 * The position a live stream that names none starts after: the workspace's newest readable event's (the same
 * visibility rule as eventsAfter, so every event readable later lies above it), or POSITION_ZERO.
 * Spec: docs/live.md, "Stream".
 */
export async function latestPosition(db: DbHandle, workspaceId: string): Promise<string> {
  type At = { xid: string; seq: string | number } | undefined;
  const [newest, pruned] = (await Promise.all([
    narrowed(db('event_log as e'), workspaceId, {})
      .select(db.raw('e.xid::text AS xid'), 'e.seq')
      .orderBy([
        { column: 'e.xid', order: 'desc' },
        { column: 'e.seq', order: 'desc' },
      ])
      .first(),
    // A workspace whose events were all pruned starts at the pruned position (below it eventsAfter answers 410).
    db('event_log_pruned').select(db.raw('xid::text AS xid'), 'seq').where('workspace_id', workspaceId).first(),
  ])) as [At, At];
  const tokens = [newest, pruned].map((r) => (r ? positionToken(r.xid, r.seq) : POSITION_ZERO));
  return tokens.sort().at(-1)!;
}

/**
 * Checks the filters of a read without reading (a stream validates them before its first byte).
 * @throws AppError validation_error for a `filter` problem, naming `filter`.
 */
export function checkEventFilters(f: EventFilters): void {
  if (f.filter !== undefined) compileFilter(f.filter, { fields: FILTER_FIELDS });
}

/**
 * The events among `events` (those of the position range (`from`, `to`] a stream has read with eventsAfter) that the
 * filters select: a stream's filter, applied as SQL over that range on the log's primary key (no query when the
 * filters select every event).
 * @returns the matching events, in log order.
 * @throws AppError validation_error for a `filter` problem.
 * Spec: docs/live.md, "Stream" (`GET {ws}/events/stream`).
 */
export async function eventsMatching(
  db: DbHandle,
  workspaceId: string,
  range: { from: string; to: string; events: readonly LoggedEvent[] },
  f: EventFilters,
): Promise<LoggedEvent[]> {
  const { from, to, events } = range;
  if (events.length === 0 || ((f.types ?? []).length === 0 && (f.created ?? []).length === 0 && f.filter === undefined)) return [...events];
  const lo = parsePosition(from, 'query', 'after');
  const hi = parsePosition(to, 'query', 'after');
  const q = filtered(db('event_log as e').select('e.id').where('e.workspace_id', workspaceId), f)
    .whereRaw('(e.xid, e.seq) > (?::xid8, ?::bigint)', [lo.xid.toString(), lo.seq.toString()])
    .whereRaw('(e.xid, e.seq) <= (?::xid8, ?::bigint)', [hi.xid.toString(), hi.seq.toString()]);
  const keep = new Set(((await q) as Array<{ id: string }>).map((r) => r.id));
  return events.filter((e) => keep.has(e.id));
}

/**
 * The workspace's events after `after` in log order, at most `limit`, read in ONE statement (one snapshot) together
 * with the workspace's pruned position, so a prune committing meanwhile can neither hide events silently nor be missed.
 * A reader that keeps the last event's position and asks again gets every later event exactly once, in order.
 * @param after a position token (parsePosition), or undefined for the oldest kept event.
 * @param opts `limit` 1..1000; `types` and `created` narrow the events returned (positions still advance past others).
 * @returns the events and `hasMore`.
 * @throws AppError position_expired (410) when `after` is below the highest position the retention pruned (events
 *   after it are gone: relist from the start); validation_error for a token that does not parse (naming `field`).
 * Spec: GET {ws}/events (Style A `after`/`cursor`); the stream of docs/live.md resumes through it.
 */
export async function eventsAfter(
  db: DbHandle,
  workspaceId: string,
  after: string | undefined,
  opts: EventFilters & { limit: number; field?: string },
): Promise<EventsAfter> {
  const from = after === undefined ? undefined : parsePosition(after, 'query', opts.field ?? 'after');
  const inner = narrowed(db('event_log as e').select('e.id', 'e.type', db.raw('e.xid::text AS xid'), 'e.seq', 'e.created_at', 'e.resource'), workspaceId, opts);
  if (from) inner.whereRaw('(e.xid, e.seq) > (?::xid8, ?::bigint)', [from.xid.toString(), from.seq.toString()]);
  inner.orderBy([{ column: 'e.xid' }, { column: 'e.seq' }]).limit(opts.limit + 1);
  const { rows } = (await db.raw(
    `SELECT h.xid::text AS h_xid, h.seq AS h_seq, page.*
       FROM (SELECT 1) AS one
       LEFT JOIN event_log_pruned h ON h.workspace_id = ?
       LEFT JOIN LATERAL ? AS page ON true
      ORDER BY page.xid::xid8, page.seq`,
    [workspaceId, inner],
  )) as { rows: Array<Partial<LogRow> & { h_xid: string | null; h_seq: string | null }> };
  const horizon = rows[0]?.h_xid != null ? { xid: BigInt(rows[0].h_xid), seq: BigInt(rows[0].h_seq!) } : undefined;
  if (from && horizon && below(from, horizon)) throw errors.positionExpired(positionToken(horizon.xid, horizon.seq));
  const found = rows.filter((r): r is LogRow & { h_xid: string | null; h_seq: string | null } => r.id != null).map(toEvent);
  return { events: found.slice(0, opts.limit), hasMore: found.length > opts.limit };
}

/**
 * How many of the workspace's readable events the filters select (the same visibility rule as eventsAfter).
 * Spec: a webhook recovery's `total` (docs/webhooks.md, "Recovering missed events").
 */
export async function countEvents(db: DbHandle, workspaceId: string, f: EventFilters): Promise<number> {
  const row = (await narrowed(db('event_log as e'), workspaceId, f).count({ n: '*' }).first()) as { n: unknown } | undefined;
  return Number(row?.n ?? 0);
}

/**
 * The workspace's events in log order as an offset page (Style B), with `total` (the workspace's readable events) and
 * `filteredTotal`; the same visibility rule as eventsAfter (nothing at or above the statement's xmin).
 * @param q.filter Style B's filter expression over `type`, `id`, `created_at`.
 * @throws AppError validation_error for a filter problem or a `page` too large.
 * Spec: GET {ws}/events (Style B).
 */
export async function listEventsOffset(
  db: DbHandle,
  workspaceId: string,
  q: EventFilters & { pagination: OffsetPagination },
): Promise<OffsetPage<LoggedEvent>> {
  const { page, limit } = q.pagination;
  const offset = (page - 1) * limit;
  if (!Number.isSafeInteger(offset)) throw errors.invalid('query', 'page', '`page` is too large.');
  const base = narrowed(db('event_log as e'), workspaceId, q);
  const count = async (b: Knex.QueryBuilder) => Number(((await b.count({ n: '*' }).first()) as { n: unknown } | undefined)?.n ?? 0);
  const [rows, total, filteredTotal] = await Promise.all([
    base
      .clone()
      .select('e.id', 'e.type', db.raw('e.xid::text AS xid'), 'e.seq', 'e.created_at', 'e.resource')
      .orderBy([{ column: 'e.xid' }, { column: 'e.seq' }])
      .offset(offset)
      .limit(limit) as Promise<LogRow[]>,
    count(narrowed(db('event_log as e'), workspaceId, {})),
    count(base.clone()),
  ]);
  return { kind: 'page', items: rows.map(toEvent), page, limit, total, filteredTotal };
}

// Retention and erasure.

/**
 * Deletes events older than `retentionDays` before `now`, oldest first, at most `batchSize` per statement, and in the
 * same statement raises each workspace's pruned position (`event_log_pruned`) to the highest one deleted, so a reader
 * asking from below it gets position_expired instead of a silent gap.
 * @returns the events deleted.
 * Spec: docs/operations.md, "What grows, and what bounds it" (`EVENT_RETENTION_DAYS`).
 */
export function pruneEventLog(db: DbHandle, retentionDays: number, now: Date, opts: BatchOptions = {}): Promise<number> {
  const before = new Date(now.getTime() - retentionDays * DAY_MS);
  return deleteInBatches(async (limit) => {
    const { rows } = (await db.raw(
      `WITH gone AS (
         DELETE FROM event_log WHERE (workspace_id, xid, seq) IN (
           SELECT workspace_id, xid, seq FROM event_log WHERE created_at < ? ORDER BY created_at LIMIT ?)
         RETURNING workspace_id, xid, seq),
       top AS (SELECT DISTINCT ON (workspace_id) workspace_id, xid, seq FROM gone ORDER BY workspace_id, xid DESC, seq DESC),
       raised AS (
         INSERT INTO event_log_pruned AS p (workspace_id, xid, seq) SELECT workspace_id, xid, seq FROM top
         ON CONFLICT (workspace_id) DO UPDATE SET xid = EXCLUDED.xid, seq = EXCLUDED.seq
          WHERE (EXCLUDED.xid, EXCLUDED.seq) > (p.xid, p.seq)
         RETURNING 1)
       SELECT (SELECT count(*) FROM gone) AS n`,
      [before, limit],
    )) as { rows: Array<{ n: string | number }> };
    return Number(rows[0]?.n ?? 0);
  }, opts);
}

/**
 * Deletes the workspace's logged events whose resource holds the person key's address or row id
 * (resourceHoldsPerson), in the caller's transaction (an erasure's: docs/data-rights.md, "Erasing a person"), so no
 * list, stream or later recovery shows or sends them again. The events that say what was deleted (`response.deleted`,
 * `row.deleted`, `respondent.erased`) hold no address and stay.
 * @returns how many went.
 */
export async function deleteEventsHolding(trx: Knex.Transaction, workspaceId: string, p: PersonKey): Promise<number> {
  const rows = (await trx('event_log')
    .where('workspace_id', workspaceId)
    .where((w) => resourceHoldsPerson(w, p))
    .delete()
    .returning('id')) as unknown[];
  return rows.length;
}
