/**
 * The one entry point of every event a write makes (docs/live.md, "Event log"; docs/webhooks.md, "Events and payloads").
 * Every write that makes an event calls `recordEvents` in the transaction the write runs in (its caller's): it appends
 * the events to the event log (core/events/event-log.store.ts) whether or not a webhook subscribes, and, for the events
 * some enabled endpoint subscribes to, the webhook event, one delivery per subscribed endpoint and the delivery jobs
 * (pg-boss, core/webhooks/queue.ts and src/db/pg-boss.ts). All of it commits or rolls back with the write: a committed
 * write is never lost, a rolled-back one logs and sends nothing. The delivery worker (src/delivery) renders `resource`
 * in each endpoint's style when it sends.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { appendEvents } from '../events/event-log.store';
import { LOGGED_EVENT_TYPES, type EventType, type OutboxEvent } from '../events/events.types';
import { newId } from '../ids';
import { activeTraceparent } from '../trace-context';
import { enqueueAttempts } from './queue';
import { enabledEndpoints, insertPendingDeliveries, insertWebhookEvents, type SubscribedEndpoint } from './webhooks.store';

export type { SubscribedEndpoint } from './webhooks.store';
export { EVENT_TYPES, decodeResource, type EventResource, type EventType, type OutboxEvent } from '../events/events.types';

/** One event as stored, with the deliveries it got. */
export interface RecordedEvent {
  id: string;
  type: EventType;
  createdAt: Date;
  deliveryIds: string[];
}

/**
 * Records the events of one write inside the write's transaction. Each event gets an id (`evt_…`) and is appended to
 * the event log (all but `webhook.test`, which is no change), with the time and position the log gives it. An event
 * some ENABLED endpoint of the workspace subscribes to (a `webhook.test` event: its one endpoint) is also stored as a
 * webhook event of the same id (the resource as JSON, the `traceparent` of the active span when traces are on), with
 * one `pending` delivery (`dlv_…`) per such endpoint and one queued attempt job per delivery, due at once.
 * @param trx the write's transaction, opened by the use case at the edge (never a bare connection: the
 *   event must roll back with the write).
 * @param known the workspace's enabled endpoints when the caller has read them already (this
 *   request, READ COMMITTED: the same answer the transaction would read); read here when absent.
 * @returns every event in order with its delivery ids (empty when no endpoint wants it).
 * Spec: docs/live.md, "Event log"; docs/webhooks.md, "Events and payloads".
 */
export async function recordEvents(
  trx: Knex.Transaction,
  workspaceId: string,
  events: readonly OutboxEvent[],
  known?: readonly SubscribedEndpoint[],
): Promise<RecordedEvent[]> {
  if (events.length === 0) return [];
  const recorded = events.map((e) => ({ id: newId('webhookEvent'), type: e.type, createdAt: new Date(0), deliveryIds: [] as string[], resource: e.resource }));
  const logged = recorded.filter((e) => (LOGGED_EVENT_TYPES as readonly EventType[]).includes(e.type));
  const createdAt = logged.length > 0 ? await appendEvents(trx, workspaceId, logged) : new Map<string, Date>();

  const endpoints = known ?? (await enabledEndpoints(trx, workspaceId));
  // The write's trace, continued by the delivery (docs/operations.md, "Traces"); null with traces off.
  const traceparent = activeTraceparent() ?? null;
  const eventRows: Array<{ workspace_id: string; id: string; type: string; resource: string; traceparent: string | null }> = [];
  const deliveries: Array<Record<string, unknown>> = [];
  for (const e of recorded) {
    const targets = e.resource.kind === 'test' ? [e.resource.endpointId] : endpoints.filter((ep) => ep.events.includes(e.type)).map((ep) => ep.id);
    if (targets.length === 0) continue;
    eventRows.push({ workspace_id: workspaceId, id: e.id, type: e.type, resource: JSON.stringify(e.resource), traceparent });
    e.deliveryIds = targets.map((endpointId) => {
      const deliveryId = newId('webhookDelivery');
      deliveries.push({
        workspace_id: workspaceId,
        id: deliveryId,
        endpoint_id: endpointId,
        event_id: e.id,
        event_type: e.type,
        attempt_token: randomUUID(),
      });
      return deliveryId;
    });
  }
  if (eventRows.length > 0) {
    for (const s of await insertWebhookEvents(trx, eventRows)) createdAt.set(s.id, s.created_at);
    await insertPendingDeliveries(trx, deliveries);
    await enqueueAttempts(
      trx,
      deliveries.map((d) => ({ workspaceId, deliveryId: d.id as string, token: d.attempt_token as string })),
    );
  }
  return recorded.map(({ id, type, deliveryIds }) => ({ id, type, createdAt: createdAt.get(id) ?? new Date(0), deliveryIds }));
}
