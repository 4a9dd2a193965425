"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.answersInStyle = answersInStyle;
exports.detailsInStyle = detailsInStyle;
exports.responseCreate = responseCreate;
const errors_1 = require("../core/errors");
const dates_1 = require("../core/query/dates");
const submit_1 = require("../core/responses/submit");
const envelope_1 = require("./envelope");
const query_values_1 = require("./query-values");
const present_1 = require("./style-a/present");
const present_2 = require("./style-b/present");
/** Style B spells an answer `{id, value}`; Style A `{question_id, value}`. */
const ANSWER_ID = { A: 'question_id', B: 'id' };
/**
 * Reads the JSON body of a submission in a style's spelling into core answers.
 * @throws AppError validation_error naming each answer member spelled the other style's way.
 */
function answersInStyle(answers, style) {
    if (!Array.isArray(answers))
        return answers;
    const own = ANSWER_ID[style];
    const other = ANSWER_ID[style === 'A' ? 'B' : 'A'];
    const details = [];
    const out = answers.map((a, i) => {
        if (typeof a !== 'object' || a === null || Array.isArray(a))
            return a;
        const item = a;
        if (other in item) {
            details.push({
                location: 'body',
                field: `answers[${i}].${other}`,
                message: `\`answers[${i}].${other}\` is not a Style ${style} answer member; Style ${style} names the question \`${own}\`.`,
            });
        }
        return { question_id: item[own], value: item.value };
    });
    if (details.length > 0)
        throw errors_1.errors.validation(details);
    return out;
}
/** Rewrites `answers[i].question_id` in details to the style's spelling (`answers[i].id` in Style B). */
function detailsInStyle(err, style) {
    if (style === 'A' || !(err instanceof errors_1.AppError) || !err.details)
        return err;
    const rename = (s) => s.replace(/(answers\[\d+\])\.question_id/g, '$1.id');
    return new errors_1.AppError(err.code, err.status, rename(err.message), err.details.map((d) => ({ ...d, field: rename(d.field), message: rename(d.message) })), err.headers);
}
function createdAtOf(body, style) {
    const field = style === 'B' && body.createdAt !== undefined ? 'createdAt' : 'created_at';
    if (style === 'A' && body.createdAt !== undefined) {
        throw errors_1.errors.invalid('body', 'createdAt', '`createdAt` is the Style B spelling; Style A takes `created_at`.');
    }
    if (body.created_at !== undefined && body.createdAt !== undefined) {
        throw errors_1.errors.invalid('body', 'createdAt', 'Give `created_at` or `createdAt`, not both.');
    }
    const raw = body[field];
    if (raw === undefined)
        return undefined;
    if (typeof raw !== 'string')
        throw errors_1.errors.invalid('body', field, `\`${field}\` must be an ISO 8601 date-time with an offset.`);
    const parsed = (0, dates_1.parseDateValue)(raw, field, 'body');
    if (parsed.kind !== 'date-time') {
        throw errors_1.errors.invalid('body', field, `\`${field}\` must be an ISO 8601 date-time with an offset, e.g. 2026-11-01T09:30:00Z; got "${raw}".`);
    }
    const at = new Date(parsed.value);
    if (at.getTime() > Date.now())
        throw errors_1.errors.invalid('body', field, `\`${field}\` must not be in the future; got "${raw}".`);
    return at;
}
/** `POST {ws}/responses` handler for one style. */
function responseCreate({ db, publicUrl }, style) {
    return async (req, res) => {
        const ws = (0, query_values_1.workspaceOf)(req);
        const body = (req.body ?? {});
        const answers = answersInStyle(body.answers, style);
        let record;
        try {
            record = await (0, submit_1.submitResponse)(db, ws, {
                formId: body.form_id,
                answers,
                language: body.language,
                createdAt: createdAtOf(body, style),
                respondentEmail: body.respondent_email,
                emailId: body.email_id,
                rowId: body.row_id,
                version: body.version,
            });
        }
        catch (err) {
            throw detailsInStyle(err, style);
        }
        const base = publicUrl ?? `${req.protocol}://${req.get('host') ?? 'localhost'}`;
        res.setHeader('Location', `${base}/api/v1/workspaces/${encodeURIComponent(ws)}/responses/${encodeURIComponent(record.id)}`);
        res.status(201).json((0, envelope_1.single)(req, style === 'B' ? (0, present_2.presentResponseB)(record) : (0, present_1.presentResponseA)(record)));
    };
}
//# sourceMappingURL=responses.write.js.map