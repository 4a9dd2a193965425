"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.responsesFilterB = responsesFilterB;
exports.responsesListB = responsesListB;
exports.responseGetB = responseGetB;
const responses_service_1 = require("../../core/responses/responses.service");
const envelope_1 = require("../envelope");
const query_values_1 = require("../query-values");
const params_1 = require("./params");
const present_1 = require("./present");
/** The Style B filters and sort of a responses list (shared by the list and the export). */
function responsesFilterB(req) {
    return {
        formId: (0, query_values_1.str)(req, 'form_id'),
        created: (0, query_values_1.createdRangeB)(req),
        filter: (0, query_values_1.str)(req, 'filter'),
        sort: (0, query_values_1.str)(req, 'sort'),
        multiSort: true,
        include: {
            formName: true,
            tableData: (0, query_values_1.bool)(req, 'include_table_data'),
            actionlists: (0, query_values_1.bool)(req, 'include_actionlist_data'),
        },
    };
}
/** GET {ws}/responses in Style B; `v2` (GET /api/v2/…/responses) adds reporting labels. */
function responsesListB({ db }, opts = {}) {
    return async (req, res) => {
        const pagination = (0, params_1.pageParams)(req);
        const page = await (0, responses_service_1.listResponses)(db, (0, query_values_1.workspaceOf)(req), { ...responsesFilterB(req), pagination });
        if (page.kind !== 'page')
            throw new Error('expected an offset page');
        res.json((0, envelope_1.offsetPage)(req, page.items.map((r) => (0, present_1.presentResponseB)(r, opts.v2)), page));
    };
}
/** GET {ws}/responses/{response_id} in Style B. */
function responseGetB({ db }) {
    return async (req, res) => {
        const r = await (0, responses_service_1.getResponse)(db, (0, query_values_1.workspaceOf)(req), (0, query_values_1.param)(req, 'response_id'), {
            formName: true,
            tableData: (0, query_values_1.bool)(req, 'include_table_data'),
            actionlists: (0, query_values_1.bool)(req, 'include_actionlist_data'),
        });
        res.json((0, envelope_1.single)(req, (0, present_1.presentResponseB)(r)));
    };
}
//# sourceMappingURL=responses.routes.js.map