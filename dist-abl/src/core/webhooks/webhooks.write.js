"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.DISABLED_BY_PATCH = exports.ENDPOINT_STYLES = exports.WEBHOOK_EVENT_TYPES = void 0;
exports.createWebhookEndpoint = createWebhookEndpoint;
exports.failPendingDeliveries = failPendingDeliveries;
exports.patchWebhookEndpoint = patchWebhookEndpoint;
exports.rotateWebhookSecret = rotateWebhookSecret;
exports.sendTestEvent = sendTestEvent;
exports.retryDelivery = retryDelivery;
exports.deleteWebhookEndpoint = deleteWebhookEndpoint;
/**
 * Webhook endpoint writes (API document "Webhook endpoint"; CONTRACT sections 8 and 13): create
 * (with a signing secret shown only in the create answer), PATCH, rotate the secret, send a test
 * event, retry a delivery, delete.
 */
const node_crypto_1 = require("node:crypto");
const secrets_1 = require("../api-keys/secrets");
const db_1 = require("../../db");
const errors_1 = require("../errors");
const ids_1 = require("../ids");
const address_policy_1 = require("./address-policy");
const outbox_1 = require("./outbox");
const queue_1 = require("./queue");
const webhooks_service_1 = require("./webhooks.service");
/** Event types an endpoint can subscribe to (CONTRACT sections 8, 13; `webhook.test` is sent on request only). */
exports.WEBHOOK_EVENT_TYPES = ['response.created', 'row.created', 'row.updated', 'row.deleted', 'email_event.created'];
exports.ENDPOINT_STYLES = ['A', 'B'];
/** Reason stored when an endpoint is disabled through the API. */
exports.DISABLED_BY_PATCH = 'Disabled through the API (PATCH enabled=false).';
/**
 * @throws AppError validation_error naming `url` when the URL is not https (unless allowed), holds
 * credentials, or its host is or resolves to a non-public address (unless allowed). A host that
 * does not resolve is accepted (it is checked again at every attempt).
 */
async function checkUrl(raw, guard) {
    const check = await (0, address_policy_1.checkWebhookUrl)(raw, guard.policy, guard.resolve);
    if (!check.ok && !check.unresolved)
        throw errors_1.errors.invalid('body', 'url', check.reason);
    return raw;
}
function checkEvents(events) {
    const bad = events.findIndex((e) => !exports.WEBHOOK_EVENT_TYPES.includes(e));
    if (bad >= 0) {
        throw errors_1.errors.invalid('body', `events[${bad}]`, `\`events[${bad}]\` must be one of ${exports.WEBHOOK_EVENT_TYPES.join(', ')}; got "${events[bad]}".`);
    }
    if (events.length === 0)
        throw errors_1.errors.invalid('body', 'events', '`events` needs at least one event type.');
    return [...new Set(events)];
}
function checkStyle(style) {
    if (!exports.ENDPOINT_STYLES.includes(style))
        throw errors_1.errors.invalid('body', 'style', `\`style\` must be A or B; got "${style}".`);
    return style;
}
/**
 * Creates an endpoint with a new signing secret.
 * @returns the endpoint and its `secret`; times are UTC Dates.
 * @throws AppError validation_error naming `url`, `events[i]` or `style`.
 * Spec: POST {ws}/webhook-endpoints; CONTRACT section 13 (addresses, style).
 */
async function createWebhookEndpoint(db, workspaceId, input, guard) {
    const events = checkEvents(input.events);
    const style = checkStyle(input.style);
    const url = await checkUrl(input.url, guard);
    const secret = (0, secrets_1.generateWebhookSecret)();
    const [row] = await db('webhook_endpoints')
        .insert({
        workspace_id: workspaceId,
        id: (0, ids_1.newId)('webhookEndpoint'),
        url,
        events,
        description: input.description ?? null,
        enabled: input.enabled ?? true,
        style,
        disabled_reason: input.enabled === false ? 'Created disabled.' : null,
        secret,
    })
        .returning(webhooks_service_1.ENDPOINT_COLUMNS);
    return { ...(0, webhooks_service_1.toEndpoint)(row), secret };
}
/** Ends the endpoint's pending deliveries as `failed` (their queued jobs then find nothing to do). */
async function failPendingDeliveries(trx, workspaceId, endpointId, reason) {
    return trx('webhook_deliveries')
        .where({ workspace_id: workspaceId, endpoint_id: endpointId, status: 'pending' })
        .update({ status: 'failed', last_error: reason, next_attempt_at: null, attempt_token: null, updated_at: trx.fn.now() });
}
/**
 * Changes an endpoint. `enabled: false` disables it (`disabled_reason` set) and ends its pending
 * deliveries as `failed`; `enabled: true` clears `disabled_reason`. Writes made while it is disabled
 * are never delivered to it.
 * @throws AppError resource_not_found; validation_error naming `url`, `events[i]` or `style`.
 * Spec: CONTRACT section 13, PATCH {ws}/webhook-endpoints/{id}.
 */
async function patchWebhookEndpoint(db, workspaceId, id, patch, guard) {
    const set = {};
    if (patch.events !== undefined)
        set.events = checkEvents(patch.events);
    if (patch.style !== undefined)
        set.style = checkStyle(patch.style);
    if (patch.url !== undefined)
        set.url = await checkUrl(patch.url, guard);
    if (patch.description !== undefined)
        set.description = patch.description;
    return db.transaction(async (trx) => {
        // Locks the endpoint before its deliveries (the worker's outcome records lock in the same order).
        await trx('webhook_endpoints').where({ workspace_id: workspaceId, id }).forNoKeyUpdate().first('id');
        const current = await (0, webhooks_service_1.getWebhookEndpoint)(trx, workspaceId, id);
        if (patch.enabled === true)
            Object.assign(set, { enabled: true, disabled_reason: null });
        if (patch.enabled === false) {
            set.enabled = false;
            if (current.enabled) {
                set.disabled_reason = exports.DISABLED_BY_PATCH;
                await failPendingDeliveries(trx, workspaceId, id, 'The endpoint was disabled.');
            }
        }
        if (Object.keys(set).length === 0)
            return current;
        const [row] = await trx('webhook_endpoints')
            .where({ workspace_id: workspaceId, id })
            .update({ ...set, updated_at: trx.fn.now() })
            .returning(webhooks_service_1.ENDPOINT_COLUMNS);
        return (0, webhooks_service_1.toEndpoint)(row);
    });
}
/**
 * Replaces the signing secret. For 24 h the previous secret signs too (two `v1,` signatures).
 * @returns the endpoint with its new `secret`.
 * @throws AppError resource_not_found.
 * Spec: CONTRACT section 13, POST {ws}/webhook-endpoints/{id}/rotate-secret.
 */
async function rotateWebhookSecret(db, workspaceId, id) {
    const secret = (0, secrets_1.generateWebhookSecret)();
    const rows = (await db('webhook_endpoints')
        .where({ workspace_id: workspaceId, id })
        .update({
        previous_secret: db.ref('secret'),
        previous_secret_until: db.raw(`now() + interval '24 hours'`),
        secret,
        updated_at: db.fn.now(),
    })
        .returning(webhooks_service_1.ENDPOINT_COLUMNS));
    if (rows.length === 0)
        throw errors_1.errors.notFound('Webhook endpoint', id);
    return { ...(0, webhooks_service_1.toEndpoint)(rows[0]), secret };
}
async function enabledEndpoint(trx, workspaceId, id) {
    const endpoint = await (0, webhooks_service_1.getWebhookEndpoint)(trx, workspaceId, id);
    if (!endpoint.enabled)
        throw errors_1.errors.conflict(`Webhook endpoint "${id}" is disabled; enable it (PATCH enabled=true) first.`);
    return endpoint;
}
/**
 * Records a `webhook.test` event for this one endpoint (whatever its `events`) and queues it.
 * @returns the queued delivery (`pending`).
 * @throws AppError resource_not_found; conflict when the endpoint is disabled.
 * Spec: CONTRACT section 13, POST {ws}/webhook-endpoints/{id}/test.
 */
async function sendTestEvent(db, workspaceId, id) {
    return db.transaction(async (trx) => {
        await enabledEndpoint(trx, workspaceId, id);
        const [event] = await (0, outbox_1.recordEvents)(trx, workspaceId, [{ type: 'webhook.test', resource: { kind: 'test', endpointId: id } }]);
        return (0, webhooks_service_1.getDelivery)(trx, workspaceId, id, event.deliveryIds[0]);
    });
}
/**
 * Queues a delivery again now, whatever its status: `pending`, next attempt due now. A job already
 * queued for it is superseded (its token no longer matches), so the attempt is made once.
 * @throws AppError resource_not_found for the endpoint or the delivery; conflict when the endpoint is disabled.
 * Spec: CONTRACT section 13, POST {ws}/webhook-endpoints/{id}/deliveries/{delivery_id}/retry.
 */
async function retryDelivery(db, workspaceId, endpointId, deliveryId) {
    return db.transaction(async (trx) => {
        await enabledEndpoint(trx, workspaceId, endpointId);
        const token = (0, node_crypto_1.randomUUID)();
        const rows = (await trx('webhook_deliveries')
            .where({ workspace_id: workspaceId, endpoint_id: endpointId, id: deliveryId })
            .update({ status: 'pending', attempt_token: token, next_attempt_at: trx.fn.now(), updated_at: trx.fn.now() })
            .returning(webhooks_service_1.DELIVERY_COLUMNS));
        if (!rows[0])
            throw errors_1.errors.notFound('Delivery', deliveryId);
        await (0, queue_1.enqueueAttempts)(trx, [{ workspaceId, deliveryId, token }]);
        return (0, webhooks_service_1.toDelivery)(rows[0]);
    });
}
/**
 * Deletes an endpoint of the workspace (its deliveries go with it).
 * @throws AppError resource_not_found (also for an endpoint of another workspace).
 * Spec: DELETE {ws}/webhook-endpoints/{endpoint_id}.
 */
async function deleteWebhookEndpoint(db, workspaceId, id) {
    const n = await (0, db_1.affectedRows)(db('webhook_endpoints').where({ workspace_id: workspaceId, id }).delete());
    if (n === 0)
        throw errors_1.errors.notFound('Webhook endpoint', id);
}
//# sourceMappingURL=webhooks.write.js.map