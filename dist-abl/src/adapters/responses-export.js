"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.responsesExport = responsesExport;
/**
 * GET {ws}/responses/export?format=ndjson|csv (CONTRACT section 15), a shared path: the style selector
 * hands it here with the chosen style, whose list filters and sort apply (responsesFilterA/B, the same
 * code as the lists). Rows stream from a server-side cursor in list order; every write waits for
 * 'drain' when the socket's buffer is full, so memory stays flat; a client that goes away stops the
 * cursor (the iteration ends, the transaction rolls back, the connection returns to the pool).
 */
const node_events_1 = require("node:events");
const sync_1 = require("csv-stringify/sync");
const errors_1 = require("../core/errors");
const forms_service_1 = require("../core/forms/forms.service");
const responses_service_1 = require("../core/responses/responses.service");
const query_values_1 = require("./query-values");
const router_1 = require("./style-a/router");
const present_1 = require("./style-a/present");
const responses_routes_1 = require("./style-b/responses.routes");
const present_2 = require("./style-b/present");
const CSV_OPTIONS = { record_delimiter: 'windows', quoted_match: /[\r\n]/ };
/** The text of one answer in a per-question CSV cell: choices as their values joined by "; ". */
function cellOf(answer) {
    if (answer === undefined || answer.value === null || answer.value === undefined)
        return '';
    const v = answer.value;
    if (Array.isArray(v))
        return v.map((o) => String(o.value ?? '')).join('; ');
    if (typeof v === 'object')
        return String(v.value ?? '');
    return String(v);
}
/** CSV header and row builder for a style, with one column per question when the form is known. */
function csvLayout(style, questions) {
    const created = style === 'A' ? 'created_at' : 'createdAt';
    const header = ['id', 'form_id', created, 'score', 'language', 'respondent_email', 'email_id', 'row_id'];
    header.push(...(questions ? questions.map((q) => q.id) : ['answers']));
    const row = (r, presented) => {
        const base = [r.id, r.formId, r.createdAt.toISOString(), r.score, r.language, r.respondentEmail ?? '', r.emailId ?? '', r.rowId ?? ''];
        if (!questions)
            return [...base, JSON.stringify(presented.answers)];
        const byId = new Map(r.answers.map((a) => [a.question_id, a]));
        return [...base, ...questions.map((q) => cellOf(byId.get(q.id)))];
    };
    return { header, row };
}
/** Resolves when the socket can take more, or when the client has gone (then `closed` is true). */
async function drained(res) {
    if (res.destroyed || res.writableEnded)
        return;
    const ac = new AbortController();
    await Promise.race([(0, node_events_1.once)(res, 'drain', { signal: ac.signal }), (0, node_events_1.once)(res, 'close', { signal: ac.signal })]).catch(() => undefined);
    ac.abort();
}
/** The export handler of one style (mounted by shared-responses.ts before `/responses/:response_id`). */
function responsesExport({ db }, style) {
    return async (req, res) => {
        const ws = (0, query_values_1.workspaceOf)(req);
        const format = (0, query_values_1.str)(req, 'format') ?? 'ndjson';
        if (format !== 'ndjson' && format !== 'csv') {
            throw errors_1.errors.invalid('query', 'format', `\`format\` must be ndjson or csv; got "${format}".`);
        }
        const filters = style === 'A' ? (0, router_1.responsesFilterA)(req, (0, query_values_1.str)(req, 'form_id')) : (0, responses_routes_1.responsesFilterB)(req);
        // Validates filters and sort now, before the first byte is sent.
        const exported = (0, responses_service_1.openResponseExport)(db, ws, filters);
        let questions;
        if (format === 'csv' && filters.formId !== undefined) {
            questions = await (0, forms_service_1.listQuestions)(db, ws, filters.formId).catch((err) => {
                if (err instanceof errors_1.AppError && err.status === 404)
                    return [];
                throw err;
            });
        }
        const present = (r) => (style === 'A' ? (0, present_1.presentResponseA)(r) : (0, present_2.presentResponseB)(r));
        const layout = csvLayout(style, questions);
        res.status(200);
        res.setHeader('Content-Type', format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8');
        res.setHeader('Content-Disposition', `attachment; filename="responses.${format === 'csv' ? 'csv' : 'ndjson'}"`);
        res.setHeader('Cache-Control', 'no-store');
        let gone = false;
        res.once('close', () => {
            gone = !res.writableFinished;
        });
        if (format === 'csv')
            res.write((0, sync_1.stringify)([layout.header], CSV_OPTIONS));
        try {
            for await (const batch of exported.batches()) {
                if (gone || res.destroyed)
                    break;
                const chunk = format === 'csv'
                    ? (0, sync_1.stringify)(batch.map((r) => layout.row(r, present(r))), CSV_OPTIONS)
                    : batch.map((r) => `${JSON.stringify(present(r))}\n`).join('');
                if (!res.write(chunk))
                    await drained(res);
                if (gone || res.destroyed)
                    break;
            }
        }
        catch (err) {
            // Headers are out: the envelope cannot follow. Cut the connection so the client sees a broken download.
            req.log?.error?.({ err }, 'export failed after streaming began');
            res.destroy();
            return;
        }
        if (!gone && !res.destroyed)
            res.end();
    };
}
//# sourceMappingURL=responses-export.js.map