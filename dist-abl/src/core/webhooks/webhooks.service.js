"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.toDelivery = exports.DELIVERY_COLUMNS = exports.DELIVERY_STATUSES = exports.toEndpoint = exports.ENDPOINT_COLUMNS = void 0;
exports.listWebhookEndpoints = listWebhookEndpoints;
exports.getWebhookEndpoint = getWebhookEndpoint;
exports.listDeliveries = listDeliveries;
exports.getDelivery = getDelivery;
const errors_1 = require("../errors");
const fields_1 = require("../query/fields");
const list_1 = require("../query/list");
const sort_1 = require("../query/sort");
const sql_1 = require("../query/sql");
exports.ENDPOINT_COLUMNS = ['id', 'url', 'events', 'description', 'enabled', 'style', 'disabled_reason', 'created_at', 'updated_at'];
const toEndpoint = (r) => ({
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
exports.toEndpoint = toEndpoint;
/** All endpoints of the workspace, newest first (the document gives this list no pagination). */
async function listWebhookEndpoints(db, workspaceId) {
    const rows = (await db('webhook_endpoints')
        .select(exports.ENDPOINT_COLUMNS)
        .where('workspace_id', workspaceId)
        .orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'id', order: 'desc' },
    ]));
    return rows.map(exports.toEndpoint);
}
/** @throws AppError resource_not_found */
async function getWebhookEndpoint(db, workspaceId, id) {
    const row = (await db('webhook_endpoints').select(exports.ENDPOINT_COLUMNS).where({ workspace_id: workspaceId, id }).first());
    if (!row)
        throw errors_1.errors.notFound('Webhook endpoint', id);
    return (0, exports.toEndpoint)(row);
}
exports.DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'];
exports.DELIVERY_COLUMNS = [
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
const toDelivery = (r) => ({
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
exports.toDelivery = toDelivery;
const col = (name, type) => ({ name, expr: (0, sql_1.sql)('??', name), type, nullable: false });
const CREATED_AT = col('created_at', 'timestamp');
const DELIVERY_SORT = (0, fields_1.fieldMap)([CREATED_AT]);
/**
 * The endpoint's deliveries, newest first, as a keyset page.
 * @param q.limit 1–100 (validated by the adapter); `q.cursor` from a previous page; `q.status` narrows.
 * @throws AppError resource_not_found for the endpoint; validation_error naming `status` for an
 * unknown status, or `cursor` for a malformed or foreign cursor.
 * Spec: CONTRACT section 13, GET {ws}/webhook-endpoints/{id}/deliveries.
 */
async function listDeliveries(db, workspaceId, endpointId, q) {
    if (q.status !== undefined && !exports.DELIVERY_STATUSES.includes(q.status)) {
        throw errors_1.errors.invalid('query', 'status', `\`status\` must be one of ${exports.DELIVERY_STATUSES.join(', ')}; got "${q.status}".`);
    }
    await getWebhookEndpoint(db, workspaceId, endpointId);
    const query = db('webhook_deliveries').select(exports.DELIVERY_COLUMNS).where({ workspace_id: workspaceId, endpoint_id: endpointId });
    if (q.status !== undefined)
        query.where('status', q.status);
    const keys = (0, sort_1.parseSort)(undefined, { fields: DELIVERY_SORT, tieBreaker: col('id', 'text'), defaultSort: [{ field: CREATED_AT, dir: 'desc' }], multi: false });
    const page = await (0, list_1.fetchKeysetPage)(db, query, keys, q.limit, q.cursor, `deliveries:${endpointId}:${q.status ?? ''}`);
    return { kind: 'keyset', items: page.rows.map(exports.toDelivery), limit: q.limit, nextCursor: page.nextCursor, prevCursor: page.prevCursor };
}
/**
 * @throws AppError resource_not_found for the endpoint or the delivery (also one of another endpoint).
 * Spec: CONTRACT section 13, GET {ws}/webhook-endpoints/{id}/deliveries/{delivery_id}.
 */
async function getDelivery(db, workspaceId, endpointId, deliveryId) {
    await getWebhookEndpoint(db, workspaceId, endpointId);
    const row = (await db('webhook_deliveries')
        .select(exports.DELIVERY_COLUMNS)
        .where({ workspace_id: workspaceId, endpoint_id: endpointId, id: deliveryId })
        .first());
    if (!row)
        throw errors_1.errors.notFound('Delivery', deliveryId);
    return (0, exports.toDelivery)(row);
}
//# sourceMappingURL=webhooks.service.js.map