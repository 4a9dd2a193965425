/**
 * The hosted page's view of a form (what the templates draw) and the way back: posted form fields
 * (`application/x-www-form-urlencoded`) to raw answers for the core submission path.
 *
 * Field names: `q.{question_id}` holds an answer (repeated for a multiple choice), `_token` the
 * one-time submission token, `_lang` the page's language, `_t` the email-link token, and `website`
 * is the honeypot (people never see it; bots fill it in).
 */
import { scoreQuestion, type FormDefinition, type FormQuestion } from '../core/forms/form-model';
import type { RawAnswer } from '../core/responses/answers';
import { pageStrings, type PageStrings } from './i18n';

export const FIELD_PREFIX = 'q.';
export const HONEYPOT_FIELD = 'website';

/** Posted values: a string, or an array of strings for repeated names. */
export type PostedBody = Record<string, string | string[] | undefined>;

export interface OptionView {
  id: string;
  /** Element id, unique in the page. */
  elementId: string;
  label: string;
  value: string;
  checked: boolean;
}

export interface QuestionView {
  id: string;
  type: string;
  elementId: string;
  name: string;
  title: string;
  required: boolean;
  /** 'choice' (radios/checkboxes in a fieldset) or 'input' / 'textarea'. */
  control: 'radio' | 'checkbox' | 'input' | 'textarea';
  inputType?: 'number' | 'date' | 'email';
  min?: number;
  max?: number;
  /** A hint under the title (scale ends, "choose any"). */
  hint?: string;
  /** Radio scales (nps, rating) draw their options in one row. */
  scale: boolean;
  options: OptionView[];
  /** The value sent back, for text-like controls. */
  value: string;
  error?: string;
}

export interface FormView {
  formId: string;
  formName: string;
  lang: string;
  s: PageStrings;
  questions: QuestionView[];
  /** Messages that belong to no question (e.g. a row that no longer exists). */
  formErrors: string[];
  token: string;
  linkToken?: string;
  action: string;
}

function bounds(q: FormQuestion): { min?: number; max?: number } {
  const d = q.type === 'nps' ? { min: 0, max: 10 } : q.type === 'rating' ? { min: 1, max: 5 } : {};
  return {
    ...d,
    ...(typeof q.validation?.min === 'number' ? { min: q.validation.min } : {}),
    ...(typeof q.validation?.max === 'number' ? { max: q.validation.max } : {}),
  };
}

function posted(body: PostedBody, name: string): string[] {
  const v = body[name];
  if (v === undefined) return [];
  return (Array.isArray(v) ? v : [v]).filter((x): x is string => typeof x === 'string');
}

/** The first posted value of a field, or '' (a repeated single field keeps its first value). */
export function postedValue(body: PostedBody, name: string): string {
  return posted(body, name)[0] ?? '';
}

/**
 * Builds what the form template draws, in `lang` (titles and option texts from the form's
 * translations, else its default texts).
 * @param body the posted fields to keep (after a wrong answer), or `{}` for a fresh page.
 * @param errors messages by question id.
 */
export function buildFormView(args: {
  form: FormDefinition;
  formName: string;
  lang: string;
  body: PostedBody;
  errors: ReadonlyMap<string, string>;
  formErrors?: string[];
  token: string;
  linkToken?: string | undefined;
}): FormView {
  const { form, lang, body, errors } = args;
  const s = pageStrings(lang);
  const tr = lang === form.defaultLanguage ? undefined : form.translations[lang];
  // The score question must be answered even when it is not marked required (docs/collecting.md, "Score").
  const scoring = scoreQuestion(form);
  const questions = form.questions.map((q, i): QuestionView => {
    const qt = tr?.[q.id];
    const elementId = `q${i + 1}`;
    const name = `${FIELD_PREFIX}${q.id}`;
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
      options: [] as OptionView[],
      ...(errors.has(q.id) ? { error: errors.get(q.id)! } : {}),
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
        const options: OptionView[] = [];
        // A scale has a handful of points; a form with a wide custom range gets a number input instead.
        if (max - min > 20) return { ...base, control: 'input', inputType: 'number', ...b };
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
export function answersFromBody(form: FormDefinition, body: PostedBody): RawAnswer[] {
  const out: RawAnswer[] = [];
  for (const q of form.questions) {
    const sent = posted(body, `${FIELD_PREFIX}${q.id}`).filter((v) => v.trim() !== '');
    if (sent.length === 0) continue;
    const first = sent[0]!;
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
