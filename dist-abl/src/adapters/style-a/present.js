"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.presentTableData = void 0;
exports.presentResponseA = presentResponseA;
exports.presentQuestionA = presentQuestionA;
exports.presentFormA = presentFormA;
exports.presentSchemaA = presentSchemaA;
exports.presentSummaryA = presentSummaryA;
exports.presentDatatableA = presentDatatableA;
exports.presentRowA = presentRowA;
exports.presentEmailEventA = presentEmailEventA;
exports.presentWebhookEndpoint = presentWebhookEndpoint;
exports.presentDelivery = presentDelivery;
exports.presentApiKey = presentApiKey;
const table_data_1 = require("../table-data");
Object.defineProperty(exports, "presentTableData", { enumerable: true, get: function () { return table_data_1.presentTableData; } });
const iso = (d) => (d ? d.toISOString() : null);
function answerA(a, withLabel) {
    const out = { question_id: a.question_id, title: a.title, type: a.type, value: a.value };
    if (withLabel && a.reporting_label !== undefined)
        out.reporting_label = a.reporting_label;
    return out;
}
/** @param v2 adds `reporting_label` to answers of translated forms. */
function presentResponseA(r, v2 = false) {
    const out = {
        id: r.id,
        form_id: r.formId,
        score: r.score,
        created_at: r.createdAt.toISOString(),
        answers: r.answers.map((a) => answerA(a, v2)),
        respondent_email: r.respondentEmail,
        email_id: r.emailId,
        row_id: r.rowId,
    };
    if (r.tableData !== undefined)
        out.table_data = (0, table_data_1.presentTableData)(r.tableData);
    return out;
}
function presentQuestionA(q) {
    return {
        id: q.id,
        form_id: q.formId,
        position: q.position,
        type: q.type,
        title: q.title,
        required: q.required,
        options: q.options,
        validation: q.validation,
    };
}
function presentFormA(f) {
    const out = {
        id: f.id,
        name: f.name,
        default_language: f.defaultLanguage,
        languages: f.languages,
        question_count: f.questionCount,
        created_at: f.createdAt.toISOString(),
        updated_at: f.updatedAt.toISOString(),
    };
    if (f.questions)
        out.questions = f.questions.map(presentQuestionA);
    return out;
}
function presentSchemaA(s) {
    return {
        form_id: s.formId,
        default_language: s.defaultLanguage,
        languages: s.languages,
        // A schema question is the question without its form_id (the schema names the form once).
        questions: s.questions.map((q) => {
            const { form_id: _formId, ...question } = presentQuestionA(q);
            return question;
        }),
        translations: s.translations,
    };
}
function presentSummaryA(s) {
    return {
        form_id: s.formId,
        total_responses: s.totalResponses,
        average_score: s.averageScore,
        last_response: s.lastResponse && {
            id: s.lastResponse.id,
            score: s.lastResponse.score,
            created_at: s.lastResponse.createdAt.toISOString(),
        },
    };
}
function presentDatatableA(t) {
    const out = {
        id: t.id,
        name: t.name,
        row_count: t.rowCount,
        created_at: t.createdAt.toISOString(),
        updated_at: t.updatedAt.toISOString(),
    };
    if (t.fields)
        out.fields = t.fields.map((f) => ({ name: f.name, type: f.type }));
    return out;
}
/** Style A row: columns at the same level as row_id (reserved names cannot be columns). */
function presentRowA(r) {
    return { ...r.data, row_id: r.rowId, created_at: r.createdAt.toISOString(), updated_at: r.updatedAt.toISOString() };
}
function presentEmailEventA(e) {
    return {
        id: e.id,
        email_id: e.emailId,
        email: e.email,
        type: e.type,
        row_id: e.rowId,
        form_id: e.formId,
        flow_id: e.flowId,
        created_at: e.createdAt.toISOString(),
    };
}
function presentWebhookEndpoint(w) {
    return {
        id: w.id,
        url: w.url,
        events: w.events,
        description: w.description,
        enabled: w.enabled,
        style: w.style,
        disabled_reason: w.disabledReason,
        created_at: w.createdAt.toISOString(),
        updated_at: w.updatedAt.toISOString(),
    };
}
/** A delivery of the log (CONTRACT section 13). */
function presentDelivery(d) {
    return {
        id: d.id,
        endpoint_id: d.endpointId,
        event_id: d.eventId,
        event_type: d.eventType,
        status: d.status,
        attempts: d.attempts,
        last_status_code: d.lastStatusCode,
        last_error: d.lastError,
        next_attempt_at: iso(d.nextAttemptAt),
        created_at: d.createdAt.toISOString(),
        updated_at: d.updatedAt.toISOString(),
    };
}
function presentApiKey(k) {
    return {
        id: k.id,
        name: k.name,
        prefix: k.prefix,
        scopes: k.scopes,
        workspace_ids: k.workspaceIds,
        style: k.style,
        rate_limit_per_minute: k.rateLimitPerMinute,
        created_at: k.createdAt.toISOString(),
        expires_at: iso(k.expiresAt),
        last_used_at: iso(k.lastUsedAt),
        revoked_at: iso(k.revokedAt),
    };
}
//# sourceMappingURL=present.js.map