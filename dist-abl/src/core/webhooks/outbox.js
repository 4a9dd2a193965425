"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.EVENT_TYPES = void 0;
exports.decodeResource = decodeResource;
exports.enabledEndpoints = enabledEndpoints;
exports.anySubscribed = anySubscribed;
exports.recordEvents = recordEvents;
/**
 * The transactional outbox of webhook events (CONTRACT section 13). Every write that makes an event
 * calls `recordEvents` with ITS OWN transaction, so the event, one delivery per subscribed enabled
 * endpoint and the delivery jobs (pg-boss, core/webhooks/queue.ts) commit or roll back with the
 * write: a committed write is never lost, a rolled-back one sends nothing. The delivery worker
 * (src/delivery) renders `resource` in each endpoint's style when it sends.
 */
const node_crypto_1 = require("node:crypto");
const ids_1 = require("../ids");
const queue_1 = require("./queue");
exports.EVENT_TYPES = ['response.created', 'row.created', 'row.updated', 'row.deleted', 'email_event.created', 'webhook.test'];
const date = (v) => new Date(v);
/**
 * The resource as read back from `webhook_events.resource` (JSON): Dates revived.
 * @throws Error for a kind this version does not know (a newer writer).
 */
function decodeResource(json) {
    const r = json;
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
        case 'test':
            return r;
        default:
            throw new Error(`unknown event resource kind ${r.kind}`);
    }
}
/** The workspace's enabled endpoints, by id. */
async function enabledEndpoints(db, workspaceId) {
    return (await db('webhook_endpoints').select('id', 'events').where({ workspace_id: workspaceId, enabled: true }).orderBy('id'));
}
/** True when some endpoint takes one of these event types: a write without one records no event. */
function anySubscribed(endpoints, types) {
    return endpoints.some((e) => types.some((t) => e.events.includes(t)));
}
/**
 * Records the events of one write inside the write's transaction: each event (`evt_…`, type,
 * timestamp = now, the resource as JSON), one `pending` delivery (`dlv_…`) per ENABLED endpoint of
 * the workspace subscribed to its type (a `webhook.test` event: its one endpoint), and one queued
 * attempt job per delivery, due at once.
 * @param trx the write's own transaction (never a bare connection: the event must roll back with it).
 * @param known the workspace's enabled endpoints when the caller has read them already (this
 *   request, READ COMMITTED: the same answer the transaction would read); read here when absent.
 * @returns the events in order with their delivery ids (empty when no endpoint wants them).
 * Spec: CONTRACT section 13.
 */
async function recordEvents(trx, workspaceId, events, known) {
    if (events.length === 0)
        return [];
    const endpoints = known ?? (await enabledEndpoints(trx, workspaceId));
    const testTargets = new Set(events.flatMap((e) => (e.resource.kind === 'test' ? [e.resource.endpointId] : [])));
    if (endpoints.length === 0 && testTargets.size === 0)
        return [];
    const eventRows = [];
    const deliveries = [];
    const recorded = [];
    for (const e of events) {
        const targets = e.resource.kind === 'test'
            ? [e.resource.endpointId]
            : endpoints.filter((ep) => ep.events.includes(e.type)).map((ep) => ep.id);
        if (targets.length === 0)
            continue;
        const id = (0, ids_1.newId)('webhookEvent');
        eventRows.push({ workspace_id: workspaceId, id, type: e.type, resource: JSON.stringify(e.resource) });
        const deliveryIds = targets.map((endpointId) => {
            const deliveryId = (0, ids_1.newId)('webhookDelivery');
            deliveries.push({
                workspace_id: workspaceId,
                id: deliveryId,
                endpoint_id: endpointId,
                event_id: id,
                event_type: e.type,
                attempt_token: (0, node_crypto_1.randomUUID)(),
            });
            return deliveryId;
        });
        recorded.push({ id, type: e.type, createdAt: new Date(0), deliveryIds });
    }
    if (eventRows.length === 0)
        return [];
    const stored = (await trx('webhook_events').insert(eventRows).returning(['id', 'created_at']));
    const createdAt = new Map(stored.map((s) => [s.id, s.created_at]));
    for (const r of recorded)
        r.createdAt = createdAt.get(r.id);
    // Large bulk writes: keep each insert well under the bind-parameter limit.
    for (let i = 0; i < deliveries.length; i += 1000) {
        const chunk = deliveries.slice(i, i + 1000);
        await trx('webhook_deliveries').insert(chunk.map((d) => ({ ...d, next_attempt_at: trx.fn.now() })));
    }
    await (0, queue_1.enqueueAttempts)(trx, deliveries.map((d) => ({ workspaceId, deliveryId: d.id, token: d.attempt_token })));
    return recorded;
}
//# sourceMappingURL=outbox.js.map