"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.submissionFormId = exports.PUBLIC_SUBMISSIONS_PATH = void 0;
exports.publicSubmissionCreate = publicSubmissionCreate;
const errors_1 = require("../core/errors");
const public_form_1 = require("../core/forms/public-form");
const links_1 = require("../core/links/links");
const submit_1 = require("../core/responses/submit");
const envelope_1 = require("./envelope");
const present_1 = require("./style-a/present");
exports.PUBLIC_SUBMISSIONS_PATH = '/api/v1/forms/:form_id/submissions';
/** The form id of a public submission path. */
const submissionFormId = (req) => String(req.params.form_id ?? '');
exports.submissionFormId = submissionFormId;
/** The handler of `POST /api/v1/forms/{form_id}/submissions`. */
function publicSubmissionCreate({ db }) {
    return async (req, res) => {
        const formId = (0, exports.submissionFormId)(req);
        const body = (req.body ?? {});
        const found = await (0, public_form_1.loadPublicForm)(db, formId);
        if (!found)
            throw errors_1.errors.notFound('Form', formId);
        // An email link: the response carries the link's email, email_id and row (CONTRACT section 12).
        const link = typeof body.t === 'string' ? await (0, links_1.verifyLinkToken)(db, body.t, formId, new Date(), 'body') : undefined;
        const record = await (0, submit_1.submitResponse)(db, found.workspaceId, {
            formId,
            answers: body.answers,
            language: body.language,
            respondentEmail: link?.email ?? null,
            emailId: link?.emailId ?? null,
            rowId: link?.rowId ?? null,
        });
        res.status(201).json((0, envelope_1.single)(req, (0, present_1.presentResponseA)(record)));
    };
}
//# sourceMappingURL=public-submissions.js.map