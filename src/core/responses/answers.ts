/**
 * Answers as they are stored on a response: rendered once, when the response is written, in the
 * language of the response (docs/decisions.md, "Answers"; docs/collecting.md, "Answers").
 *
 * A raw answer gives the question id and a bare value (`{"id"}` for a single choice, `[{"id"},…]`
 * for a multiple choice); the stored answer adds the question's `type` and `title` and the option
 * texts, all in the response's language, plus `reporting_label` (the title in the form's default
 * language) when the form has translations.
 */
import { scoreQuestion, type FormDefinition, type FormOption, type FormQuestion, type QuestionType, type QuestionValidation } from '../forms/form-model';
import { isCalendarDate } from '../query/dates';
import { isPlainObject } from '../plain-object';
import type { SentimentLabel } from './sentiment-labels';

/** An answer as a client or a fixture gives it (docs/collecting.md, "Answers"; docs/import.md, "The fixture document"). */
export interface RawAnswer {
  question_id: string;
  value: unknown;
}

export interface ChoiceValue {
  id: string;
  value: string;
}

export type StoredAnswerValue = string | number | ChoiceValue | ChoiceValue[];

/** An answer as stored in `responses.answers` (snake_case: it is persisted JSON). The one stored-answer type. */
export interface StoredAnswer {
  question_id: string;
  type: QuestionType;
  title: string;
  value: StoredAnswerValue;
  /** Only for forms with translations: the question title in the form's default language. */
  reporting_label?: string;
  /**
   * Text answers only, set when the response is written (or by the backfill job): `{score, label}`, or null when the
   * response's language is not one the sentiment library reads (src/core/responses/sentiment.ts). Absent: not computed.
   */
  sentiment?: Sentiment | null;
}

/** A text answer's or a response's sentiment: `score` in -1..1 (3 decimals) and its label. */
export interface Sentiment {
  score: number;
  label: SentimentLabel;
}

/**
 * One problem with the answers. `field` is a JSON path (`answers[2].value`; `answers` for a required
 * question left out); `questionId` names the question when one is known, so a page can show the
 * message beside it.
 */
export interface AnswerProblem {
  field: string;
  message: string;
  questionId?: string;
}

export interface ValidateAnswersOptions {
  /** Language the titles and option texts are rendered in; one the form does not know falls back to the defaults. */
  language: string;
  /** JSON path of the answers array (default `answers`), e.g. `responses[3].answers` for a fixture. */
  path?: string;
  /** Report required questions (and the score question) left unanswered; imports keep history and pass false. */
  enforceRequired?: boolean;
}

export interface ValidatedAnswers {
  /** The answers without problems, in the order given, rendered in the language. */
  answers: StoredAnswer[];
  /** The score question's answer, 0 when the form has no score question or it is unanswered. */
  score: number;
  problems: AnswerProblem[];
}

/** Longest `text` answer (docs/collecting.md, "Answers"). */
export const MAX_TEXT_LENGTH = 10_000;

const DEFAULT_BOUNDS: Partial<Record<QuestionType, { min: number; max: number }>> = {
  nps: { min: 0, max: 10 },
  rating: { min: 1, max: 5 },
};

const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function own<T>(obj: Record<string, T> | undefined, key: string): T | undefined {
  return obj !== undefined && Object.prototype.hasOwnProperty.call(obj, key) ? obj[key] : undefined;
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

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return `the string ${JSON.stringify(v.length > 40 ? v.slice(0, 40) + '…' : v)}`;
  if (typeof v === 'object') return 'an object';
  // What JSON has left: a number or a boolean.
  return `${typeof v} ${String(v as number | boolean)}`;
}

/**
 * The one answer validator, used by every submission way and by the importer (docs/collecting.md,
 * "Answers"; docs/import.md, "The fixture document"). Pure: checks raw answers against a form and renders them for storage.
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
export function validateAnswers(form: FormDefinition, raw: unknown, opts: ValidateAnswersOptions): ValidatedAnswers {
  const path = opts.path ?? 'answers';
  const answers: StoredAnswer[] = [];
  const problems: AnswerProblem[] = [];
  const byId = new Map(form.questions.map((q) => [q.id, q]));
  const translated = Object.keys(form.translations ?? {}).length > 0;
  const tr = opts.language === form.defaultLanguage ? undefined : own(form.translations, opts.language);
  const seen = new Set<string>();
  const scoring = scoreQuestion(form);

  if (!Array.isArray(raw)) {
    return { answers, score: 0, problems: [{ field: path, message: `must be an array of answers; got ${describe(raw)}` }] };
  }

  raw.forEach((item: unknown, i) => {
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
    const optionText = (opt: FormOption) => own(qt?.options, opt.id) ?? opt.value;
    const value = renderValue(question, item.value, optionText);
    if (typeof value === 'object' && value !== null && 'problem' in value) {
      problems.push({ field: `${at}.value`, message: value.problem, questionId: question.id });
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

function renderValue(q: FormQuestion, v: unknown, optionText: (opt: FormOption) => string): StoredAnswerValue | { problem: string } {
  const choice = (c: unknown): ChoiceValue | { problem: string } => {
    const id = typeof c === 'string' ? c : isPlainObject(c) && typeof c.id === 'string' ? c.id : undefined;
    if (id === undefined) {
      return { problem: `must be an option {"id": "<option id>"} of question "${q.id}"; got ${describe(c)}` };
    }
    const opt = q.options.find((o) => o.id === id);
    if (!opt) return { problem: `unknown option "${id}" of question "${q.id}"` };
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
      if (typeof v !== 'string') return { problem: `must be a string; got ${describe(v)}` };
      return v.length <= MAX_TEXT_LENGTH ? v : { problem: `must be at most ${MAX_TEXT_LENGTH} characters; got ${v.length}` };
    case 'email':
      if (typeof v !== 'string') return { problem: `must be an e-mail address string; got ${describe(v)}` };
      return isEmailAddress(v) ? v : { problem: `must be an e-mail address; got ${describe(v)}` };
    case 'date':
      if (typeof v === 'string' && isCalendarDate(v)) return v;
      return { problem: `must be a date "YYYY-MM-DD" that exists; got ${describe(v)}` };
    case 'number':
    case 'rating':
    case 'nps': {
      const bounds = answerBounds(q);
      const integer = q.type !== 'number';
      const range =
        bounds.min !== undefined && bounds.max !== undefined
          ? ` from ${bounds.min} to ${bounds.max}`
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

/**
 * The bounds a numeric answer is checked against: the question's `validation.min`/`max` over its type's defaults
 * (rating 1..5, nps 0..10, none for number). Every stored rating and nps answer is an integer within them (forms
 * do not change after they are created), which the answer filters rely on (answer-filter.ts).
 */
export function answerBounds(q: Pick<FormQuestion, 'type' | 'validation'>): { min?: number; max?: number } {
  return { ...DEFAULT_BOUNDS[q.type], ...pickBounds(q.validation) };
}

function pickBounds(validation: QuestionValidation | undefined): { min?: number; max?: number } {
  const out: { min?: number; max?: number } = {};
  if (typeof validation?.min === 'number') out.min = validation.min;
  if (typeof validation?.max === 'number') out.max = validation.max;
  return out;
}
