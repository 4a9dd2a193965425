"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.keysetParams = keysetParams;
exports.responsesFilterA = responsesFilterA;
exports.responsesListA = responsesListA;
exports.responseGetA = responseGetA;
exports.styleARouter = styleARouter;
exports.ifNoneMatch = ifNoneMatch;
/**
 * Style A reads (API document "Style A endpoints"): cursor pages with `has_more`, snake_case,
 * `/datatables`. Each handler parses its parameters, calls the core and presents the result.
 */
const express_1 = require("express");
const api_keys_service_1 = require("../../core/api-keys/api-keys.service");
const datatables_service_1 = require("../../core/datatables/datatables.service");
const email_events_service_1 = require("../../core/email-events/email-events.service");
const forms_service_1 = require("../../core/forms/forms.service");
const responses_service_1 = require("../../core/responses/responses.service");
const webhooks_service_1 = require("../../core/webhooks/webhooks.service");
const workspaces_service_1 = require("../../core/workspaces/workspaces.service");
const envelope_1 = require("../envelope");
const query_values_1 = require("../query-values");
const present_1 = require("./present");
/** Style A page parameters: `limit` 1..100 (default 20) and `cursor` (CONTRACT section 7). */
function keysetParams(req) {
    return { kind: 'keyset', limit: (0, query_values_1.int)(req, 'limit', 1, 100, 20), cursor: (0, query_values_1.str)(req, 'cursor') };
}
/** The Style A filters and sort of a responses list (shared by the list and the export). */
function responsesFilterA(req, formId) {
    return {
        formId,
        created: (0, query_values_1.createdRangeA)(req),
        scoreGte: (0, query_values_1.num)(req, 'score_gte'),
        scoreLte: (0, query_values_1.num)(req, 'score_lte'),
        sort: (0, query_values_1.str)(req, 'sort'),
        include: { tableData: (0, query_values_1.bool)(req, 'include_table_data') },
    };
}
/** GET {ws}/responses and {ws}/forms/{form_id}/responses in Style A; `v2` adds reporting labels. */
function responsesListA({ db }, opts = {}) {
    return async (req, res) => {
        const ws = (0, query_values_1.workspaceOf)(req);
        const formId = opts.byForm ? (0, query_values_1.param)(req, 'form_id') : (0, query_values_1.str)(req, 'form_id');
        if (opts.byForm)
            await (0, forms_service_1.assertFormExists)(db, ws, formId);
        const page = await (0, responses_service_1.listResponses)(db, ws, { ...responsesFilterA(req, formId), pagination: keysetParams(req) });
        if (page.kind !== 'keyset')
            throw new Error('expected a keyset page');
        res.json((0, envelope_1.cursorPage)(req, page.items.map((r) => (0, present_1.presentResponseA)(r, opts.v2)), page.limit, page.nextCursor, page.prevCursor));
    };
}
function responseGetA({ db }) {
    return async (req, res) => {
        const r = await (0, responses_service_1.getResponse)(db, (0, query_values_1.workspaceOf)(req), (0, query_values_1.param)(req, 'response_id'), { tableData: (0, query_values_1.bool)(req, 'include_table_data') });
        res.json((0, envelope_1.single)(req, (0, present_1.presentResponseA)(r)));
    };
}
/** Routes mounted at `/api/v1/workspaces`. Shared responses paths are mounted by the style selector. */
function styleARouter(deps) {
    const { db } = deps;
    const r = (0, express_1.Router)();
    r.get('/', async (req, res) => {
        res.json((0, envelope_1.wholeListA)(req, await (0, workspaces_service_1.listWorkspaces)(db, req.auth?.workspaceIds ?? [])));
    });
    r.get('/:workspace_id', async (req, res) => {
        res.json((0, envelope_1.single)(req, await (0, workspaces_service_1.getWorkspace)(db, (0, query_values_1.workspaceOf)(req))));
    });
    r.get('/:workspace_id/forms', async (req, res) => {
        const p = keysetParams(req);
        const page = await (0, forms_service_1.listForms)(db, (0, query_values_1.workspaceOf)(req), { limit: p.limit, cursor: p.cursor, sort: (0, query_values_1.str)(req, 'sort') });
        res.json((0, envelope_1.cursorPage)(req, page.items.map(present_1.presentFormA), page.limit, page.nextCursor, page.prevCursor));
    });
    r.get('/:workspace_id/forms/:form_id', async (req, res) => {
        const form = await (0, forms_service_1.getForm)(db, (0, query_values_1.workspaceOf)(req), (0, query_values_1.param)(req, 'form_id'), { questions: (0, query_values_1.str)(req, 'include') === 'questions' });
        res.json((0, envelope_1.single)(req, (0, present_1.presentFormA)(form)));
    });
    r.get('/:workspace_id/forms/:form_id/schema', async (req, res) => {
        const schema = await (0, forms_service_1.getFormSchema)(db, (0, query_values_1.workspaceOf)(req), (0, query_values_1.param)(req, 'form_id'));
        res.setHeader('ETag', schema.etag);
        res.setHeader('Cache-Control', 'private, no-cache');
        if (ifNoneMatch(req.get('If-None-Match'), schema.etag)) {
            res.status(304).end();
            return;
        }
        res.json((0, envelope_1.single)(req, (0, present_1.presentSchemaA)(schema)));
    });
    r.get('/:workspace_id/forms/:form_id/analytics/summary', async (req, res) => {
        res.json((0, envelope_1.single)(req, (0, present_1.presentSummaryA)(await (0, forms_service_1.getFormSummary)(db, (0, query_values_1.workspaceOf)(req), (0, query_values_1.param)(req, 'form_id')))));
    });
    r.get('/:workspace_id/forms/:form_id/questions', async (req, res) => {
        res.json((0, envelope_1.wholeListA)(req, (await (0, forms_service_1.listQuestions)(db, (0, query_values_1.workspaceOf)(req), (0, query_values_1.param)(req, 'form_id'))).map(present_1.presentQuestionA)));
    });
    r.get('/:workspace_id/forms/:form_id/questions/:question_id', async (req, res) => {
        const q = await (0, forms_service_1.getQuestion)(db, (0, query_values_1.workspaceOf)(req), (0, query_values_1.param)(req, 'form_id'), (0, query_values_1.param)(req, 'question_id'));
        res.json((0, envelope_1.single)(req, (0, present_1.presentQuestionA)(q)));
    });
    r.get('/:workspace_id/forms/:form_id/responses', responsesListA(deps, { byForm: true }));
    r.get('/:workspace_id/datatables', async (req, res) => {
        const p = keysetParams(req);
        const page = await (0, datatables_service_1.listDatatables)(db, (0, query_values_1.workspaceOf)(req), { limit: p.limit, cursor: p.cursor, sort: (0, query_values_1.str)(req, 'sort') });
        res.json((0, envelope_1.cursorPage)(req, page.items.map(present_1.presentDatatableA), page.limit, page.nextCursor, page.prevCursor));
    });
    r.get('/:workspace_id/datatables/:datatable_id', async (req, res) => {
        const t = await (0, datatables_service_1.getDatatable)(db, (0, query_values_1.workspaceOf)(req), (0, query_values_1.param)(req, 'datatable_id'), { fields: (0, query_values_1.str)(req, 'include') === 'fields' });
        res.json((0, envelope_1.single)(req, (0, present_1.presentDatatableA)(t)));
    });
    r.get('/:workspace_id/datatables/:datatable_id/rows', async (req, res) => {
        const page = await (0, datatables_service_1.listRows)(db, (0, query_values_1.workspaceOf)(req), (0, query_values_1.param)(req, 'datatable_id'), {
            filter: (0, query_values_1.str)(req, 'filter'),
            sort: (0, query_values_1.str)(req, 'sort'),
            pagination: keysetParams(req),
        });
        if (page.kind !== 'keyset')
            throw new Error('expected a keyset page');
        res.json((0, envelope_1.cursorPage)(req, page.items.map(present_1.presentRowA), page.limit, page.nextCursor, page.prevCursor));
    });
    r.get('/:workspace_id/datatables/:datatable_id/rows/:row_id', async (req, res) => {
        res.json((0, envelope_1.single)(req, (0, present_1.presentRowA)(await (0, datatables_service_1.getRow)(db, (0, query_values_1.workspaceOf)(req), (0, query_values_1.param)(req, 'datatable_id'), (0, query_values_1.param)(req, 'row_id')))));
    });
    const eventsHandler = (byEmail) => async (req, res) => {
        const page = await (0, email_events_service_1.listEmailEvents)(db, (0, query_values_1.workspaceOf)(req), {
            emailId: byEmail ? (0, query_values_1.param)(req, 'email_id') : (0, query_values_1.str)(req, 'email_id'),
            type: (0, query_values_1.str)(req, 'type'),
            recipient: (0, query_values_1.str)(req, 'recipient'),
            created: (0, query_values_1.createdRangeA)(req),
            sort: (0, query_values_1.str)(req, 'sort'),
            pagination: keysetParams(req),
        });
        if (page.kind !== 'keyset')
            throw new Error('expected a keyset page');
        res.json((0, envelope_1.cursorPage)(req, page.items.map(present_1.presentEmailEventA), page.limit, page.nextCursor, page.prevCursor));
    };
    r.get('/:workspace_id/email-events', eventsHandler(false));
    r.get('/:workspace_id/emails/:email_id/events', eventsHandler(true));
    r.get('/:workspace_id/webhook-endpoints', async (req, res) => {
        res.json((0, envelope_1.wholeListA)(req, (await (0, webhooks_service_1.listWebhookEndpoints)(db, (0, query_values_1.workspaceOf)(req))).map(present_1.presentWebhookEndpoint)));
    });
    r.get('/:workspace_id/webhook-endpoints/:endpoint_id', async (req, res) => {
        res.json((0, envelope_1.single)(req, (0, present_1.presentWebhookEndpoint)(await (0, webhooks_service_1.getWebhookEndpoint)(db, (0, query_values_1.workspaceOf)(req), (0, query_values_1.param)(req, 'endpoint_id')))));
    });
    r.get('/:workspace_id/api-keys', async (req, res) => {
        res.json((0, envelope_1.wholeListA)(req, (await (0, api_keys_service_1.listApiKeys)(db, (0, query_values_1.workspaceOf)(req))).map(present_1.presentApiKey)));
    });
    return r;
}
/** RFC 9110 If-None-Match: `*` or a list of entity tags (weak comparison). */
function ifNoneMatch(header, etag) {
    if (!header)
        return false;
    if (header.trim() === '*')
        return true;
    const strip = (t) => t.trim().replace(/^W\//, '');
    return header.split(',').some((t) => strip(t) === strip(etag));
}
//# sourceMappingURL=router.js.map