"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.webhooksRouter = webhooksRouter;
/**
 * Style A webhook endpoint writes and the delivery log (API document "Webhook endpoint"; CONTRACT
 * sections 8 and 13): create, PATCH, delete, rotate-secret, test, deliveries (list, one, retry).
 * Parse, call the core, present; the OpenAPI validator has already checked the shapes.
 */
const express_1 = require("express");
const webhooks_service_1 = require("../../core/webhooks/webhooks.service");
const webhooks_write_1 = require("../../core/webhooks/webhooks.write");
const envelope_1 = require("../envelope");
const query_values_1 = require("../query-values");
const router_1 = require("./router");
const present_1 = require("./present");
const bodyOf = (req) => (req.body ?? {});
/** Routes mounted at `/api/v1/workspaces`. */
function webhooksRouter({ db, webhookUrls }) {
    const r = (0, express_1.Router)();
    const base = '/:workspace_id/webhook-endpoints';
    r.post(base, async (req, res) => {
        const b = bodyOf(req);
        const created = await (0, webhooks_write_1.createWebhookEndpoint)(db, (0, query_values_1.workspaceOf)(req), {
            url: b.url,
            events: b.events,
            description: b.description,
            enabled: b.enabled,
            // The endpoint renders events in the creating key's style unless told otherwise.
            style: b.style ?? req.auth?.style ?? 'A',
        }, webhookUrls);
        res.status(201).json((0, envelope_1.single)(req, { ...(0, present_1.presentWebhookEndpoint)(created), secret: created.secret }));
    });
    r.patch(`${base}/:endpoint_id`, async (req, res) => {
        const b = bodyOf(req);
        const endpoint = await (0, webhooks_write_1.patchWebhookEndpoint)(db, (0, query_values_1.workspaceOf)(req), (0, query_values_1.param)(req, 'endpoint_id'), {
            url: b.url,
            events: b.events,
            description: b.description,
            enabled: b.enabled,
            style: b.style,
        }, webhookUrls);
        res.json((0, envelope_1.single)(req, (0, present_1.presentWebhookEndpoint)(endpoint)));
    });
    r.delete(`${base}/:endpoint_id`, async (req, res) => {
        await (0, webhooks_write_1.deleteWebhookEndpoint)(db, (0, query_values_1.workspaceOf)(req), (0, query_values_1.param)(req, 'endpoint_id'));
        res.status(204).end();
    });
    r.post(`${base}/:endpoint_id/rotate-secret`, async (req, res) => {
        const rotated = await (0, webhooks_write_1.rotateWebhookSecret)(db, (0, query_values_1.workspaceOf)(req), (0, query_values_1.param)(req, 'endpoint_id'));
        res.json((0, envelope_1.single)(req, { ...(0, present_1.presentWebhookEndpoint)(rotated), secret: rotated.secret }));
    });
    r.post(`${base}/:endpoint_id/test`, async (req, res) => {
        const delivery = await (0, webhooks_write_1.sendTestEvent)(db, (0, query_values_1.workspaceOf)(req), (0, query_values_1.param)(req, 'endpoint_id'));
        res.status(202).json((0, envelope_1.single)(req, (0, present_1.presentDelivery)(delivery)));
    });
    r.get(`${base}/:endpoint_id/deliveries`, async (req, res) => {
        const p = (0, router_1.keysetParams)(req);
        const page = await (0, webhooks_service_1.listDeliveries)(db, (0, query_values_1.workspaceOf)(req), (0, query_values_1.param)(req, 'endpoint_id'), { limit: p.limit, cursor: p.cursor, status: (0, query_values_1.str)(req, 'status') });
        res.json((0, envelope_1.cursorPage)(req, page.items.map(present_1.presentDelivery), page.limit, page.nextCursor, page.prevCursor));
    });
    r.get(`${base}/:endpoint_id/deliveries/:delivery_id`, async (req, res) => {
        const delivery = await (0, webhooks_service_1.getDelivery)(db, (0, query_values_1.workspaceOf)(req), (0, query_values_1.param)(req, 'endpoint_id'), (0, query_values_1.param)(req, 'delivery_id'));
        res.json((0, envelope_1.single)(req, (0, present_1.presentDelivery)(delivery)));
    });
    r.post(`${base}/:endpoint_id/deliveries/:delivery_id/retry`, async (req, res) => {
        const delivery = await (0, webhooks_write_1.retryDelivery)(db, (0, query_values_1.workspaceOf)(req), (0, query_values_1.param)(req, 'endpoint_id'), (0, query_values_1.param)(req, 'delivery_id'));
        res.status(202).json((0, envelope_1.single)(req, (0, present_1.presentDelivery)(delivery)));
    });
    return r;
}
//# sourceMappingURL=webhooks.routes.js.map