/**
 * The transactional outbox of webhook events (docs/webhooks.md, "Events and payloads"). Every write that makes an event
 * calls `recordEvents` in the transaction the write runs in (its caller's), so the event, one delivery per subscribed enabled
 * endpoint and the delivery jobs (pg-boss, core/webhooks/queue.ts and src/db/pg-boss.ts) commit or roll back with the
 * write: a committed write is never lost, a rolled-back one sends nothing. The delivery worker
 * (src/delivery) renders `resource` in each endpoint's style when it sends.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { Row } from '../datatables/datatables.store';
import type { EmailEvent } from '../email-events/email-events.store';
import { newId } from '../ids';
import { activeTraceparent } from '../trace-context';
import type { ResponseRecord } from '../responses/responses.types';
import { enqueueAttempts } from './queue';
import { enabledEndpoints, insertPendingDeliveries, insertWebhookEvents, type SubscribedEndpoint } from './webhooks.store';

export type { SubscribedEndpoint } from './webhooks.store';

export const EVENT_TYPES = [
  'response.created',
  'row.created',
  'row.updated',
  'row.deleted',
  'email_event.created',
  'response.deleted',
  'respondent.erased',
  'webhook.test',
] as const;
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

export interface OutboxEvent {
  type: EventType;
  resource: EventResource;
}

/** One event as stored, with the deliveries it got. */
export interface RecordedEvent {
  id: string;
  type: EventType;
  createdAt: Date;
  deliveryIds: string[];
}

const date = (v: unknown): Date => new Date(v as string);

/**
 * The resource as read back from `webhook_events.resource` (JSON): Dates revived.
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

/** True when some endpoint takes one of these event types: a write without one records no event. */
export function anySubscribed(endpoints: readonly SubscribedEndpoint[], types: readonly EventType[]): boolean {
  return endpoints.some((e) => types.some((t) => e.events.includes(t)));
}

/**
 * Records the events of one write inside the write's transaction: each event (`evt_…`, type,
 * timestamp = now, the resource as JSON, the `traceparent` of the active span when traces are on), one `pending` delivery (`dlv_…`) per ENABLED endpoint of
 * the workspace subscribed to its type (a `webhook.test` event: its one endpoint), and one queued
 * attempt job per delivery, due at once.
 * @param trx the write's transaction, opened by the use case at the edge (never a bare connection: the
 *   event must roll back with the write).
 * @param known the workspace's enabled endpoints when the caller has read them already (this
 *   request, READ COMMITTED: the same answer the transaction would read); read here when absent.
 * @returns the events in order with their delivery ids (empty when no endpoint wants them).
 * Spec: docs/webhooks.md, "Events and payloads".
 */
export async function recordEvents(
  trx: Knex.Transaction,
  workspaceId: string,
  events: readonly OutboxEvent[],
  known?: readonly SubscribedEndpoint[],
): Promise<RecordedEvent[]> {
  if (events.length === 0) return [];
  const endpoints = known ?? (await enabledEndpoints(trx, workspaceId));
  const testTargets = new Set(events.flatMap((e) => (e.resource.kind === 'test' ? [e.resource.endpointId] : [])));
  if (endpoints.length === 0 && testTargets.size === 0) return [];

  // The write's trace, continued by the delivery (docs/operations.md, "Traces"); null with traces off.
  const traceparent = activeTraceparent() ?? null;
  const eventRows: Array<{ workspace_id: string; id: string; type: string; resource: string; traceparent: string | null }> = [];
  const deliveries: Array<Record<string, unknown>> = [];
  const recorded: RecordedEvent[] = [];
  for (const e of events) {
    const targets =
      e.resource.kind === 'test'
        ? [(e.resource as { endpointId: string }).endpointId]
        : endpoints.filter((ep) => ep.events.includes(e.type)).map((ep) => ep.id);
    if (targets.length === 0) continue;
    const id = newId('webhookEvent');
    eventRows.push({ workspace_id: workspaceId, id, type: e.type, resource: JSON.stringify(e.resource), traceparent });
    const deliveryIds = targets.map((endpointId) => {
      const deliveryId = newId('webhookDelivery');
      deliveries.push({
        workspace_id: workspaceId,
        id: deliveryId,
        endpoint_id: endpointId,
        event_id: id,
        event_type: e.type,
        attempt_token: randomUUID(),
      });
      return deliveryId;
    });
    recorded.push({ id, type: e.type, createdAt: new Date(0), deliveryIds });
  }
  if (eventRows.length === 0) return [];
  const stored = await insertWebhookEvents(trx, eventRows);
  const createdAt = new Map(stored.map((s) => [s.id, s.created_at]));
  for (const r of recorded) r.createdAt = createdAt.get(r.id)!;
  await insertPendingDeliveries(trx, deliveries);
  await enqueueAttempts(
    trx,
    deliveries.map((d) => ({ workspaceId, deliveryId: d.id as string, token: d.attempt_token as string })),
  );
  return recorded;
}
