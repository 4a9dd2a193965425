/**
 * The events a write makes (docs/webhooks.md, "Events and payloads"; docs/live.md, "Event log"): their types and the
 * style-neutral resource each carries, as the event log (event-log.store.ts) and the webhook outbox
 * (core/webhooks/outbox.ts) store it and as the list, the stream and the delivery worker read it back (decodeResource).
 */
import type { Row } from '../datatables/datatables.store';
import type { EmailEvent } from '../email-events/email-events.store';
import type { ResponseRecord } from '../responses/responses.types';

/**
 * The types of the changes: what the event log keeps and a webhook endpoint can subscribe to (`webhook.test`, a ping
 * to one endpoint and no change, is neither).
 */
export const LOGGED_EVENT_TYPES = [
  'response.created',
  'row.created',
  'row.updated',
  'row.deleted',
  'email_event.created',
  'response.deleted',
  'respondent.erased',
] as const;
export const EVENT_TYPES = [...LOGGED_EVENT_TYPES, 'webhook.test'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** The style-neutral resource an event carries (the worker presents it per endpoint style). */
export type EventResource =
  /** `response` should carry `formName` and `tableData` (null when there is no row). */
  | { kind: 'response'; response: ResponseRecord }
  | { kind: 'row'; row: Row }
  | { kind: 'row_deleted'; rowId: string; datatableId: string }
  /** A deleted response (by id, bulk or retention): its id and form, nothing of its answers. */
  | { kind: 'response_deleted'; responseId: string; formId: string }
  | { kind: 'email_event'; event: EmailEvent }
  /** A person erased (docs/data-rights.md, "Erasing a person"): the request's id and counts, never the address. */
  | { kind: 'respondent_erased'; erasureId: string; removed: Record<string, number> }
  /** `endpointId`: the one endpoint a test event goes to (whatever its `events`). */
  | { kind: 'test'; endpointId: string };

/** One event of a write, as the write hands it to recordEvents (core/webhooks/outbox.ts). */
export interface OutboxEvent {
  type: EventType;
  resource: EventResource;
}

const date = (v: unknown): Date => new Date(v as string);

/**
 * The resource as read back from `webhook_events.resource` or `event_log.resource` (JSON): Dates revived.
 * @throws Error for a kind this version does not know (a newer writer).
 */
export function decodeResource(json: unknown): EventResource {
  const r = json as EventResource;
  switch (r.kind) {
    case 'response': {
      const resp = r.response;
      const tableData = resp.tableData && { ...resp.tableData, capturedAt: resp.tableData.capturedAt ? date(resp.tableData.capturedAt) : null };
      return { kind: 'response', response: { ...resp, createdAt: date(resp.createdAt), ...(resp.tableData !== undefined ? { tableData } : {}) } };
    }
    case 'row':
      return { kind: 'row', row: { ...r.row, createdAt: date(r.row.createdAt), updatedAt: date(r.row.updatedAt) } };
    case 'email_event':
      return { kind: 'email_event', event: { ...r.event, createdAt: date(r.event.createdAt) } };
    case 'row_deleted':
    case 'response_deleted':
    case 'respondent_erased':
    case 'test':
      return r;
    default:
      throw new Error(`unknown event resource kind ${(r as { kind?: string }).kind}`);
  }
}
