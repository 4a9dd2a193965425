"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.styleBRouter = styleBRouter;
/**
 * Style B-only reads (API document "Style B endpoints"): `/tables…` and `/emails/events`, page paging
 * with `meta {total, page, limit, filtered_total}`. Each handler parses its parameters, calls the core
 * and presents the result. The shared responses paths are mounted by adapters/shared-responses.ts.
 */
const express_1 = require("express");
const datatables_service_1 = require("../../core/datatables/datatables.service");
const email_events_service_1 = require("../../core/email-events/email-events.service");
const envelope_1 = require("../envelope");
const query_values_1 = require("../query-values");
const params_1 = require("./params");
const present_1 = require("./present");
/** Routes mounted at `/api/v1/workspaces`. */
function styleBRouter({ db }) {
    const r = (0, express_1.Router)();
    r.get('/:workspace_id/tables', async (req, res) => {
        res.json((0, envelope_1.wholeListB)(req, (await (0, datatables_service_1.listAllDatatables)(db, (0, query_values_1.workspaceOf)(req))).map(present_1.presentTableB)));
    });
    r.get('/:workspace_id/tables/:table_id/fields', async (req, res) => {
        const table = await (0, datatables_service_1.getDatatable)(db, (0, query_values_1.workspaceOf)(req), (0, query_values_1.param)(req, 'table_id'), { fields: true });
        res.json((0, envelope_1.wholeListB)(req, ['row_id', ...(table.fields ?? []).map((f) => f.name)]));
    });
    const rowsHandler = async (req, res) => {
        const pagination = (0, params_1.pageParams)(req);
        const withMetadata = (0, query_values_1.bool)(req, 'include_metadata');
        const page = await (0, datatables_service_1.listRows)(db, (0, query_values_1.workspaceOf)(req), (0, query_values_1.param)(req, 'table_id'), {
            filter: (0, query_values_1.str)(req, 'filter'),
            sort: (0, query_values_1.str)(req, 'sort'),
            multiSort: true,
            created: (0, query_values_1.createdRangeB)(req),
            pagination,
        });
        if (page.kind !== 'page')
            throw new Error('expected an offset page');
        res.json((0, envelope_1.offsetPage)(req, page.items.map((row) => (0, present_1.presentRowB)(row, withMetadata)), page));
    };
    r.get('/:workspace_id/tables/:table_id', rowsHandler);
    r.get('/:workspace_id/tables/:table_id/entries', rowsHandler);
    r.get('/:workspace_id/tables/:table_id/entries/:row_id', async (req, res) => {
        const row = await (0, datatables_service_1.getRow)(db, (0, query_values_1.workspaceOf)(req), (0, query_values_1.param)(req, 'table_id'), (0, query_values_1.param)(req, 'row_id'));
        res.json((0, envelope_1.single)(req, (0, present_1.presentRowB)(row)));
    });
    r.get('/:workspace_id/emails/events', async (req, res) => {
        const pagination = (0, params_1.pageParams)(req);
        const page = await (0, email_events_service_1.listEmailEvents)(db, (0, query_values_1.workspaceOf)(req), {
            emailId: (0, query_values_1.str)(req, 'email_id'),
            type: (0, query_values_1.str)(req, 'type'),
            recipient: (0, query_values_1.str)(req, 'recipient'),
            created: (0, query_values_1.createdRangeB)(req),
            filter: (0, query_values_1.str)(req, 'filter'),
            sort: (0, query_values_1.str)(req, 'sort'),
            multiSort: true,
            pagination,
        });
        if (page.kind !== 'page')
            throw new Error('expected an offset page');
        res.json((0, envelope_1.offsetPage)(req, page.items.map(present_1.presentEmailEventB), page));
    });
    return r;
}
//# sourceMappingURL=router.js.map