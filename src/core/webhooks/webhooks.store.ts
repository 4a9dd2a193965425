/**
 * The store of webhook endpoints and their delivery log (`webhook_endpoints`, `webhook_events`, `webhook_deliveries`; API
 * document "Webhook endpoint"; docs/decisions.md, "Resource shapes"; docs/webhooks.md, "Endpoints"):
 * reads; writes: create (with a signing secret shown only in the create answer), PATCH, rotate the
 * secret, send a test event, retry a delivery, delete; and the delivery worker's claim and record of an
 * attempt. Writes of more than one statement run in the caller's transaction (docs/decisions.md, "Who
 * opens transactions").
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { affectedRows, type DbHandle } from '../../db';
import { deleteInBatches, type BatchOptions } from '../../db/batches';
import { errors } from '../errors';
import { fieldMap, type ListField } from '../query/fields';
import { fetchKeysetPage, type KeysetPage } from '../query/list';
import { parseSort } from '../query/sort';
import { sql } from '../query/sql';
import { resourceHoldsPerson, type PersonKey } from '../respondents/person-key';
import { generateWebhookSecret } from '../api-keys/secrets';
import { newId } from '../ids';
import { type AddressPolicy, checkWebhookUrl, type Resolve } from './address-policy';
import { LOGGED_EVENT_TYPES } from '../events/events.types';
import { recordEvents, type EventType } from './outbox';
import { enqueueAttempts } from './queue';

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
  /** The recovery (`wrc_…`) that made this delivery (docs/webhooks.md, "Recovering missed events"); null for a write's. */
  recoveryId: string | null;
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
  recovery_id: string | null;
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
  'recovery_id',
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
  recoveryId: r.recovery_id,
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

// Writes.

/** Event types an endpoint can subscribe to (docs/webhooks.md, "Events and payloads"; `webhook.test` is sent on request only). */
export const WEBHOOK_EVENT_TYPES = LOGGED_EVENT_TYPES;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
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

/** An endpoint's values after checkWebhookEndpoint: events deduplicated, style and URL checked. */
export interface CheckedWebhookEndpoint {
  url: string;
  events: string[];
  description?: string | null | undefined;
  enabled?: boolean | undefined;
  style: EndpointStyle;
}

/**
 * Checks a new endpoint's values before any transaction opens (the URL check may resolve the host).
 * @throws AppError validation_error naming `url`, `events[i]` or `style`.
 * Spec: POST {ws}/webhook-endpoints; docs/webhooks.md, "Address rules" (addresses, style).
 */
export async function checkWebhookEndpoint(input: WebhookEndpointInput, guard: UrlGuard): Promise<CheckedWebhookEndpoint> {
  const events = checkEvents(input.events);
  const style = checkStyle(input.style);
  const url = await checkUrl(input.url, guard);
  return { url, events, description: input.description, enabled: input.enabled, style };
}

/**
 * Creates an endpoint with a new signing secret, from values checkWebhookEndpoint checked.
 * @returns the endpoint and its `secret`; times are UTC Dates.
 * Spec: POST {ws}/webhook-endpoints.
 */
export async function createWebhookEndpoint(db: DbHandle, workspaceId: string, input: CheckedWebhookEndpoint): Promise<CreatedWebhookEndpoint> {
  const { url, events, style } = input;
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
  // An insert's RETURNING gives its one row.
  return { ...toEndpoint(row!), secret };
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
 * made while it is disabled are not delivered to it, unless a recovery asks for them (recovery.ts).
 * @throws AppError resource_not_found.
 * Spec: docs/webhooks.md, "Endpoints", PATCH {ws}/webhook-endpoints/{id}.
 */
export async function patchWebhookEndpoint(trx: Knex.Transaction, workspaceId: string, id: string, patch: CheckedWebhookPatch): Promise<WebhookEndpoint> {
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
  // The endpoint was read in this transaction (`current`), so the update finds it.
  return toEndpoint(row!);
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
    .returning(ENDPOINT_COLUMNS)) as EndpointRow[];
  const row = rows[0];
  if (row === undefined) throw errors.notFound('Webhook endpoint', id);
  return { ...toEndpoint(row), secret };
}

/**
 * Locks the endpoint (FOR NO KEY UPDATE, before any of its deliveries, the order PATCH and the worker keep) in the
 * caller's transaction and reads it: a recovery's batch holds it so two recoveries never add the same event twice.
 * @throws AppError resource_not_found.
 */
export async function lockWebhookEndpoint(trx: Knex.Transaction, workspaceId: string, id: string): Promise<WebhookEndpoint> {
  await trx('webhook_endpoints').where({ workspace_id: workspaceId, id }).forNoKeyUpdate().first('id');
  return getWebhookEndpoint(trx, workspaceId, id);
}

/**
 * Of `eventIds`, those the endpoint received or is still being sent: a delivery of the event to it that `succeeded`
 * or is `pending` (its retries go on). A recovery sends the others again (docs/webhooks.md, "Recovering missed events").
 */
export async function eventsReceivedOrPending(db: DbHandle, workspaceId: string, endpointId: string, eventIds: readonly string[]): Promise<Set<string>> {
  if (eventIds.length === 0) return new Set();
  const rows = (await db('webhook_deliveries')
    .distinct('event_id')
    .where({ workspace_id: workspaceId, endpoint_id: endpointId })
    .whereIn('status', ['succeeded', 'pending'])
    .whereIn('event_id', [...eventIds])) as Array<{ event_id: string }>;
  return new Set(rows.map((r) => r.event_id));
}

/** A logged event a recovery sends again: its id, type, time and resource as the log keeps them. */
export interface RecoveredEvent {
  id: string;
  type: EventType;
  createdAt: Date;
  resource: unknown;
}

/** How long a recovery's own first attempt has before the job queued with its delivery makes it instead (a crash). */
const RECOVERY_BACKSTOP_SECONDS = 120;

/**
 * Adds one `pending` delivery per event, marked with `recoveryId`, to the endpoint, in the caller's transaction and
 * in the given (log) order: the webhook event is stored first when it is not (same id, type, time and resource as
 * the log's, so the payload is the one a write's delivery sends). Each delivery gets an attempt job due in
 * RECOVERY_BACKSTOP_SECONDS: the recovery job attempts it at once itself (delivery/recovery.ts), and the job only
 * makes the attempt when that one never happened.
 * @returns the attempt keys, in order.
 */
export async function insertRecoveryDeliveries(
  trx: Knex.Transaction,
  workspaceId: string,
  endpointId: string,
  recoveryId: string,
  events: readonly RecoveredEvent[],
): Promise<AttemptKey[]> {
  if (events.length === 0) return [];
  // Takes the row lock of an event that exists already, so the prune of unreferenced events cannot remove it first.
  await trx('webhook_events')
    .insert(
      events.map((e) => ({
        workspace_id: workspaceId,
        id: e.id,
        type: e.type,
        resource: JSON.stringify(e.resource),
        traceparent: null,
        created_at: e.createdAt,
      })),
    )
    .onConflict(['workspace_id', 'id'])
    .merge(['id']);
  const keys = events.map(() => ({ workspaceId, deliveryId: newId('webhookDelivery'), token: randomUUID() }));
  await insertPendingDeliveries(
    trx,
    keys.map((k, i) => ({
      workspace_id: workspaceId,
      id: k.deliveryId,
      endpoint_id: endpointId,
      event_id: events[i]!.id,
      event_type: events[i]!.type,
      attempt_token: k.token,
      recovery_id: recoveryId,
    })),
  );
  const startAfter = new Date(Date.now() + RECOVERY_BACKSTOP_SECONDS * 1000);
  await enqueueAttempts(
    trx,
    keys.map((k) => ({ ...k, startAfter })),
  );
  return keys;
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

// The delivery worker's attempt (src/delivery/attempt.ts, docs/webhooks.md "Retries").

/** A delivery claimed for one attempt: the attempt's number and what it sends where. */
export interface ClaimedAttempt {
  attempts: number;
  endpoint_id: string;
  event_id: string;
  /** The `traceparent` of the write that made the event (docs/operations.md, "Traces"); null without one. */
  traceparent: string | null;
}

/** What an attempt posts: the endpoint (URL, style, secrets) and the event. */
export interface AttemptTarget {
  url: string;
  enabled: boolean;
  style: EndpointStyle;
  secret: string;
  previous_secret: string | null;
  previous_active: boolean;
  type: EventType;
  resource: unknown;
  event_created_at: Date;
}

/** One attempt's delivery: the job's workspace, delivery and attempt token. */
export interface AttemptKey {
  workspaceId: string;
  deliveryId: string;
  token: string;
}

/**
 * Claims the delivery for one attempt with ONE UPDATE: it matches the job's token and no live claim,
 * counts the attempt and holds a lease of `leaseSeconds`; it also returns the event's `traceparent`, so the attempt's
 * span can continue the write's trace before its first query.
 * @returns the claim, or undefined when the delivery is not pending with that token or is held.
 */
export async function claimDelivery(db: DbHandle, key: AttemptKey, leaseSeconds: number): Promise<ClaimedAttempt | undefined> {
  const claimed = (await db.raw(
    `UPDATE webhook_deliveries
        SET attempts = attempts + 1, claimed_until = now() + make_interval(secs => ?), updated_at = now()
      WHERE workspace_id = ? AND id = ? AND status = 'pending' AND attempt_token = ?
        AND (claimed_until IS NULL OR claimed_until < now())
      RETURNING attempts, endpoint_id, event_id,
                (SELECT v.traceparent FROM webhook_events v
                  WHERE v.workspace_id = webhook_deliveries.workspace_id AND v.id = webhook_deliveries.event_id) AS traceparent`,
    [leaseSeconds, key.workspaceId, key.deliveryId, key.token],
  )) as { rows: ClaimedAttempt[] };
  return claimed.rows[0];
}

/** True while another worker's claim on the pending delivery with this token is live. */
export async function deliveryClaimHeld(db: DbHandle, key: AttemptKey): Promise<boolean> {
  const held = await db('webhook_deliveries')
    .where({ workspace_id: key.workspaceId, id: key.deliveryId, status: 'pending', attempt_token: key.token })
    .where('claimed_until', '>=', db.fn.now())
    .first<{ id: string } | undefined>('id');
  return held !== undefined;
}

/** The endpoint and event of a delivery; undefined when the delivery is gone. */
export async function attemptTarget(db: DbHandle, workspaceId: string, deliveryId: string): Promise<AttemptTarget | undefined> {
  return (await db('webhook_deliveries as d')
    .join('webhook_endpoints as e', function on() {
      this.on('e.workspace_id', 'd.workspace_id').andOn('e.id', 'd.endpoint_id');
    })
    .join('webhook_events as v', function on() {
      this.on('v.workspace_id', 'd.workspace_id').andOn('v.id', 'd.event_id');
    })
    .where({ 'd.workspace_id': workspaceId, 'd.id': deliveryId })
    .first(
      'e.url',
      'e.enabled',
      'e.style',
      'e.secret',
      'e.previous_secret',
      db.raw('(e.previous_secret_until IS NOT NULL AND e.previous_secret_until > now()) AS previous_active'),
      'v.type',
      'v.resource',
      'v.created_at as event_created_at',
    )) as AttemptTarget | undefined;
}

/** An attempt's outcome as the delivery row keeps it. */
export interface AttemptRecord {
  status: 'succeeded' | 'pending' | 'failed';
  lastStatusCode: number | null;
  lastError: string | null;
  nextAttemptAt: Date | null;
  /** The next attempt's token; null when no attempt follows. */
  nextToken: string | null;
}

/**
 * Records an attempt in `trx` (the caller's transaction). The endpoint row is locked first, as PATCH
 * does: a 410 ends the endpoint's other pending deliveries, and two such transactions must not lock each
 * other's delivery rows in opposite orders. When the delivery was retried through the API (or ended by
 * disabling the endpoint) meanwhile, the newer state stays and only the claim is freed.
 * @returns false when the newer state stayed.
 */
export async function recordAttempt(trx: DbHandle, key: AttemptKey, claim: ClaimedAttempt, record: AttemptRecord): Promise<boolean> {
  const { workspaceId, deliveryId, token } = key;
  await trx('webhook_endpoints').where({ workspace_id: workspaceId, id: claim.endpoint_id }).forNoKeyUpdate().first('id');
  const n = await trx('webhook_deliveries')
    .where({ workspace_id: workspaceId, id: deliveryId, attempt_token: token, attempts: claim.attempts, status: 'pending' })
    .update({
      status: record.status,
      last_status_code: record.lastStatusCode,
      last_error: record.lastError,
      next_attempt_at: record.nextAttemptAt,
      attempt_token: record.nextToken,
      claimed_until: null,
      updated_at: trx.fn.now(),
    });
  if (n === 0) {
    await trx('webhook_deliveries').where({ workspace_id: workspaceId, id: deliveryId, attempts: claim.attempts }).update({ claimed_until: null });
    return false;
  }
  return true;
}

/** Disables an endpoint that answered 410 Gone (in the caller's transaction, after recordAttempt locked it). */
export async function disableGoneEndpoint(trx: DbHandle, workspaceId: string, endpointId: string): Promise<void> {
  await trx('webhook_endpoints')
    .where({ workspace_id: workspaceId, id: endpointId })
    .update({ enabled: false, disabled_reason: `The endpoint answered 410 Gone at ${new Date().toISOString()}.`, updated_at: trx.fn.now() });
}

/**
 * Pending deliveries whose next attempt is over `lateMinutes` late and that no worker holds (at most 500,
 * `FOR UPDATE SKIP LOCKED`, so several workers may run it at once) get a new token, due now.
 * @returns the deliveries with their new tokens.
 */
export async function renewStuckDeliveries(trx: DbHandle, lateMinutes: number): Promise<AttemptKey[]> {
  const { rows } = (await trx.raw(
    `UPDATE webhook_deliveries d
        SET attempt_token = gen_random_uuid()::text, next_attempt_at = now(), updated_at = now()
      WHERE (d.workspace_id, d.id) IN (
              SELECT workspace_id, id FROM webhook_deliveries
               WHERE status = 'pending'
                 AND next_attempt_at < now() - make_interval(mins => ?)
                 AND (claimed_until IS NULL OR claimed_until < now())
               ORDER BY next_attempt_at
               LIMIT 500
                 FOR UPDATE SKIP LOCKED)
      RETURNING d.workspace_id, d.id, d.attempt_token`,
    [lateMinutes],
  )) as { rows: Array<{ workspace_id: string; id: string; attempt_token: string }> };
  return rows.map((r) => ({ workspaceId: r.workspace_id, deliveryId: r.id, token: r.attempt_token }));
}

/**
 * Deliveries waiting for an attempt (status `pending`), across workspaces: the `webhook_queue_depth`
 * gauge of docs/operations.md, "Metrics".
 */
export async function countPendingDeliveries(db: DbHandle): Promise<number> {
  const row = (await db('webhook_deliveries').where('status', 'pending').count({ n: '*' }).first()) as { n?: unknown } | undefined;
  return Number(row?.n ?? 0);
}

/** An enabled webhook endpoint and the event types it takes. */
export interface SubscribedEndpoint {
  id: string;
  events: string[];
}

/** The workspace's enabled endpoints, by id. */
export async function enabledEndpoints(db: DbHandle, workspaceId: string): Promise<SubscribedEndpoint[]> {
  return (await db('webhook_endpoints').select('id', 'events').where({ workspace_id: workspaceId, enabled: true }).orderBy('id')) as SubscribedEndpoint[];
}

/** Inserts the outbox's events (`webhook_events`) in the caller's transaction. @returns each event's id and `created_at`. */
export async function insertWebhookEvents(
  trx: Knex.Transaction,
  eventRows: Array<{ workspace_id: string; id: string; type: string; resource: string; traceparent: string | null }>,
): Promise<Array<{ id: string; created_at: Date }>> {
  return (await trx('webhook_events').insert(eventRows).returning(['id', 'created_at'])) as Array<{ id: string; created_at: Date }>;
}

/** Inserts the outbox's `pending` deliveries, due now, in the caller's transaction. */
export async function insertPendingDeliveries(trx: Knex.Transaction, deliveries: Array<Record<string, unknown>>): Promise<void> {
  // Large bulk writes: keep each insert well under the bind-parameter limit.
  for (let i = 0; i < deliveries.length; i += 1000) {
    const chunk = deliveries.slice(i, i + 1000);
    await trx('webhook_deliveries').insert(chunk.map((d) => ({ ...d, next_attempt_at: trx.fn.now() })));
  }
}

const TERMINAL = ['succeeded', 'failed'];

/** Deletes ended deliveries whose `updated_at` is before `before`, in batches. @returns rows deleted. */
export function pruneWebhookDeliveries(db: DbHandle, before: Date, opts: BatchOptions = {}): Promise<number> {
  return deleteInBatches(
    (limit) =>
      affectedRows(
        db('webhook_deliveries')
          .whereIn(
            ['workspace_id', 'id'],
            db('webhook_deliveries').select('workspace_id', 'id').whereIn('status', TERMINAL).where('updated_at', '<', before).limit(limit),
          )
          .whereIn('status', TERMINAL)
          .where('updated_at', '<', before)
          .delete(),
      ),
    opts,
  );
}

/** Deletes events created before `before` that no delivery refers to, in batches. @returns rows deleted. */
export function pruneWebhookEvents(db: DbHandle, before: Date, opts: BatchOptions = {}): Promise<number> {
  const unreferenced = <TRecord extends object, TResult>(q: Knex.QueryBuilder<TRecord, TResult>) =>
    q
      .where('e.created_at', '<', before)
      .whereNotExists(db('webhook_deliveries as d').select(db.raw('1')).whereRaw('d.workspace_id = e.workspace_id AND d.event_id = e.id'));
  return deleteInBatches(
    (limit) =>
      affectedRows(
        unreferenced(db('webhook_events as e'))
          .whereIn(['e.workspace_id', 'e.id'], unreferenced(db('webhook_events as e').select('e.workspace_id', 'e.id')).limit(limit))
          .delete(),
        'e.id',
      ),
    opts,
  );
}

/** How many recorded webhook events carry the person's address (lower case) or row id in their payload (an erasure's dry run). */
export async function countWebhookEventsHolding(db: DbHandle, workspaceId: string, p: PersonKey): Promise<number> {
  const row = (await db('webhook_events')
    .count({ n: '*' })
    .where('workspace_id', workspaceId)
    .where((w) => resourceHoldsPerson(w, p))
    .first()) as { n: unknown } | undefined;
  return Number(row?.n ?? 0);
}

/**
 * Deletes the webhook events whose payload holds the person's address (lower case) or row id, in the caller's
 * transaction; their deliveries go with them (foreign key, ON DELETE CASCADE), so the delivery log shows them no more
 * and a retry or a pending attempt finds nothing to send (the worker drops an attempt whose delivery is gone).
 * @returns how many events went.
 */
export async function deleteWebhookEventsHolding(trx: Knex.Transaction, workspaceId: string, p: PersonKey): Promise<number> {
  const rows = (await trx('webhook_events')
    .where('workspace_id', workspaceId)
    .where((w) => resourceHoldsPerson(w, p))
    .delete()
    .returning('id')) as unknown[];
  return rows.length;
}
