/**
 * Email events (API document "Email event"; docs/decisions.md, "Resource shapes"): history records of sends, deliveries,
 * opens, clicks, bounces, complaints and unsubscribes. Style A `/email-events`, `/emails/{id}/events`;
 * Style B `/emails/events`. Totals for Style B come from `email_event_counts`.
 */
import type { DbHandle } from '../../db';
import type { DateBound } from '../query/dates';
import { fieldMap, type ListField } from '../query/fields';
import { compileFilter } from '../query/filter';
import { countRows, fetchKeysetPage, fetchOffsetPage, sumColumn, type KeysetPage, type KeysetQuery, type OffsetPage, type OffsetQuery } from '../query/list';
import { parseSortNewestFirst } from '../query/sort';
import { sql } from '../query/sql';

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
  const base = db('email_events')
    .select('id', 'email_id', 'email', 'type', 'row_id', 'form_id', 'flow_id', 'created_at')
    .where('workspace_id', workspaceId);
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
