/** Webhook endpoints and their delivery log (API document "Webhook endpoint"; docs/decisions.md, "Resource shapes"; docs/webhooks.md, "Endpoints"): reads. */
import type { DbHandle } from '../../db';
import { errors } from '../errors';
import { fieldMap, type ListField } from '../query/fields';
import { fetchKeysetPage, type KeysetPage } from '../query/list';
import { parseSort } from '../query/sort';
import { sql } from '../query/sql';
import type { EventType } from './outbox';
import type { WebhookEventType } from './webhooks.write';

export type EndpointStyle = 'A' | 'B';

export interface WebhookEndpoint {
  id: string;
  url: string;
  events: WebhookEventType[];
  description: string | null;
  enabled: boolean;
  /** The style deliveries render `data` in. */
  style: EndpointStyle;
  /** Why the endpoint was disabled (a 410, a PATCH); null while enabled. */
  disabledReason: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** A `webhook_endpoints` row as ENDPOINT_COLUMNS selects it: the endpoint with its snake_case column names. */
export type EndpointRow = Omit<WebhookEndpoint, 'disabledReason' | 'createdAt' | 'updatedAt'> & {
  disabled_reason: string | null;
  created_at: Date;
  updated_at: Date;
};

export const ENDPOINT_COLUMNS = ['id', 'url', 'events', 'description', 'enabled', 'style', 'disabled_reason', 'created_at', 'updated_at'];

export const toEndpoint = (r: EndpointRow): WebhookEndpoint => ({
  id: r.id,
  url: r.url,
  events: r.events,
  description: r.description,
  enabled: r.enabled,
  style: r.style,
  disabledReason: r.disabled_reason,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** All endpoints of the workspace, newest first (the document gives this list no pagination). */
export async function listWebhookEndpoints(db: DbHandle, workspaceId: string): Promise<WebhookEndpoint[]> {
  const rows = (await db('webhook_endpoints')
    .select(ENDPOINT_COLUMNS)
    .where('workspace_id', workspaceId)
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])) as EndpointRow[];
  return rows.map(toEndpoint);
}

/** @throws AppError resource_not_found */
export async function getWebhookEndpoint(db: DbHandle, workspaceId: string, id: string): Promise<WebhookEndpoint> {
  const row = (await db('webhook_endpoints').select(ENDPOINT_COLUMNS).where({ workspace_id: workspaceId, id }).first()) as EndpointRow | undefined;
  if (!row) throw errors.notFound('Webhook endpoint', id);
  return toEndpoint(row);
}

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** One delivery of one event to one endpoint (docs/webhooks.md, "The delivery log"). */
export interface WebhookDelivery {
  id: string;
  endpointId: string;
  eventId: string;
  eventType: EventType;
  status: DeliveryStatus;
  /** Attempts made so far. */
  attempts: number;
  /** HTTP status of the last attempt; null when it got no answer (or none was made). */
  lastStatusCode: number | null;
  lastError: string | null;
  /** When the next attempt is due; null once the delivery succeeded or failed. */
  nextAttemptAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface DeliveryRow {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: EventType;
  status: DeliveryStatus;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export const DELIVERY_COLUMNS = [
  'id',
  'endpoint_id',
  'event_id',
  'event_type',
  'status',
  'attempts',
  'last_status_code',
  'last_error',
  'next_attempt_at',
  'created_at',
  'updated_at',
];

export const toDelivery = (r: DeliveryRow): WebhookDelivery => ({
  id: r.id,
  endpointId: r.endpoint_id,
  eventId: r.event_id,
  eventType: r.event_type,
  status: r.status,
  attempts: r.attempts,
  lastStatusCode: r.last_status_code,
  lastError: r.last_error,
  nextAttemptAt: r.next_attempt_at,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const col = (name: string, type: ListField['type']): ListField => ({ name, expr: sql('??', name), type, nullable: false });
const CREATED_AT = col('created_at', 'timestamp');
const DELIVERY_SORT = fieldMap([CREATED_AT]);

/**
 * The endpoint's deliveries, newest first, as a keyset page.
 * @param q.limit 1–100 (validated by the adapter); `q.cursor` from a previous page; `q.status` narrows.
 * @throws AppError resource_not_found for the endpoint; validation_error naming `status` for an
 * unknown status, or `cursor` for a malformed or foreign cursor.
 * Spec: docs/webhooks.md, "The delivery log", GET {ws}/webhook-endpoints/{id}/deliveries.
 */
export async function listDeliveries(
  db: DbHandle,
  workspaceId: string,
  endpointId: string,
  q: { limit: number; cursor?: string | undefined; status?: string | undefined },
): Promise<KeysetPage<WebhookDelivery>> {
  if (q.status !== undefined && !(DELIVERY_STATUSES as readonly string[]).includes(q.status)) {
    throw errors.invalid('query', 'status', `\`status\` must be one of ${DELIVERY_STATUSES.join(', ')}; got "${q.status}".`);
  }
  await getWebhookEndpoint(db, workspaceId, endpointId);
  const query = db('webhook_deliveries').select(DELIVERY_COLUMNS).where({ workspace_id: workspaceId, endpoint_id: endpointId });
  if (q.status !== undefined) query.where('status', q.status);
  const keys = parseSort(undefined, { fields: DELIVERY_SORT, tieBreaker: col('id', 'text'), defaultSort: [{ field: CREATED_AT, dir: 'desc' }], multi: false });
  const page = await fetchKeysetPage<DeliveryRow & Record<string, unknown>>(db, query, keys, q.limit, q.cursor, `deliveries:${endpointId}:${q.status ?? ''}`);
  return { kind: 'keyset', items: page.rows.map(toDelivery), limit: q.limit, nextCursor: page.nextCursor, prevCursor: page.prevCursor };
}

/**
 * @throws AppError resource_not_found for the endpoint or the delivery (also one of another endpoint).
 * Spec: docs/webhooks.md, "The delivery log", GET {ws}/webhook-endpoints/{id}/deliveries/{delivery_id}.
 */
export async function getDelivery(db: DbHandle, workspaceId: string, endpointId: string, deliveryId: string): Promise<WebhookDelivery> {
  await getWebhookEndpoint(db, workspaceId, endpointId);
  const row = (await db('webhook_deliveries')
    .select(DELIVERY_COLUMNS)
    .where({ workspace_id: workspaceId, endpoint_id: endpointId, id: deliveryId })
    .first()) as DeliveryRow | undefined;
  if (!row) throw errors.notFound('Delivery', deliveryId);
  return toDelivery(row);
}
