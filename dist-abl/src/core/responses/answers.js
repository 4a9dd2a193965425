"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.MAX_TEXT_LENGTH = exports.QUESTION_TYPES = void 0;
exports.isEmailAddress = isEmailAddress;
exports.defaultValidation = defaultValidation;
exports.scoreQuestion = scoreQuestion;
exports.validateAnswers = validateAnswers;
exports.formDefinitionsFromDb = formDefinitionsFromDb;
exports.formDefinitionFromDb = formDefinitionFromDb;
const dates_1 = require("../query/dates");
exports.QUESTION_TYPES = [
    'single_choice',
    'multiple_choice',
    'text',
    'email',
    'number',
    'rating',
    'nps',
    'date',
];
/** Longest `text` answer (CONTRACT section 11). */
exports.MAX_TEXT_LENGTH = 10_000;
const DEFAULT_BOUNDS = {
    nps: { min: 0, max: 10 },
    rating: { min: 1, max: 5 },
};
const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
function own(obj, key) {
    return obj !== undefined && Object.prototype.hasOwnProperty.call(obj, key) ? obj[key] : undefined;
}
/** True for a plausible e-mail address (something@host.tld, no spaces). */
function isEmailAddress(value) {
    return EMAIL_RE.test(value);
}
/** The default `validation` of a question type (docs/decisions.md): nps/rating bounds, email format, else `{}`. */
function defaultValidation(type) {
    const bounds = DEFAULT_BOUNDS[type];
    if (bounds)
        return { ...bounds };
    if (type === 'email')
        return { format: 'email' };
    return {};
}
/**
 * The form's score question (CONTRACT section 11): `scoreQuestionId` when set, else the first `nps`
 * question, else the first `rating` question; undefined when there is none (the score is then 0).
 */
function scoreQuestion(form) {
    if (form.scoreQuestionId) {
        const q = form.questions.find((x) => x.id === form.scoreQuestionId);
        if (q)
            return q;
    }
    return form.questions.find((q) => q.type === 'nps') ?? form.questions.find((q) => q.type === 'rating');
}
function isPlainObject(v) {
    return typeof v === 'object' && v !== null && !Array.isArray(v);
}
function describe(v) {
    if (v === null)
        return 'null';
    if (Array.isArray(v))
        return 'an array';
    if (typeof v === 'string')
        return `the string ${JSON.stringify(v.length > 40 ? v.slice(0, 40) + '…' : v)}`;
    if (typeof v === 'object')
        return 'an object';
    return `${typeof v} ${String(v)}`;
}
/**
 * The one answer validator, used by every submission way and by the importer (CONTRACT sections 8,
 * 9, 11). Pure: checks raw answers against a form and renders them for storage.
 *
 * - `title` and option texts come from `form.translations[language]` when present, else from the
 *   form's default texts.
 * - Values by type: `single_choice` `{id}` or the option id as a string → `{id, value}`;
 *   `multiple_choice` an array of those, no option twice → `[{id, value}]` (a `value` text beside an id
 *   is ignored); `text` a string of at most 10,000 characters; `email` an address; `number` a finite
 *   number; `rating` integer 1..5 and `nps` integer 0..10 unless the question's `validation` gives other
 *   bounds (which also bound `number`); `date` a real `YYYY-MM-DD`.
 * - `reporting_label` (the default-language title) is set on every answer exactly when the form has
 *   any translations; otherwise the key is absent.
 *
 * Never throws: one problem per bad answer, `${path}[i].question_id` for an unknown or repeated
 * question, `${path}[i].value` for a value that does not fit, `${path}[i]` for an item that is not an
 * answer object, and with `enforceRequired` one problem with field `${path}` per required question
 * (the score question counts as required) left out, its message naming the question id.
 */
function validateAnswers(form, raw, opts) {
    const path = opts.path ?? 'answers';
    const answers = [];
    const problems = [];
    const byId = new Map(form.questions.map((q) => [q.id, q]));
    const translated = Object.keys(form.translations ?? {}).length > 0;
    const tr = opts.language === form.defaultLanguage ? undefined : own(form.translations, opts.language);
    const seen = new Set();
    const scoring = scoreQuestion(form);
    if (!Array.isArray(raw)) {
        return { answers, score: 0, problems: [{ field: path, message: `must be an array of answers; got ${describe(raw)}` }] };
    }
    raw.forEach((item, i) => {
        const at = `${path}[${i}]`;
        if (!isPlainObject(item)) {
            problems.push({ field: at, message: `must be an answer object {"question_id", "value"}; got ${describe(item)}` });
            return;
        }
        if (typeof item.question_id !== 'string') {
            problems.push({ field: `${at}.question_id`, message: `is required (a question id string); got ${describe(item.question_id)}` });
            return;
        }
        const question = byId.get(item.question_id);
        if (!question) {
            problems.push({ field: `${at}.question_id`, message: `unknown question "${item.question_id}" in form "${form.id}"` });
            return;
        }
        if (seen.has(question.id)) {
            problems.push({ field: `${at}.question_id`, message: `question "${question.id}" is answered twice`, questionId: question.id });
            return;
        }
        seen.add(question.id);
        const qt = own(tr, question.id);
        const optionText = (opt) => own(qt?.options, opt.id) ?? opt.value;
        const value = renderValue(question, item.value, optionText);
        if (typeof value === 'object' && value !== null && 'problem' in value) {
            problems.push({ field: `${at}.value`, message: value.problem, questionId: question.id });
            return;
        }
        const answer = {
            question_id: question.id,
            type: question.type,
            title: qt?.title ?? question.title,
            value,
        };
        if (translated)
            answer.reporting_label = question.title;
        answers.push(answer);
    });
    if (opts.enforceRequired) {
        for (const q of form.questions) {
            if ((q.required || q === scoring) && !seen.has(q.id)) {
                problems.push({ field: path, message: `question "${q.id}" is required but has no answer`, questionId: q.id });
            }
        }
    }
    const scored = scoring === undefined ? undefined : answers.find((a) => a.question_id === scoring.id);
    return { answers, score: typeof scored?.value === 'number' ? scored.value : 0, problems };
}
function renderValue(q, v, optionText) {
    const choice = (c) => {
        const id = typeof c === 'string' ? c : isPlainObject(c) && typeof c.id === 'string' ? c.id : undefined;
        if (id === undefined) {
            return { problem: `must be an option {"id": "<option id>"} of question "${q.id}"; got ${describe(c)}` };
        }
        const opt = q.options.find((o) => o.id === id);
        if (!opt)
            return { problem: `unknown option "${id}" of question "${q.id}"` };
        return { id: opt.id, value: optionText(opt) };
    };
    switch (q.type) {
        case 'single_choice':
            return choice(v);
        case 'multiple_choice': {
            if (!Array.isArray(v)) {
                return { problem: `must be an array of options [{"id": "<option id>"}] of question "${q.id}"; got ${describe(v)}` };
            }
            const out = [];
            for (const c of v) {
                const r = choice(c);
                if ('problem' in r)
                    return r;
                if (out.some((o) => o.id === r.id))
                    return { problem: `option "${r.id}" is chosen twice` };
                out.push(r);
            }
            return out;
        }
        case 'text':
            if (typeof v !== 'string')
                return { problem: `must be a string; got ${describe(v)}` };
            return v.length <= exports.MAX_TEXT_LENGTH ? v : { problem: `must be at most ${exports.MAX_TEXT_LENGTH} characters; got ${v.length}` };
        case 'email':
            if (typeof v !== 'string')
                return { problem: `must be an e-mail address string; got ${describe(v)}` };
            return isEmailAddress(v) ? v : { problem: `must be an e-mail address; got ${describe(v)}` };
        case 'date':
            if (typeof v === 'string' && (0, dates_1.isCalendarDate)(v))
                return v;
            return { problem: `must be a date "YYYY-MM-DD" that exists; got ${describe(v)}` };
        case 'number':
        case 'rating':
        case 'nps': {
            const bounds = { ...DEFAULT_BOUNDS[q.type], ...pickBounds(q.validation) };
            const integer = q.type !== 'number';
            const range = bounds.min !== undefined && bounds.max !== undefined
                ? ` between ${bounds.min} and ${bounds.max}`
                : bounds.min !== undefined
                    ? ` of at least ${bounds.min}`
                    : bounds.max !== undefined
                        ? ` of at most ${bounds.max}`
                        : '';
            const want = `must be ${integer ? 'an integer' : 'a number'}${range}`;
            if (typeof v !== 'number' || !Number.isFinite(v))
                return { problem: `${want}; got ${describe(v)}` };
            if (integer && !Number.isInteger(v))
                return { problem: `${want}; got ${v}` };
            if ((bounds.min !== undefined && v < bounds.min) || (bounds.max !== undefined && v > bounds.max)) {
                return { problem: `${want}; got ${v}` };
            }
            return v;
        }
    }
}
function pickBounds(validation) {
    const out = {};
    if (typeof validation?.min === 'number')
        out.min = validation.min;
    if (typeof validation?.max === 'number')
        out.max = validation.max;
    return out;
}
/**
 * Loads the definitions of forms by id from the database, in any workspace (form ids are random
 * and meant to be unique; the caller decides what an id found in two workspaces means).
 * @returns every match, questions in `position` order; an empty array when no id is known.
 */
async function formDefinitionsFromDb(db, formIds) {
    if (formIds.length === 0)
        return [];
    const forms = await db('forms')
        .select('workspace_id', 'id', 'name', 'default_language', 'translations', 'score_question_id')
        .whereRaw('id = any(?)', [formIds])
        .orderBy(['workspace_id', 'id']);
    if (forms.length === 0)
        return [];
    const questions = await db('questions')
        .select('workspace_id', 'form_id', 'id', 'type', 'title', 'required', 'options', 'validation')
        .whereRaw('form_id = any(?)', [forms.map((f) => f.id)])
        .orderBy(['workspace_id', 'form_id', 'position']);
    return forms.map((f) => {
        const translations = f.translations ?? {};
        return {
            workspaceId: f.workspace_id,
            id: f.id,
            name: f.name,
            defaultLanguage: f.default_language,
            languages: [f.default_language, ...Object.keys(translations).filter((l) => l !== f.default_language).sort()],
            translations,
            scoreQuestionId: f.score_question_id,
            questions: questions
                .filter((q) => q.workspace_id === f.workspace_id && q.form_id === f.id)
                .map((q) => ({
                id: q.id,
                type: q.type,
                title: q.title,
                required: q.required,
                options: q.options ?? [],
                validation: q.validation ?? {},
            })),
        };
    });
}
/**
 * Loads one form of a workspace as a StoredFormDefinition (for validating and rendering a new response).
 * @returns undefined when the form is not in the workspace.
 */
async function formDefinitionFromDb(db, workspaceId, formId) {
    return (await formDefinitionsFromDb(db, [formId])).find((f) => f.workspaceId === workspaceId);
}
//# sourceMappingURL=answers.js.map