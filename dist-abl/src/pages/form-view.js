"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.HONEYPOT_FIELD = exports.FIELD_PREFIX = void 0;
exports.postedValue = postedValue;
exports.buildFormView = buildFormView;
exports.answersFromBody = answersFromBody;
/**
 * The hosted page's view of a form (what the templates draw) and the way back: posted form fields
 * (`application/x-www-form-urlencoded`) to raw answers for the core submission path.
 *
 * Field names: `q.{question_id}` holds an answer (repeated for a multiple choice), `_token` the
 * one-time submission token, `_lang` the page's language, `_t` the email-link token, and `website`
 * is the honeypot (people never see it; bots fill it in).
 */
const answers_1 = require("../core/responses/answers");
const i18n_1 = require("./i18n");
exports.FIELD_PREFIX = 'q.';
exports.HONEYPOT_FIELD = 'website';
function bounds(q) {
    const d = q.type === 'nps' ? { min: 0, max: 10 } : q.type === 'rating' ? { min: 1, max: 5 } : {};
    return {
        ...d,
        ...(typeof q.validation?.min === 'number' ? { min: q.validation.min } : {}),
        ...(typeof q.validation?.max === 'number' ? { max: q.validation.max } : {}),
    };
}
function posted(body, name) {
    const v = body[name];
    if (v === undefined)
        return [];
    return (Array.isArray(v) ? v : [v]).filter((x) => typeof x === 'string');
}
/** The first posted value of a field, or '' (a repeated single field keeps its first value). */
function postedValue(body, name) {
    return posted(body, name)[0] ?? '';
}
/**
 * Builds what the form template draws, in `lang` (titles and option texts from the form's
 * translations, else its default texts).
 * @param body the posted fields to keep (after a wrong answer), or `{}` for a fresh page.
 * @param errors messages by question id.
 */
function buildFormView(args) {
    const { form, lang, body, errors } = args;
    const s = (0, i18n_1.pageStrings)(lang);
    const tr = lang === form.defaultLanguage ? undefined : form.translations[lang];
    // The score question must be answered even when it is not marked required (CONTRACT section 11).
    const scoring = (0, answers_1.scoreQuestion)(form);
    const questions = form.questions.map((q, i) => {
        const qt = tr?.[q.id];
        const elementId = `q${i + 1}`;
        const name = `${exports.FIELD_PREFIX}${q.id}`;
        const sent = posted(body, name);
        const b = bounds(q);
        const base = {
            id: q.id,
            type: q.type,
            elementId,
            name,
            title: qt?.title ?? q.title,
            required: q.required || q === scoring,
            value: sent[0] ?? '',
            scale: false,
            options: [],
            ...(errors.has(q.id) ? { error: errors.get(q.id) } : {}),
        };
        switch (q.type) {
            case 'single_choice':
            case 'multiple_choice':
                return {
                    ...base,
                    control: q.type === 'single_choice' ? 'radio' : 'checkbox',
                    hint: q.type === 'single_choice' ? s.chooseOne : s.chooseAny,
                    options: q.options.map((o, j) => ({
                        id: o.id,
                        elementId: `${elementId}-${j + 1}`,
                        label: qt?.options?.[o.id] ?? o.value,
                        value: o.id,
                        checked: sent.includes(o.id),
                    })),
                };
            case 'nps':
            case 'rating': {
                const min = b.min ?? 0;
                const max = b.max ?? min;
                const options = [];
                // A scale has a handful of points; a form with a wide custom range gets a number input instead.
                if (max - min > 20)
                    return { ...base, control: 'input', inputType: 'number', ...b };
                for (let v = min; v <= max; v++) {
                    options.push({ id: String(v), elementId: `${elementId}-${v - min + 1}`, label: String(v), value: String(v), checked: sent[0] === String(v) });
                }
                const hint = q.type === 'nps' && min === 0 && max === 10 ? `${s.npsLow}, ${s.npsHigh}` : `${min} = ${s.ratingLow}, ${max} = ${s.ratingHigh}`;
                return { ...base, control: 'radio', scale: true, hint, options };
            }
            case 'number':
                return { ...base, control: 'input', inputType: 'number', ...b };
            case 'date':
                return { ...base, control: 'input', inputType: 'date' };
            case 'email':
                return { ...base, control: 'input', inputType: 'email' };
            case 'text':
            default:
                return { ...base, control: 'textarea' };
        }
    });
    return {
        formId: form.id,
        formName: args.formName,
        lang,
        s,
        questions,
        formErrors: args.formErrors ?? [],
        token: args.token,
        ...(args.linkToken ? { linkToken: args.linkToken } : {}),
        action: `/f/${encodeURIComponent(form.id)}`,
    };
}
/**
 * Posted fields to raw answers, in form order. An empty field is no answer (the core then reports a
 * required question as unanswered). Numbers that do not parse are passed on as strings so the core's
 * type check names them; choices become `{id}` / `[{id}]`.
 */
function answersFromBody(form, body) {
    const out = [];
    for (const q of form.questions) {
        const sent = posted(body, `${exports.FIELD_PREFIX}${q.id}`).filter((v) => v.trim() !== '');
        if (sent.length === 0)
            continue;
        const first = sent[0];
        switch (q.type) {
            case 'single_choice':
                out.push({ question_id: q.id, value: { id: first } });
                break;
            case 'multiple_choice':
                out.push({ question_id: q.id, value: sent.map((id) => ({ id })) });
                break;
            case 'nps':
            case 'rating':
            case 'number': {
                const n = Number(first.trim());
                out.push({ question_id: q.id, value: /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(first.trim()) && Number.isFinite(n) ? n : first });
                break;
            }
            case 'email':
                out.push({ question_id: q.id, value: first.trim() });
                break;
            default:
                out.push({ question_id: q.id, value: first });
        }
    }
    return out;
}
//# sourceMappingURL=form-view.js.map