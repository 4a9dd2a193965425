"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.presentLink = presentLink;
exports.linksRouter = linksRouter;
/**
 * `POST {ws}/forms/{form_id}/links` (Style A, scope `forms:write`; CONTRACT section 12): mints a signed,
 * expiring email link to the form's hosted page. The OpenAPI validator has checked the body shape.
 */
const express_1 = require("express");
const links_1 = require("../../core/links/links");
const envelope_1 = require("../envelope");
const query_values_1 = require("../query-values");
/** The Style A shape of a minted link. */
function presentLink(l) {
    return {
        url: l.url,
        open_url: l.openUrl,
        email_id: l.emailId,
        form_id: l.formId,
        email: l.email,
        row_id: l.rowId,
        flow_id: l.flowId,
        expires_at: l.expiresAt.toISOString(),
    };
}
/** Mounted at `/api/v1/workspaces`. @param publicUrl PUBLIC_URL, the base of the minted URLs. */
function linksRouter({ db }, publicUrl) {
    const r = (0, express_1.Router)();
    r.post('/:workspace_id/forms/:form_id/links', async (req, res) => {
        const b = (req.body ?? {});
        const link = await (0, links_1.mintLink)(db, (0, query_values_1.workspaceOf)(req), {
            formId: (0, query_values_1.param)(req, 'form_id'),
            email: b.email,
            emailId: b.email_id,
            rowId: b.row_id,
            flowId: b.flow_id,
            expiresInDays: b.expires_in_days,
        }, publicUrl);
        res.status(201).json((0, envelope_1.single)(req, presentLink(link)));
    });
    return r;
}
//# sourceMappingURL=links.routes.js.map