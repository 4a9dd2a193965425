"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.listForms = listForms;
exports.getForm = getForm;
exports.listQuestions = listQuestions;
exports.getQuestion = getQuestion;
exports.assertFormExists = assertFormExists;
exports.getFormSchema = getFormSchema;
exports.getFormSummary = getFormSummary;
/**
 * Forms, their questions, schema and analytics summary (API document: Form, Form schema, Analytics
 * summary, Question; shapes in docs/decisions.md and CONTRACT section 8).
 */
const node_crypto_1 = require("node:crypto");
const errors_1 = require("../errors");
const simple_list_1 = require("../query/simple-list");
function formQuery(db, workspaceId) {
    return db('forms as f')
        .select('f.id', 'f.name', 'f.default_language', 'f.translations', 'f.created_at', 'f.updated_at', db.raw('(SELECT count(*) FROM questions q WHERE q.workspace_id = f.workspace_id AND q.form_id = f.id)::int AS question_count'))
        .where('f.workspace_id', workspaceId);
}
function toForm(row) {
    return {
        id: row.id,
        name: row.name,
        defaultLanguage: row.default_language,
        languages: [row.default_language, ...Object.keys(row.translations ?? {}).filter((l) => l !== row.default_language).sort()],
        questionCount: Number(row.question_count),
        createdAt: row.created_at,
        updatedAt: row.updated_at,
    };
}
const toQuestion = (q) => ({
    id: q.id,
    formId: q.form_id,
    position: q.position,
    type: q.type,
    title: q.title,
    required: q.required,
    options: q.options ?? [],
    validation: q.validation ?? {},
});
/** Keyset list of forms (sort `created_at` or `name`). */
async function listForms(db, workspaceId, params) {
    // Unqualified sort columns: wrap so `created_at`/`name`/`id` are unambiguous.
    const inner = formQuery(db, workspaceId);
    const query = db.select('*').from(inner.as('forms_list'));
    const page = await (0, simple_list_1.listByCreatedOrName)(db, query, `forms:${workspaceId}`, params);
    return { ...page, items: page.items.map(toForm) };
}
/** @throws AppError resource_not_found */
async function getForm(db, workspaceId, formId, opts = {}) {
    const row = (await formQuery(db, workspaceId).where('f.id', formId).first());
    if (!row)
        throw errors_1.errors.notFound('Form', formId);
    const form = toForm(row);
    if (opts.questions)
        form.questions = await listQuestionsOf(db, workspaceId, formId);
    return form;
}
async function listQuestionsOf(db, workspaceId, formId) {
    const rows = (await db('questions')
        .select('id', 'form_id', 'position', 'type', 'title', 'required', 'options', 'validation')
        .where({ workspace_id: workspaceId, form_id: formId })
        .orderBy([{ column: 'position' }, { column: 'id' }]));
    return rows.map(toQuestion);
}
/** @throws AppError resource_not_found for the form */
async function listQuestions(db, workspaceId, formId) {
    await assertFormExists(db, workspaceId, formId);
    return listQuestionsOf(db, workspaceId, formId);
}
/** @throws AppError resource_not_found for the form or the question */
async function getQuestion(db, workspaceId, formId, questionId) {
    await assertFormExists(db, workspaceId, formId);
    const row = (await db('questions')
        .select('id', 'form_id', 'position', 'type', 'title', 'required', 'options', 'validation')
        .where({ workspace_id: workspaceId, form_id: formId, id: questionId })
        .first());
    if (!row)
        throw errors_1.errors.notFound('Question', questionId);
    return toQuestion(row);
}
/** @throws AppError resource_not_found */
async function assertFormExists(db, workspaceId, formId) {
    const row = await db('forms').select('id').where({ workspace_id: workspaceId, id: formId }).first();
    if (!row)
        throw errors_1.errors.notFound('Form', formId);
}
/** Canonical JSON: object keys sorted, so equal content always hashes equally. */
function canonicalJson(value) {
    if (Array.isArray(value))
        return `[${value.map(canonicalJson).join(',')}]`;
    if (value !== null && typeof value === 'object') {
        const entries = Object.entries(value).filter(([, v]) => v !== undefined);
        entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
        return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
    }
    return JSON.stringify(value);
}
/**
 * The form schema with its strong ETag (CONTRACT section 6): a SHA-256 of the canonical schema.
 * @throws AppError resource_not_found
 */
async function getFormSchema(db, workspaceId, formId) {
    const form = await getForm(db, workspaceId, formId, { questions: true });
    const row = (await db('forms').select('translations').where({ workspace_id: workspaceId, id: formId }).first());
    const body = {
        formId,
        defaultLanguage: form.defaultLanguage,
        languages: form.languages,
        questions: form.questions ?? [],
        translations: row.translations ?? {},
    };
    const etag = `"${(0, node_crypto_1.createHash)('sha256').update(canonicalJson(body)).digest('base64url')}"`;
    return { ...body, etag };
}
/**
 * Total responses, average score and last response of a form. Costs the same at any volume:
 * a sum over the form's `response_counts` rows and one index probe for the newest response.
 * @throws AppError resource_not_found
 */
async function getFormSummary(db, workspaceId, formId) {
    await assertFormExists(db, workspaceId, formId);
    const [agg, last] = await Promise.all([
        db('response_counts')
            .where({ workspace_id: workspaceId, form_id: formId })
            .select(db.raw('COALESCE(SUM(responses), 0)::bigint AS n'), db.raw('SUM(score * responses) AS total'))
            .first(),
        db('responses')
            .select('id', 'score', 'created_at')
            .where({ workspace_id: workspaceId, form_id: formId })
            .orderBy([
            { column: 'created_at', order: 'desc' },
            { column: 'id', order: 'desc' },
        ])
            .first(),
    ]);
    const n = Number(agg?.n ?? 0);
    const average = n > 0 ? Math.round((Number(agg.total) / n) * 100) / 100 : null;
    return {
        formId,
        totalResponses: n,
        averageScore: average,
        lastResponse: last ? { id: last.id, score: last.score, createdAt: last.created_at } : null,
    };
}
//# sourceMappingURL=forms.service.js.map