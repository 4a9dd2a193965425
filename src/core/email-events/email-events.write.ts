/**
 * The one path that stores email events (docs/collecting.md, "Provider events"): the provider endpoint
 * `POST {ws}/email-events` and the email links' `click` / `open` both call `recordEmailEvents`.
 */
import type { Knex } from 'knex';
import { errors, type ErrorDetail } from '../errors';
import { newId } from '../ids';
import { recordEvents } from '../webhooks/outbox';
import { EMAIL_EVENT_TYPES, toEvent, type EmailEvent, type EmailEventType, type EventRow } from './email-events.service';

export type { EmailEventType };

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
      details.push({ location: 'body', field: `${at(i)}.type`, message: `\`${at(i)}.type\` must be one of ${EMAIL_EVENT_TYPES.join(', ')}; got "${it.type}".` });
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

  const inserted = (await trx('email_events')
    .insert(rows)
    .onConflict(['workspace_id', 'id'])
    .ignore()
    .returning(columns)) as EventRow[];
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
