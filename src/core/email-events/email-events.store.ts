/**
 * The store of email events (`email_events`, `email_event_counts`; API document "Email event";
 * docs/decisions.md, "Resource shapes"): history records of sends, deliveries, opens, clicks, bounces,
 * complaints and unsubscribes. Style A `/email-events`, `/emails/{id}/events`; Style B `/emails/events`.
 * Totals for Style B come from `email_event_counts`. The one path that stores email events
 * (docs/collecting.md, "Provider events"): the provider endpoint `POST {ws}/email-events` and the email
 * links' `click` / `open` both call `recordEmailEvents`.
 */
import type { Knex } from 'knex';
import type { DbHandle } from '../../db';
import { cursorBatches } from '../../db/batches';
import type { DateBound } from '../query/dates';
import { fieldMap, type ListField } from '../query/fields';
import { compileFilter } from '../query/filter';
import { countRows, fetchKeysetPage, fetchOffsetPage, type KeysetPage, type KeysetQuery, type OffsetPage, type OffsetQuery, sumColumn } from '../query/list';
import { parseSortNewestFirst } from '../query/sort';
import { sql } from '../query/sql';
import type { PersonKey } from '../respondents/person-key';
import { type ErrorDetail, errors } from '../errors';
import { newId } from '../ids';
import { recordEvents } from '../webhooks/outbox';

export const EMAIL_EVENT_TYPES = ['send', 'delivery', 'open', 'click', 'bounce', 'complaint', 'unsubscribe'] as const;
export type EmailEventType = (typeof EMAIL_EVENT_TYPES)[number];

export interface EmailEvent {
  id: string;
  emailId: string;
  email: string;
  type: EmailEventType;
  rowId: string | null;
  formId: string | null;
  flowId: string | null;
  createdAt: Date;
}

const col = (name: string, column: string, type: ListField['type'], nullable = false): ListField => ({
  name,
  expr: sql('??', column),
  type,
  nullable,
});
const ID = col('id', 'id', 'text');
const SORT_FIELDS = fieldMap([col('created_at', 'created_at', 'timestamp')]);
/** Style B `filter` fields (docs/api-rules.md, "Filter language"). */
const FILTER_FIELDS = fieldMap([
  col('event_type', 'type', 'text'),
  col('email_id', 'email_id', 'text'),
  col('email', 'email', 'text'),
  col('form_id', 'form_id', 'text', true),
  col('row_id', 'row_id', 'text', true),
  col('flow_id', 'flow_id', 'text', true),
]);

export interface EmailEventListQuery {
  emailId?: string | undefined;
  type?: string | undefined;
  /** Recipient address, matched exactly ignoring case. */
  recipient?: string | undefined;
  created?: readonly DateBound[];
  filter?: string | undefined;
  sort?: string | undefined;
  multiSort?: boolean;
}

/** An `email_events` row as selected (snake_case). */
export interface EventRow {
  id: string;
  email_id: string;
  email: string;
  type: EmailEventType;
  row_id: string | null;
  form_id: string | null;
  flow_id: string | null;
  created_at: Date;
}

export const toEvent = (r: EventRow): EmailEvent => ({
  id: r.id,
  emailId: r.email_id,
  email: r.email,
  type: r.type,
  rowId: r.row_id,
  formId: r.form_id,
  flowId: r.flow_id,
  createdAt: r.created_at,
});

/**
 * The sort keys and the narrowed query of an email events list.
 * @throws AppError validation_error for sort or filter problems.
 */
function eventsQuery(db: DbHandle, workspaceId: string, q: EmailEventListQuery) {
  const keys = parseSortNewestFirst(q.sort, {
    fields: SORT_FIELDS,
    tieBreaker: ID,
    multi: q.multiSort ?? false,
  });
  const base = db('email_events').select('id', 'email_id', 'email', 'type', 'row_id', 'form_id', 'flow_id', 'created_at').where('workspace_id', workspaceId);
  if (q.emailId !== undefined) base.where('email_id', q.emailId);
  if (q.type !== undefined) base.where('type', q.type);
  if (q.recipient !== undefined) base.whereRaw('lower(email) = lower(?)', [q.recipient]);
  for (const b of q.created ?? []) base.where('created_at', b.op, b.value);
  if (q.filter !== undefined) {
    const { where } = compileFilter(q.filter, { fields: FILTER_FIELDS });
    base.whereRaw(where.sql, where.bindings);
  }
  return { keys, base };
}

/**
 * Lists email events of a workspace, narrowed by email, type, recipient, dates and `filter`, as a
 * keyset page (Style A).
 * @throws AppError validation_error for sort, filter or cursor problems.
 */
export async function listEmailEventsKeyset(db: DbHandle, workspaceId: string, q: KeysetQuery<EmailEventListQuery>): Promise<KeysetPage<EmailEvent>> {
  const { keys, base } = eventsQuery(db, workspaceId, q);
  const listId = q.emailId === undefined ? `email_events:${workspaceId}` : `email_events:${workspaceId}:${q.emailId}`;
  const { limit, cursor } = q.pagination;
  const page = await fetchKeysetPage<EventRow & Record<string, unknown>>(db, base, keys, limit, cursor, listId);
  return { kind: 'keyset', items: page.rows.map(toEvent), limit, nextCursor: page.nextCursor, prevCursor: page.prevCursor };
}

/**
 * Lists email events of a workspace, narrowed as listEmailEventsKeyset does, as an offset page
 * (Style B) with `total` and `filteredTotal`.
 * @throws AppError validation_error for sort or filter problems or a `page` too large.
 */
export async function listEmailEventsOffset(db: DbHandle, workspaceId: string, q: OffsetQuery<EmailEventListQuery>): Promise<OffsetPage<EmailEvent>> {
  const { keys, base } = eventsQuery(db, workspaceId, q);
  const { page, limit } = q.pagination;
  const onlyType = q.emailId === undefined && q.recipient === undefined && (q.created?.length ?? 0) === 0 && q.filter === undefined;
  const counts = db('email_event_counts').where('workspace_id', workspaceId);
  const [rows, total, filteredTotal] = await Promise.all([
    fetchOffsetPage<EventRow>(base, keys, page, limit, ['workspace_id', 'id']),
    sumColumn(counts, 'events'),
    onlyType ? sumColumn(q.type === undefined ? counts : counts.clone().where('type', q.type), 'events') : countRows(base),
  ]);
  return { kind: 'page', items: rows.map(toEvent), page, limit, total, filteredTotal };
}

// Writes.

/**
 * The `email_events` table row of one event: the one mapping for the API's writes and the importer.
 * @param createdAt a Date, or an ISO 8601 string already in UTC (the importer's).
 */
export function emailEventRecord(workspaceId: string, id: string, e: Omit<EmailEventInput, 'id' | 'createdAt'>, createdAt: Date | string) {
  return {
    workspace_id: workspaceId,
    id,
    email_id: e.emailId,
    email: e.email,
    type: e.type,
    row_id: e.rowId ?? null,
    form_id: e.formId ?? null,
    flow_id: e.flowId ?? null,
    created_at: createdAt,
  };
}

export interface EmailEventInput {
  /** The provider's id; absent: generated (`ev_…`). An id already stored is not stored again. */
  id?: string | undefined;
  emailId: string;
  email: string;
  type: EmailEventType;
  /** Absent: now. */
  createdAt?: Date | undefined;
  rowId?: string | null | undefined;
  formId?: string | null | undefined;
  flowId?: string | null | undefined;
}

export interface RecordedEmailEvents {
  /** One per input item, in request order: the stored event (an id seen before shows the stored one). */
  events: EmailEvent[];
  /** How many events this call stored (0: every one was already stored). */
  created: number;
}

/**
 * Stores email events of a workspace, idempotent on `id`, in the caller's transaction; emits
 * `email_event.created` for each newly stored event in the same transaction.
 * @param opts.single the items came as one `{"data": event}` (error fields `data.type`, else `data[i].type`).
 * @returns the events in request order and how many were newly stored.
 * @throws AppError validation_error naming `data[i].type` for a type outside the list of docs/decisions.md, "Resource shapes"
 * (adapters validate shapes first; this guards other callers). Nothing is stored on any error.
 */
export async function recordEmailEvents(
  trx: Knex.Transaction,
  workspaceId: string,
  items: readonly EmailEventInput[],
  opts: { single?: boolean } = {},
): Promise<RecordedEmailEvents> {
  const at = (i: number) => (opts.single ? 'data' : `data[${i}]`);
  const details: ErrorDetail[] = [];
  items.forEach((it, i) => {
    if (!(EMAIL_EVENT_TYPES as readonly string[]).includes(it.type)) {
      details.push({
        location: 'body',
        field: `${at(i)}.type`,
        message: `\`${at(i)}.type\` must be one of ${EMAIL_EVENT_TYPES.join(', ')}; got "${it.type}".`,
      });
    }
  });
  if (details.length > 0) throw errors.validation(details);
  if (items.length === 0) return { events: [], created: 0 };

  const now = new Date();
  const ids = items.map((it) => it.id ?? newId('emailEvent'));
  // The first item with an id is the one stored; later ones with the same id answer as stored.
  const firstIndex = new Map<string, number>();
  ids.forEach((id, i) => firstIndex.has(id) || firstIndex.set(id, i));
  const rows = [...firstIndex.entries()].map(([id, i]) => emailEventRecord(workspaceId, id, items[i]!, items[i]!.createdAt ?? now));
  const columns = ['id', 'email_id', 'email', 'type', 'row_id', 'form_id', 'flow_id', 'created_at'];

  const inserted = (await trx('email_events').insert(rows).onConflict(['workspace_id', 'id']).ignore().returning(columns)) as EventRow[];
  const byId = new Map(inserted.map((r) => [r.id, toEvent(r)]));
  const fresh = [...byId.values()];
  const missing = [...firstIndex.keys()].filter((id) => !byId.has(id));
  if (missing.length > 0) {
    const stored = (await trx('email_events').select(columns).where('workspace_id', workspaceId).whereIn('id', missing)) as EventRow[];
    for (const r of stored) byId.set(r.id, toEvent(r));
  }
  if (fresh.length > 0) {
    await recordEvents(
      trx,
      workspaceId,
      fresh.map((event) => ({ type: 'email_event.created' as const, resource: { kind: 'email_event' as const, event } })),
    );
  }
  return { events: ids.map((id) => byId.get(id)!), created: fresh.length };
}

/**
 * The email events sent to `address` (docs/data-rights.md, "Whose data is it"), oldest first (created_at, id), in
 * batches through a server-side cursor in `trx` (a read-only transaction the caller ends; cursorBatches). Index
 * `email_events_recipient_keyset_idx` finds them.
 * @param address the person's email address in lower case.
 */
export async function* personEmailEvents(
  trx: Knex.Transaction,
  workspaceId: string,
  address: string,
  batchSize = 500,
): AsyncGenerator<EmailEvent[], void, undefined> {
  const query = trx('email_events')
    .select('id', 'email_id', 'email', 'type', 'row_id', 'form_id', 'flow_id', 'created_at')
    .where('workspace_id', workspaceId)
    .whereRaw('lower(email) = ?', [address])
    .orderBy([
      { column: 'created_at', order: 'asc' },
      { column: 'id', order: 'asc' },
    ]);
  for await (const rows of cursorBatches<EventRow>(trx, 'person_email_events', query, batchSize)) yield rows.map(toEvent);
}

/**
 * Deletes at most `limit` email events of the workspace created before `before` (the retention's batch,
 * src/core/responses/retention.ts); `email_event_counts` moves in the same statement (its AFTER DELETE trigger).
 * @returns how many went.
 */
export async function deleteEmailEventsBefore(db: DbHandle, workspaceId: string, before: Date, limit: number): Promise<number> {
  const picked = db('email_events').select('id').where('workspace_id', workspaceId).where('created_at', '<', before).limit(limit);
  const rows = (await db('email_events')
    .where('workspace_id', workspaceId)
    .where('created_at', '<', before)
    .whereIn('id', picked)
    .delete()
    .returning('id')) as unknown[];
  return rows.length;
}

/** The email events sent to `address` (lower case): their count, and the `email_id`s and `row_id`s they point at. */
export async function personEmailEventSummary(
  db: DbHandle,
  workspaceId: string,
  p: PersonKey,
): Promise<{ count: number; emailIds: string[]; rowIds: string[] }> {
  const rows = (await db('email_events')
    .select('email_id', 'row_id')
    .count({ n: '*' })
    .where('workspace_id', workspaceId)
    .where((w) => personEvents(w, p))
    .groupBy('email_id', 'row_id')) as Array<{ email_id: string; row_id: string | null; n: unknown }>;
  return {
    count: rows.reduce((sum, r) => sum + Number(r.n), 0),
    emailIds: [...new Set(rows.map((r) => r.email_id))],
    rowIds: [...new Set(rows.flatMap((r) => (r.row_id === null ? [] : [r.row_id])))],
  };
}

/**
 * Deletes every email event of the person in the caller's transaction: sent to the address (lower case) or about the
 * row (`row_id`); `email_event_counts` moves in the same statement (its AFTER DELETE trigger).
 * @returns how many went.
 */
export async function deletePersonEmailEvents(trx: Knex.Transaction, workspaceId: string, p: PersonKey): Promise<number> {
  const rows = (await trx('email_events')
    .where('workspace_id', workspaceId)
    .where((w) => personEvents(w, p))
    .delete()
    .returning('id')) as unknown[];
  return rows.length;
}

/** The events of a person key: sent to its address, or about its row. */
function personEvents(w: Knex.QueryBuilder, p: PersonKey): void {
  if (p.address !== null) w.orWhereRaw('lower(email) = ?', [p.address]);
  if (p.rowId !== null) w.orWhere('row_id', p.rowId);
}
