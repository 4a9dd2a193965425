"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.styleAWritesRouter = styleAWritesRouter;
/**
 * Style A writes (API document "Style A endpoints"; CONTRACT sections 8 and 10): rows under
 * `/datatables` and API keys (webhook endpoints: webhooks.routes.ts). Parse, call the core, present; the OpenAPI
 * validator has already checked the body shapes.
 */
const express_1 = require("express");
const api_keys_write_1 = require("../../core/api-keys/api-keys.write");
const rows_write_1 = require("../../core/datatables/rows.write");
const errors_1 = require("../../core/errors");
const envelope_1 = require("../envelope");
const query_values_1 = require("../query-values");
const present_1 = require("./present");
const bodyOf = (req) => (req.body ?? {});
/** Write routes mounted at `/api/v1/workspaces`. */
function styleAWritesRouter({ db }) {
    const r = (0, express_1.Router)();
    r.post('/:workspace_id/datatables/:datatable_id/rows', async (req, res) => {
        const data = bodyOf(req).data;
        const many = Array.isArray(data);
        const rows = await (0, rows_write_1.upsertRows)(db, (0, query_values_1.workspaceOf)(req), (0, query_values_1.param)(req, 'datatable_id'), (many ? data : [data]), {
            single: !many,
            maxItems: 100,
        });
        res.status(rows.every((row) => row.created) ? 201 : 200);
        res.json((0, envelope_1.single)(req, many ? rows.map(present_1.presentRowA) : (0, present_1.presentRowA)(rows[0])));
    });
    r.patch('/:workspace_id/datatables/:datatable_id/rows/:row_id', async (req, res) => {
        const row = await (0, rows_write_1.patchRow)(db, (0, query_values_1.workspaceOf)(req), (0, query_values_1.param)(req, 'datatable_id'), (0, query_values_1.param)(req, 'row_id'), bodyOf(req).data);
        res.json((0, envelope_1.single)(req, (0, present_1.presentRowA)(row)));
    });
    r.delete('/:workspace_id/datatables/:datatable_id/rows/:row_id', async (req, res) => {
        await (0, rows_write_1.deleteRow)(db, (0, query_values_1.workspaceOf)(req), (0, query_values_1.param)(req, 'datatable_id'), (0, query_values_1.param)(req, 'row_id'));
        res.status(204).end();
    });
    r.post('/:workspace_id/api-keys', async (req, res) => {
        if (!req.auth)
            throw errors_1.errors.invalidApiKey();
        const b = bodyOf(req);
        const key = await (0, api_keys_write_1.createApiKeyFor)(db, req.auth, (0, query_values_1.workspaceOf)(req), {
            name: b.name,
            scopes: b.scopes,
            workspaceIds: b.workspace_ids,
            expiresAt: b.expires_at,
            style: b.style,
            rateLimitPerMinute: b.rate_limit_per_minute,
        });
        res.status(201).json((0, envelope_1.single)(req, { ...(0, present_1.presentApiKey)({ ...key, lastUsedAt: null }), secret: key.secret }));
    });
    r.delete('/:workspace_id/api-keys/:key_id', async (req, res) => {
        if (!req.auth)
            throw errors_1.errors.invalidApiKey();
        await (0, api_keys_write_1.revokeApiKey)(db, req.auth, (0, query_values_1.workspaceOf)(req), (0, query_values_1.param)(req, 'key_id'));
        res.status(204).end();
    });
    return r;
}
//# sourceMappingURL=writes.routes.js.map