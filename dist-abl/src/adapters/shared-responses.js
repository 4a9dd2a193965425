"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.sharedResponsesRouter = sharedResponsesRouter;
/**
 * The one place that hands a shared path to a style (CONTRACT section 2): `{ws}/responses`,
 * `{ws}/responses/export` (section 15), `{ws}/responses/{response_id}` and v2 `/responses`. `req.style` was decided by platform/style-selection.
 */
const express_1 = require("express");
const responses_export_1 = require("./responses-export");
const responses_write_1 = require("./responses.write");
const router_1 = require("./style-a/router");
const responses_routes_1 = require("./style-b/responses.routes");
const byStyle = (a, b) => (req, res, next) => (req.style === 'B' ? b : a)(req, res, next);
/** Mounted at `/api/v1/workspaces` and `/api/v2/workspaces`. */
function sharedResponsesRouter(deps, version) {
    const r = (0, express_1.Router)();
    const v2 = version === 2;
    r.get('/:workspace_id/responses', byStyle((0, router_1.responsesListA)(deps, { v2 }), (0, responses_routes_1.responsesListB)(deps, { v2 })));
    // The export is matched before `/responses/:response_id` would take "export" for an id.
    if (!v2)
        r.get('/:workspace_id/responses/export', byStyle((0, responses_export_1.responsesExport)(deps, 'A'), (0, responses_export_1.responsesExport)(deps, 'B')));
    if (!v2)
        r.post('/:workspace_id/responses', byStyle((0, responses_write_1.responseCreate)(deps, 'A'), (0, responses_write_1.responseCreate)(deps, 'B')));
    if (!v2)
        r.get('/:workspace_id/responses/:response_id', byStyle((0, router_1.responseGetA)(deps), (0, responses_routes_1.responseGetB)(deps)));
    return r;
}
//# sourceMappingURL=shared-responses.js.map