/**
 * Answers as they are stored on a response: rendered once, when the response is written, in the
 * language of the response (docs/decisions.md, "Answers"; CONTRACT sections 8 and 9).
 *
 * A raw answer gives the question id and a bare value (`{"id"}` for a single choice, `[{"id"},…]`
 * for a multiple choice); the stored answer adds the question's `type` and `title` and the option
 * texts, all in the response's language, plus `reporting_label` (the title in the form's default
 * language) when the form has translations.
 */
import type { Knex } from 'knex';

export const QUESTION_TYPES = [
  'single_choice',
  'multiple_choice',
  'text',
  'email',
  'number',
  'rating',
  'nps',
  'date',
] as const;

export type QuestionType = (typeof QUESTION_TYPES)[number];

export interface FormOption {
  id: string;
  value: string;
}

/** Bounds of numeric answers and the format of text answers (docs/decisions.md, question shape). */
export interface QuestionValidation {
  min?: number;
  max?: number;
  format?: 'email';
}

export interface FormQuestion {
  id: string;
  type: QuestionType;
  title: string;
  required: boolean;
  /** `[]` for questions that are not choices. */
  options: FormOption[];
  /** Absent or `{}`: the type's defaults (nps 0..10, rating 1..5, no bounds for number). */
  validation?: QuestionValidation;
}

/** `{lang: {question_id: {title?, options?: {option_id: text}}}}` (docs/decisions.md, form schema). */
export type FormTranslations = Record<string, Record<string, { title?: string; options?: Record<string, string> }>>;

export interface FormDefinition {
  id: string;
  defaultLanguage: string;
  questions: FormQuestion[];
  translations: FormTranslations;
}

/** An answer as a client or a fixture gives it (CONTRACT section 9). */
export interface RawAnswer {
  question_id: string;
  value: unknown;
}

export interface ChoiceValue {
  id: string;
  value: string;
}

export type StoredAnswerValue = string | number | ChoiceValue | ChoiceValue[];

/** An answer as stored in `responses.answers` (snake_case: it is persisted JSON). */
export interface StoredAnswer {
  question_id: string;
  type: QuestionType;
  title: string;
  value: StoredAnswerValue;
  /** Only for forms with translations: the question title in the form's default language. */
  reporting_label?: string;
}

export interface AnswerProblem {
  path: string;
  message: string;
}

const DEFAULT_BOUNDS: Partial<Record<QuestionType, { min: number; max: number }>> = {
  nps: { min: 0, max: 10 },
  rating: { min: 1, max: 5 },
};

const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

function own<T>(obj: Record<string, T> | undefined, key: string): T | undefined {
  return obj !== undefined && Object.prototype.hasOwnProperty.call(obj, key) ? obj[key] : undefined;
}

/** True for `YYYY-MM-DD` naming a day that exists (`2024-02-30` is false). */
export function isCalendarDate(value: string): boolean {
  const m = DATE_RE.exec(value);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const t = new Date(Date.UTC(y, mo - 1, d));
  return t.getUTCFullYear() === y && t.getUTCMonth() === mo - 1 && t.getUTCDate() === d;
}

/** True for a plausible e-mail address (something@host.tld, no spaces). */
export function isEmailAddress(value: string): boolean {
  return EMAIL_RE.test(value);
}

/** The default `validation` of a question type (docs/decisions.md): nps/rating bounds, email format, else `{}`. */
export function defaultValidation(type: QuestionType): QuestionValidation {
  const bounds = DEFAULT_BOUNDS[type];
  if (bounds) return { ...bounds };
  if (type === 'email') return { format: 'email' };
  return {};
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return `the string ${JSON.stringify(v.length > 40 ? v.slice(0, 40) + '…' : v)}`;
  if (typeof v === 'object') return 'an object';
  return `${typeof v} ${String(v)}`;
}

/**
 * Renders raw answers into stored answers for one response.
 *
 * - `title` and option texts come from `form.translations[language]` when present, else from the
 *   form's default texts; a language the form does not know falls back to the defaults.
 * - Values by type: `single_choice` `{id}` → `{id, value}`; `multiple_choice` `[{id},…]` → `[{id, value}]`
 *   (a `value` text beside an id is ignored); `text` string; `email` string that looks like an
 *   address; `number` finite number; `rating` integer 1..5 and `nps` integer 0..10 unless the
 *   question's `validation` gives other bounds (which also bound `number`); `date` a real `YYYY-MM-DD`.
 * - `reporting_label` (the default-language title) is set on every answer exactly when the form has
 *   any translations; otherwise the key is absent.
 *
 * Never throws: every problem is returned with its path, `${path}[i].question_id` for an unknown or
 * repeated question, `${path}[i].value` for a value that does not fit. Answers with problems are left
 * out of `answers`. Required questions without an answer are not reported (fixtures hold history).
 * @param path JSON path of the answers array, e.g. `responses[3].answers`.
 * Spec: CONTRACT sections 8 (values, reporting_label) and 9 (fixture answers).
 */
export function renderAnswers(
  form: FormDefinition,
  language: string,
  raw: RawAnswer[],
  path: string,
): { answers: StoredAnswer[]; problems: AnswerProblem[] } {
  const answers: StoredAnswer[] = [];
  const problems: AnswerProblem[] = [];
  const byId = new Map(form.questions.map((q) => [q.id, q]));
  const translated = Object.keys(form.translations ?? {}).length > 0;
  const tr = language === form.defaultLanguage ? undefined : own(form.translations, language);
  const seen = new Set<string>();

  if (!Array.isArray(raw)) {
    return { answers, problems: [{ path, message: 'must be an array of answers' }] };
  }

  raw.forEach((item, i) => {
    const at = `${path}[${i}]`;
    if (!isPlainObject(item) || typeof item.question_id !== 'string') {
      problems.push({ path: `${at}.question_id`, message: 'is required (a question id string)' });
      return;
    }
    const question = byId.get(item.question_id);
    if (!question) {
      problems.push({ path: `${at}.question_id`, message: `unknown question "${item.question_id}" in form "${form.id}"` });
      return;
    }
    if (seen.has(question.id)) {
      problems.push({ path: `${at}.question_id`, message: `question "${question.id}" is answered twice` });
      return;
    }
    seen.add(question.id);

    const qt = own(tr, question.id);
    const optionText = (opt: FormOption) => own(qt?.options, opt.id) ?? opt.value;
    const valuePath = `${at}.value`;
    const value = renderValue(question, item.value, optionText);
    if (typeof value === 'object' && value !== null && 'problem' in value) {
      problems.push({ path: valuePath, message: value.problem });
      return;
    }
    const answer: StoredAnswer = {
      question_id: question.id,
      type: question.type,
      title: qt?.title ?? question.title,
      value,
    };
    if (translated) answer.reporting_label = question.title;
    answers.push(answer);
  });
  return { answers, problems };
}

function renderValue(
  q: FormQuestion,
  v: unknown,
  optionText: (opt: FormOption) => string,
): StoredAnswerValue | { problem: string } {
  const choice = (c: unknown): ChoiceValue | { problem: string } => {
    if (!isPlainObject(c) || typeof c.id !== 'string') {
      return { problem: `must be an option {"id": "<option id>"} of question "${q.id}"; got ${describe(c)}` };
    }
    const opt = q.options.find((o) => o.id === c.id);
    if (!opt) return { problem: `unknown option "${c.id}" of question "${q.id}"` };
    return { id: opt.id, value: optionText(opt) };
  };

  switch (q.type) {
    case 'single_choice':
      return choice(v);
    case 'multiple_choice': {
      if (!Array.isArray(v)) {
        return { problem: `must be an array of options [{"id": "<option id>"}] of question "${q.id}"; got ${describe(v)}` };
      }
      const out: ChoiceValue[] = [];
      for (const c of v) {
        const r = choice(c);
        if ('problem' in r) return r;
        if (out.some((o) => o.id === r.id)) return { problem: `option "${r.id}" is chosen twice` };
        out.push(r);
      }
      return out;
    }
    case 'text':
      return typeof v === 'string' ? v : { problem: `must be a string; got ${describe(v)}` };
    case 'email':
      if (typeof v !== 'string') return { problem: `must be an e-mail address string; got ${describe(v)}` };
      return isEmailAddress(v) ? v : { problem: `must be an e-mail address; got ${describe(v)}` };
    case 'date':
      if (typeof v === 'string' && isCalendarDate(v)) return v;
      return { problem: `must be a date "YYYY-MM-DD" that exists; got ${describe(v)}` };
    case 'number':
    case 'rating':
    case 'nps': {
      const bounds = { ...DEFAULT_BOUNDS[q.type], ...pickBounds(q.validation) };
      const integer = q.type !== 'number';
      const range =
        bounds.min !== undefined && bounds.max !== undefined
          ? ` between ${bounds.min} and ${bounds.max}`
          : bounds.min !== undefined
            ? ` of at least ${bounds.min}`
            : bounds.max !== undefined
              ? ` of at most ${bounds.max}`
              : '';
      const want = `must be ${integer ? 'an integer' : 'a number'}${range}`;
      if (typeof v !== 'number' || !Number.isFinite(v)) return { problem: `${want}; got ${describe(v)}` };
      if (integer && !Number.isInteger(v)) return { problem: `${want}; got ${v}` };
      if ((bounds.min !== undefined && v < bounds.min) || (bounds.max !== undefined && v > bounds.max)) {
        return { problem: `${want}; got ${v}` };
      }
      return v;
    }
  }
}

function pickBounds(validation: QuestionValidation | undefined): { min?: number; max?: number } {
  const out: { min?: number; max?: number } = {};
  if (typeof validation?.min === 'number') out.min = validation.min;
  if (typeof validation?.max === 'number') out.max = validation.max;
  return out;
}

interface FormRow {
  workspace_id: string;
  id: string;
  default_language: string;
  translations: FormTranslations | null;
}

interface QuestionRow {
  workspace_id: string;
  form_id: string;
  id: string;
  type: QuestionType;
  title: string;
  required: boolean;
  options: FormOption[] | null;
  validation: QuestionValidation | null;
}

/** A stored form as a FormDefinition, with the workspace it belongs to. */
export interface StoredFormDefinition extends FormDefinition {
  workspaceId: string;
}

/**
 * Loads the definitions of forms by id from the database, in any workspace (form ids are random
 * and meant to be unique; the caller decides what an id found in two workspaces means).
 * @returns every match, questions in `position` order; an empty array when no id is known.
 */
export async function formDefinitionsFromDb(
  db: Knex | Knex.Transaction,
  formIds: readonly string[],
): Promise<StoredFormDefinition[]> {
  if (formIds.length === 0) return [];
  const forms: FormRow[] = await db('forms')
    .select('workspace_id', 'id', 'default_language', 'translations')
    .whereRaw('id = any(?)', [formIds as string[]]);
  if (forms.length === 0) return [];
  const questions: QuestionRow[] = await db('questions')
    .select('workspace_id', 'form_id', 'id', 'type', 'title', 'required', 'options', 'validation')
    .whereRaw('form_id = any(?)', [forms.map((f) => f.id)])
    .orderBy(['workspace_id', 'form_id', 'position']);
  return forms.map((f) => ({
    workspaceId: f.workspace_id,
    id: f.id,
    defaultLanguage: f.default_language,
    translations: f.translations ?? {},
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
  }));
}

/**
 * Loads one form of a workspace as a FormDefinition (for rendering answers of a new response).
 * @returns undefined when the form is not in the workspace.
 */
export async function formDefinitionFromDb(
  db: Knex | Knex.Transaction,
  workspaceId: string,
  formId: string,
): Promise<FormDefinition | undefined> {
  const found = (await formDefinitionsFromDb(db, [formId])).find((f) => f.workspaceId === workspaceId);
  if (!found) return undefined;
  const { workspaceId: _ws, ...definition } = found;
  return definition;
}
