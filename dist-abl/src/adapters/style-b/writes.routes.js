"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.styleBWritesRouter = styleBWritesRouter;
/**
 * Style B row writes (API document "Style B endpoints"; CONTRACT sections 8 and 10) under
 * `/tables/{table_id}`: the single upsert answers 201 `{row_id, data}` without the envelope, bulk
 * answers the envelope with `meta {created, updated}`, PATCH the envelope, DELETE 204.
 */
const express_1 = require("express");
const rows_write_1 = require("../../core/datatables/rows.write");
const envelope_1 = require("../envelope");
const present_1 = require("./present");
const query_values_1 = require("../query-values");
const bodyOf = (req) => (req.body ?? {});
/** Write routes mounted at `/api/v1/workspaces`. */
function styleBWritesRouter({ db }) {
    const r = (0, express_1.Router)();
    r.post('/:workspace_id/tables/:table_id/entries', async (req, res) => {
        const [row] = await (0, rows_write_1.upsertRows)(db, (0, query_values_1.workspaceOf)(req), (0, query_values_1.param)(req, 'table_id'), [bodyOf(req).data], {
            single: true,
            requireId: true,
        });
        res.status(201).json((0, present_1.presentRowB)(row));
    });
    r.post('/:workspace_id/tables/:table_id/bulk-entries', async (req, res) => {
        const rows = await (0, rows_write_1.upsertRows)(db, (0, query_values_1.workspaceOf)(req), (0, query_values_1.param)(req, 'table_id'), bodyOf(req).data, {
            single: false,
            requireId: true,
            maxItems: 1000,
        });
        const created = rows.filter((row) => row.created).length;
        res.json({ ...(0, envelope_1.single)(req, rows.map((r) => (0, present_1.presentRowB)(r))), meta: { created, updated: rows.length - created } });
    });
    r.patch('/:workspace_id/tables/:table_id/entries/:row_id', async (req, res) => {
        const row = await (0, rows_write_1.patchRow)(db, (0, query_values_1.workspaceOf)(req), (0, query_values_1.param)(req, 'table_id'), (0, query_values_1.param)(req, 'row_id'), bodyOf(req).data);
        res.json((0, envelope_1.single)(req, (0, present_1.presentRowB)(row)));
    });
    r.delete('/:workspace_id/tables/:table_id/entries/:row_id', async (req, res) => {
        await (0, rows_write_1.deleteRow)(db, (0, query_values_1.workspaceOf)(req), (0, query_values_1.param)(req, 'table_id'), (0, query_values_1.param)(req, 'row_id'));
        res.status(204).end();
    });
    return r;
}
//# sourceMappingURL=writes.routes.js.map