"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.presentResponseB = presentResponseB;
exports.presentTableB = presentTableB;
exports.presentRowB = presentRowB;
exports.presentEmailEventB = presentEmailEventB;
const table_data_1 = require("../table-data");
function answerB(a, withLabel) {
    const out = { id: a.question_id, title: a.title, type: a.type, value: a.value };
    if (withLabel && a.reporting_label !== undefined)
        out.reporting_label = a.reporting_label;
    return out;
}
/**
 * A response in Style B. `form.name` needs the record read with `include.formName`; `table_data` and
 * `actionlist_data` appear only when the record was read with them (`null` / `[]` when there are none).
 * @param v2 adds `reporting_label` to answers of translated forms.
 */
function presentResponseB(r, v2 = false) {
    const out = {
        id: r.id,
        score: r.score,
        version: r.version,
        createdAt: r.createdAt.toISOString(),
        form: { id: r.formId, name: r.formName ?? '' },
        answers: r.answers.map((a) => answerB(a, v2)),
        email_id: r.emailId,
        respondent_email: r.respondentEmail,
        row_id: r.rowId,
    };
    if (r.tableData !== undefined)
        out.table_data = (0, table_data_1.presentTableData)(r.tableData);
    if (r.actionlists !== undefined)
        out.actionlist_data = r.actionlists;
    return out;
}
/** Style B table: `{id, name}` only (docs/decisions.md). */
function presentTableB(t) {
    return { id: t.id, name: t.name };
}
/** `{row_id, data}`; with `withMetadata` also `created_at` and `updated_at`. */
function presentRowB(r, withMetadata = false) {
    const out = { row_id: r.rowId, data: r.data };
    if (withMetadata) {
        out.created_at = r.createdAt.toISOString();
        out.updated_at = r.updatedAt.toISOString();
    }
    return out;
}
/** Style B email event: `event_type`, `createdAt`, and `""` for absent row, form and flow links. */
function presentEmailEventB(e) {
    return {
        id: e.id,
        email_id: e.emailId,
        email: e.email,
        event_type: e.type,
        row_id: e.rowId ?? '',
        form_id: e.formId ?? '',
        flow_id: e.flowId ?? '',
        createdAt: e.createdAt.toISOString(),
    };
}
//# sourceMappingURL=present.js.map