"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.COUNTABLE_FILTER_FIELDS = exports.RESPONSE_FILTER_FIELDS = exports.RESPONSE_SORT_FIELDS = exports.RESPONSE_ID_FIELD = void 0;
exports.applyNarrowing = applyNarrowing;
exports.responsesQuery = responsesQuery;
exports.toRecord = toRecord;
exports.attachFormNames = attachFormNames;
exports.findResponse = findResponse;
exports.countAllResponses = countAllResponses;
exports.countNarrowed = countNarrowed;
exports.findDayStart = findDayStart;
const fields_1 = require("../query/fields");
const sql_1 = require("../query/sql");
const col = (name, type, nullable = false) => ({
    name,
    expr: (0, sql_1.sql)('??', name),
    type,
    nullable,
});
exports.RESPONSE_ID_FIELD = col('id', 'text');
exports.RESPONSE_SORT_FIELDS = (0, fields_1.fieldMap)([col('created_at', 'timestamp'), col('score', 'number')]);
/** Style B `filter` fields on responses (CONTRACT section 7). */
exports.RESPONSE_FILTER_FIELDS = (0, fields_1.fieldMap)([
    col('id', 'text'),
    col('form_id', 'text'),
    col('score', 'number'),
    col('email_id', 'text', true),
    col('row_id', 'text', true),
    col('respondent_email', 'text', true),
]);
/** Filter fields whose clauses `response_counts` can answer without touching responses. */
exports.COUNTABLE_FILTER_FIELDS = new Set(['form_id', 'score']);
const BASE_COLUMNS = [
    'id',
    'form_id',
    'score',
    'version',
    'language',
    'created_at',
    'answers',
    'respondent_email',
    'email_id',
    'row_id',
];
/** Applies every narrowing condition to a query over `responses` or `response_counts` (same column names). */
function applyNarrowing(q, workspaceId, n, dates = true) {
    q.where('workspace_id', workspaceId);
    if (n.formId !== undefined)
        q.where('form_id', n.formId);
    if (n.scoreGte !== undefined)
        q.where('score', '>=', n.scoreGte);
    if (n.scoreLte !== undefined)
        q.where('score', '<=', n.scoreLte);
    if (dates)
        for (const b of n.created)
            q.where('created_at', b.op, b.value);
    if (n.filter)
        q.whereRaw(n.filter.sql, n.filter.bindings);
    return q;
}
/** The base list query: selected columns per `include`, narrowing applied, no order or limit. */
function responsesQuery(db, workspaceId, n, include) {
    const columns = [...BASE_COLUMNS];
    if (include.tableData)
        columns.push('table_data', 'table_data_captured_at');
    if (include.actionlists)
        columns.push('actionlists');
    return applyNarrowing(db('responses').select(columns), workspaceId, n);
}
function toRecord(row, include) {
    const r = {
        id: row.id,
        formId: row.form_id,
        score: row.score,
        version: row.version,
        language: row.language,
        createdAt: row.created_at,
        answers: row.answers,
        respondentEmail: row.respondent_email,
        emailId: row.email_id,
        rowId: row.row_id,
    };
    if (include.tableData) {
        r.tableData =
            row.table_data === null || row.table_data === undefined
                ? null
                : { rowId: row.row_id, capturedAt: row.table_data_captured_at ?? null, columns: row.table_data };
    }
    if (include.actionlists)
        r.actionlists = row.actionlists ?? [];
    return r;
}
/** Fills `formName` on records with one query for the distinct forms of the page. */
async function attachFormNames(db, workspaceId, records) {
    const ids = [...new Set(records.map((r) => r.formId))];
    if (ids.length === 0)
        return;
    const forms = (await db('forms').select('id', 'name').where('workspace_id', workspaceId).whereIn('id', ids));
    const names = new Map(forms.map((f) => [f.id, f.name]));
    for (const r of records)
        r.formName = names.get(r.formId) ?? '';
}
async function findResponse(db, workspaceId, id, include) {
    const row = (await responsesQuery(db, workspaceId, { created: [] }, include).where('id', id).first());
    return row && toRecord(row, include);
}
/** Number of responses of the workspace, from the counters. */
async function countAllResponses(db, workspaceId) {
    const row = (await db('response_counts').where('workspace_id', workspaceId).sum({ n: 'responses' }).first());
    return Number(row?.n ?? 0);
}
/**
 * Number of responses after narrowing. From the counters when only form and score narrow
 * (a sum over a handful of rows); otherwise an index-assisted COUNT over responses.
 */
async function countNarrowed(db, workspaceId, n, countersSuffice) {
    if (countersSuffice && n.created.length === 0) {
        const q = applyNarrowing(db('response_counts'), workspaceId, n, false).sum({ n: 'responses' }).first();
        const row = (await q);
        return Number(row?.n ?? 0);
    }
    const row = (await applyNarrowing(db('responses'), workspaceId, n).count({ n: '*' }).first());
    return Number(row?.n ?? 0);
}
const DAY_MS = 86_400_000;
/**
 * Where the row at `offset` of a created_at-ordered list lies, from `response_day_counts`: the list
 * narrowed to that UTC day and the days after it in `dir` order, and how many rows the days before
 * it hold. Reads the counter rows day by day in list order and stops at that day (a running sum),
 * so the cost grows with the days skipped, not with the rows.
 * Only for narrowings the counters answer (form and score, no dates; see countNarrowed).
 * @returns null when the list holds no more than `offset` rows.
 */
async function findDayStart(db, workspaceId, n, dir, offset) {
    const days = applyNarrowing(db('response_day_counts'), workspaceId, n, false)
        .select(db.raw("to_char(day, 'YYYY-MM-DD') AS day_text"))
        .sum({ n: 'responses' })
        .select(db.raw(`sum(sum(responses)) OVER (ORDER BY day ${dir === 'desc' ? 'DESC' : 'ASC'}) AS through`))
        .groupBy('day')
        .orderBy('day', dir);
    // The outer query keeps the subquery's order; an ORDER BY of its own there makes the planner
    // aggregate every day before the limit instead of stopping at the first day past the offset.
    const row = (await db
        .select('day_text', db.raw('through - n AS skipped'))
        .from(days.as('d'))
        .where('through', '>', offset)
        .first());
    if (!row)
        return null;
    const dayStart = Date.parse(`${row.day_text}T00:00:00.000Z`);
    const where = dir === 'desc' ? (0, sql_1.sql)('?? < ?', 'created_at', new Date(dayStart + DAY_MS)) : (0, sql_1.sql)('?? >= ?', 'created_at', new Date(dayStart));
    return { where, skipped: Number(row.skipped) };
}
//# sourceMappingURL=responses.repository.js.map