/**
 * The transactional outbox of webhook events (CONTRACT section 13). Every write that makes an event
 * calls `recordEvents` with ITS OWN transaction, so the event (and one delivery per subscribed enabled
 * endpoint) commits or rolls back with the write. The delivery worker renders `resource` in each
 * endpoint's style when it sends.
 *
 * Placeholder: the delivery issue stores the events; until then this records nothing.
 */
import type { Knex } from 'knex';
import type { Row } from '../datatables/datatables.service';
import type { EmailEvent } from '../email-events/email-events.service';
import type { ResponseRecord } from '../responses/responses.types';

export const EVENT_TYPES = ['response.created', 'row.created', 'row.updated', 'row.deleted', 'email_event.created', 'webhook.test'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** The style-neutral resource an event carries (the worker presents it per endpoint style). */
export type EventResource =
  /** `response` should carry `formName` and `tableData` (null when there is no row). */
  | { kind: 'response'; response: ResponseRecord }
  | { kind: 'row'; row: Row }
  | { kind: 'row_deleted'; rowId: string; datatableId: string }
  | { kind: 'email_event'; event: EmailEvent }
  | { kind: 'test' };

export interface OutboxEvent {
  type: EventType;
  resource: EventResource;
}

/**
 * Records events of one write inside the write's transaction.
 * @param trx the write's own transaction (never a bare connection: the event must roll back with it).
 */
export async function recordEvents(_trx: Knex.Transaction, _workspaceId: string, _events: readonly OutboxEvent[]): Promise<void> {
  // Filled in by the webhook delivery issue (issue 8).
}
