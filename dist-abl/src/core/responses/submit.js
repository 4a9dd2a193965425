"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.answerProblemDetail = answerProblemDetail;
exports.submitResponse = submitResponse;
const errors_1 = require("../errors");
const public_form_1 = require("../forms/public-form");
const ids_1 = require("../ids");
const outbox_1 = require("../webhooks/outbox");
const answers_1 = require("./answers");
/** The API detail of an answer problem: `answers[2].value` with the field named in the message. */
function answerProblemDetail(p, answersPath = 'answers') {
    return { location: 'body', field: p.field, message: p.field === answersPath ? p.message : `\`${p.field}\` ${p.message}` };
}
/**
 * Validates and stores one response of a workspace's form, with its counts and its `response.created`
 * event, in one transaction.
 * @returns the stored record with `formName`, `tableData` (null without a row) and `actionlists` ([]).
 * @throws AppError validation_error (400, location body) with one detail per problem: `form_id` not a
 * form of the workspace; `language` not a form language; `answers[i]…` per bad answer and `answers`
 * per required question left out (the message names it); `created_at` in the future;
 * `respondent_email`/`email_id` not both set or both absent; `row_id` not a row of the workspace.
 */
async function submitResponse(db, workspaceId, input, opts = {}) {
    const form = await (0, answers_1.formDefinitionFromDb)(db, workspaceId, input.formId);
    if (!form)
        throw errors_1.errors.invalid('body', 'form_id', `\`form_id\` names no form of this workspace; got "${input.formId}".`);
    const language = (0, public_form_1.chooseLanguage)(form, { explicit: input.language });
    const checked = (0, answers_1.validateAnswers)(form, input.answers, { language, enforceRequired: true });
    const details = checked.problems.map((p) => answerProblemDetail(p));
    const now = new Date();
    if (input.createdAt !== undefined && input.createdAt.getTime() > now.getTime()) {
        details.push({ location: 'body', field: 'created_at', message: '`created_at` must not be in the future.' });
    }
    const email = input.respondentEmail ?? null;
    const emailId = input.emailId ?? null;
    if ((email === null) !== (emailId === null)) {
        const missing = email === null ? 'respondent_email' : 'email_id';
        details.push({ location: 'body', field: missing, message: '`respondent_email` and `email_id` must both be given or both be left out.' });
    }
    if (details.length > 0)
        throw errors_1.errors.validation(details);
    return db.transaction(async (trx) => {
        const rowId = input.rowId ?? null;
        let tableData = null;
        if (rowId !== null) {
            // FOR SHARE: the captured data is the row as committed now, not overwritten before we commit.
            const row = (await trx('datatable_rows').select('data').where({ workspace_id: workspaceId, row_id: rowId }).forShare().first());
            if (!row)
                throw errors_1.errors.invalid('body', 'row_id', `\`row_id\` names no row of this workspace; got "${rowId}".`);
            tableData = { rowId, capturedAt: now, columns: row.data };
        }
        const record = {
            id: (0, ids_1.newId)('response'),
            formId: form.id,
            formName: form.name,
            score: checked.score,
            version: input.version ?? 1,
            language,
            createdAt: input.createdAt ?? now,
            answers: checked.answers,
            respondentEmail: email,
            emailId,
            rowId,
            tableData,
            actionlists: [],
        };
        await trx('responses').insert({
            workspace_id: workspaceId,
            id: record.id,
            form_id: record.formId,
            score: record.score,
            version: record.version,
            language,
            // JSON text: a JS array must become jsonb, never a PostgreSQL array.
            answers: JSON.stringify(record.answers),
            respondent_email: email,
            email_id: emailId,
            row_id: rowId,
            table_data: tableData === null ? null : JSON.stringify(tableData.columns),
            table_data_captured_at: tableData === null ? null : now,
            actionlists: '[]',
            created_at: record.createdAt,
        });
        await (0, outbox_1.recordEvents)(trx, workspaceId, [{ type: 'response.created', resource: { kind: 'response', response: record } }]);
        if (opts.beforeCommit)
            await opts.beforeCommit(trx, record);
        return record;
    });
}
//# sourceMappingURL=submit.js.map