/**
 * Webhook endpoint writes (API document "Webhook endpoint"; docs/webhooks.md, "Endpoints"): create
 * (with a signing secret shown only in the create answer), PATCH, rotate the secret, send a test
 * event, retry a delivery, delete. Writes of more than one statement run in the caller's transaction
 * (docs/decisions.md, "Who opens transactions").
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { generateWebhookSecret } from '../api-keys/secrets';
import { affectedRows, type DbHandle } from '../../db';
import { errors } from '../errors';
import { newId } from '../ids';
import { checkWebhookUrl, type AddressPolicy, type Resolve } from './address-policy';
import { recordEvents } from './outbox';
import { enqueueAttempts } from './queue';
import {
  DELIVERY_COLUMNS,
  ENDPOINT_COLUMNS,
  getDelivery,
  getWebhookEndpoint,
  toDelivery,
  toEndpoint,
  type DeliveryRow,
  type EndpointRow,
  type EndpointStyle,
  type WebhookDelivery,
  type WebhookEndpoint,
} from './webhooks.service';

/** Event types an endpoint can subscribe to (docs/webhooks.md, "Events and payloads"; `webhook.test` is sent on request only). */
export const WEBHOOK_EVENT_TYPES = ['response.created', 'row.created', 'row.updated', 'row.deleted', 'email_event.created'] as const;
export const ENDPOINT_STYLES: readonly EndpointStyle[] = ['A', 'B'];

/** How URLs are checked at creation and PATCH: the address policy and a resolver (dns.lookup). */
export interface UrlGuard {
  policy: AddressPolicy;
  resolve: Resolve;
}

export interface WebhookEndpointInput {
  url: string;
  events: string[];
  description?: string | null | undefined;
  enabled?: boolean | undefined;
  /** Defaults to the creating key's style (the adapter passes it). */
  style: string;
}

export interface WebhookEndpointPatch {
  url?: string | undefined;
  events?: string[] | undefined;
  description?: string | null | undefined;
  enabled?: boolean | undefined;
  style?: string | undefined;
}

export interface CreatedWebhookEndpoint extends WebhookEndpoint {
  /** `whsec_…`: returned only in the create and rotate answers. */
  secret: string;
}

/** Reason stored when an endpoint is disabled through the API. */
export const DISABLED_BY_PATCH = 'Disabled through the API (PATCH enabled=false).';

/**
 * @throws AppError validation_error naming `url` when the URL is not https (unless allowed), holds
 * credentials, or its host is or resolves to a non-public address (unless allowed). A host that
 * does not resolve is accepted (it is checked again at every attempt).
 */
async function checkUrl(raw: string, guard: UrlGuard): Promise<string> {
  const check = await checkWebhookUrl(raw, guard.policy, guard.resolve);
  if (!check.ok && !check.unresolved) throw errors.invalid('body', 'url', check.reason);
  return raw;
}

function checkEvents(events: string[]): string[] {
  const bad = events.findIndex((e) => !(WEBHOOK_EVENT_TYPES as readonly string[]).includes(e));
  if (bad >= 0) {
    throw errors.invalid('body', `events[${bad}]`, `\`events[${bad}]\` must be one of ${WEBHOOK_EVENT_TYPES.join(', ')}; got "${events[bad]}".`);
  }
  if (events.length === 0) throw errors.invalid('body', 'events', '`events` needs at least one event type.');
  return [...new Set(events)];
}

function checkStyle(style: string): EndpointStyle {
  if (!(ENDPOINT_STYLES as readonly string[]).includes(style)) throw errors.invalid('body', 'style', `\`style\` must be A or B; got "${style}".`);
  return style as EndpointStyle;
}

/**
 * Creates an endpoint with a new signing secret.
 * @returns the endpoint and its `secret`; times are UTC Dates.
 * @throws AppError validation_error naming `url`, `events[i]` or `style`.
 * Spec: POST {ws}/webhook-endpoints; docs/webhooks.md, "Address rules" (addresses, style).
 */
export async function createWebhookEndpoint(db: DbHandle, workspaceId: string, input: WebhookEndpointInput, guard: UrlGuard): Promise<CreatedWebhookEndpoint> {
  const events = checkEvents(input.events);
  const style = checkStyle(input.style);
  const url = await checkUrl(input.url, guard);
  const secret = generateWebhookSecret();
  const [row] = await db('webhook_endpoints')
    .insert({
      workspace_id: workspaceId,
      id: newId('webhookEndpoint'),
      url,
      events,
      description: input.description ?? null,
      enabled: input.enabled ?? true,
      style,
      disabled_reason: input.enabled === false ? 'Created disabled.' : null,
      secret,
    })
    .returning<EndpointRow[]>(ENDPOINT_COLUMNS);
  return { ...toEndpoint(row), secret };
}

/** Ends the endpoint's pending deliveries as `failed` (their queued jobs then find nothing to do). */
export async function failPendingDeliveries(trx: DbHandle, workspaceId: string, endpointId: string, reason: string): Promise<number> {
  return trx('webhook_deliveries')
    .where({ workspace_id: workspaceId, endpoint_id: endpointId, status: 'pending' })
    .update({ status: 'failed', last_error: reason, next_attempt_at: null, attempt_token: null, updated_at: trx.fn.now() });
}

/** A PATCH whose values are checked (checkWebhookPatch), ready for patchWebhookEndpoint. */
export interface CheckedWebhookPatch {
  /** Columns to set: `events`, `style`, `url`, `description` as sent. */
  set: Record<string, unknown>;
  enabled?: boolean | undefined;
}

/**
 * Checks a PATCH's values before any transaction opens (the URL check may resolve the host).
 * @throws AppError validation_error naming `url`, `events[i]` or `style`.
 */
export async function checkWebhookPatch(patch: WebhookEndpointPatch, guard: UrlGuard): Promise<CheckedWebhookPatch> {
  const set: Record<string, unknown> = {};
  if (patch.events !== undefined) set.events = checkEvents(patch.events);
  if (patch.style !== undefined) set.style = checkStyle(patch.style);
  if (patch.url !== undefined) set.url = await checkUrl(patch.url, guard);
  if (patch.description !== undefined) set.description = patch.description;
  return { set, enabled: patch.enabled };
}

/**
 * Changes an endpoint, in the caller's transaction. `enabled: false` disables it (`disabled_reason`
 * set) and ends its pending deliveries as `failed`; `enabled: true` clears `disabled_reason`. Writes
 * made while it is disabled are never delivered to it.
 * @throws AppError resource_not_found.
 * Spec: docs/webhooks.md, "Endpoints", PATCH {ws}/webhook-endpoints/{id}.
 */
export async function patchWebhookEndpoint(
  trx: Knex.Transaction,
  workspaceId: string,
  id: string,
  patch: CheckedWebhookPatch,
): Promise<WebhookEndpoint> {
  const set = { ...patch.set };
  // Locks the endpoint before its deliveries (the worker's outcome records lock in the same order).
  await trx('webhook_endpoints').where({ workspace_id: workspaceId, id }).forNoKeyUpdate().first('id');
  const current = await getWebhookEndpoint(trx, workspaceId, id);
  if (patch.enabled === true) Object.assign(set, { enabled: true, disabled_reason: null });
  if (patch.enabled === false) {
    set.enabled = false;
    if (current.enabled) {
      set.disabled_reason = DISABLED_BY_PATCH;
      await failPendingDeliveries(trx, workspaceId, id, 'The endpoint was disabled.');
    }
  }
  if (Object.keys(set).length === 0) return current;
  const [row] = await trx('webhook_endpoints')
    .where({ workspace_id: workspaceId, id })
    .update({ ...set, updated_at: trx.fn.now() })
    .returning<EndpointRow[]>(ENDPOINT_COLUMNS);
  return toEndpoint(row);
}

/**
 * Replaces the signing secret. For 24 h the previous secret signs too (two `v1,` signatures), unless
 * `immediate`: then no earlier secret signs any more, from the next attempt on (for a secret that leaked).
 * @returns the endpoint with its new `secret`.
 * @throws AppError resource_not_found.
 * Spec: docs/webhooks.md, "Verifying a signature", POST {ws}/webhook-endpoints/{id}/rotate-secret.
 */
export async function rotateWebhookSecret(db: DbHandle, workspaceId: string, id: string, opts: { immediate?: boolean } = {}): Promise<CreatedWebhookEndpoint> {
  const secret = generateWebhookSecret();
  const previous = opts.immediate
    ? { previous_secret: null, previous_secret_until: null }
    : { previous_secret: db.ref('secret'), previous_secret_until: db.raw(`now() + interval '24 hours'`) };
  const rows = (await db('webhook_endpoints')
    .where({ workspace_id: workspaceId, id })
    .update({ ...previous, secret, updated_at: db.fn.now() })
    .returning(ENDPOINT_COLUMNS)) as unknown[];
  if (rows.length === 0) throw errors.notFound('Webhook endpoint', id);
  return { ...toEndpoint(rows[0] as never), secret };
}

async function enabledEndpoint(trx: DbHandle, workspaceId: string, id: string): Promise<WebhookEndpoint> {
  const endpoint = await getWebhookEndpoint(trx, workspaceId, id);
  if (!endpoint.enabled) throw errors.conflict(`Webhook endpoint "${id}" is disabled; enable it (PATCH enabled=true) first.`);
  return endpoint;
}

/**
 * Records a `webhook.test` event for this one endpoint (whatever its `events`) and queues it, in the
 * caller's transaction.
 * @returns the queued delivery (`pending`).
 * @throws AppError resource_not_found; conflict when the endpoint is disabled.
 * Spec: docs/webhooks.md, "Endpoints", POST {ws}/webhook-endpoints/{id}/test.
 */
export async function sendTestEvent(trx: Knex.Transaction, workspaceId: string, id: string): Promise<WebhookDelivery> {
  await enabledEndpoint(trx, workspaceId, id);
  const [event] = await recordEvents(trx, workspaceId, [{ type: 'webhook.test', resource: { kind: 'test', endpointId: id } }]);
  return getDelivery(trx, workspaceId, id, event!.deliveryIds[0]!);
}

/**
 * Queues a delivery again now, whatever its status, in the caller's transaction: `pending`, next attempt due now. A job already
 * queued for it is superseded (its token no longer matches), so the attempt is made once.
 * @throws AppError resource_not_found for the endpoint or the delivery; conflict when the endpoint is disabled.
 * Spec: docs/webhooks.md, "The delivery log", POST {ws}/webhook-endpoints/{id}/deliveries/{delivery_id}/retry.
 */
export async function retryDelivery(trx: Knex.Transaction, workspaceId: string, endpointId: string, deliveryId: string): Promise<WebhookDelivery> {
  await enabledEndpoint(trx, workspaceId, endpointId);
  const token = randomUUID();
  const rows = (await trx('webhook_deliveries')
    .where({ workspace_id: workspaceId, endpoint_id: endpointId, id: deliveryId })
    .update({ status: 'pending', attempt_token: token, next_attempt_at: trx.fn.now(), updated_at: trx.fn.now() })
    .returning(DELIVERY_COLUMNS)) as DeliveryRow[];
  if (!rows[0]) throw errors.notFound('Delivery', deliveryId);
  await enqueueAttempts(trx, [{ workspaceId, deliveryId, token }]);
  return toDelivery(rows[0]);
}

/**
 * Deletes an endpoint of the workspace (its deliveries go with it).
 * @throws AppError resource_not_found (also for an endpoint of another workspace).
 * Spec: DELETE {ws}/webhook-endpoints/{endpoint_id}.
 */
export async function deleteWebhookEndpoint(db: DbHandle, workspaceId: string, id: string): Promise<void> {
  const n = await affectedRows(db('webhook_endpoints').where({ workspace_id: workspaceId, id }).delete());
  if (n === 0) throw errors.notFound('Webhook endpoint', id);
}
