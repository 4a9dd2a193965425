/**
 * Filters on answers (docs/api-rules.md, "Filters on answers"): the field family `answers.<question_id>` of the
 * responses lists, said by Style B's `filter` (`answers.q_plan = opt_pro`) and by Style A's keyed parameters
 * (`answer=q_plan:opt_pro`, src/core/query/typed-filter.ts), compiled against the questions of one form.
 *
 * The value of a field is the answer's value as stored in `responses.answers` (src/core/responses/answers.ts):
 * an option id for choice questions (a multiple-choice answer "is" each option it holds), the number, the
 * text, the address, the date. Per question type:
 *
 *   =, !=, in        every type (`!=` keeps responses that did not answer; = null / != null: not answered / answered)
 *   ~                text and email: contains, ignoring case (`%` and `_` are plain characters)
 *   >=, >, <=, <     number, rating, nps (as numbers) and date (as calendar dates)
 *
 * A value must fit its question: an option id of the question, a number, a real `YYYY-MM-DD`. Equality is jsonb
 * containment on the answers array (`answers @> '[{"question_id": …, "value": …}]'`), which the GIN index
 * `responses_answers_idx` serves. A comparison on a rating or nps answer is the finite list of the scale's values
 * that meet it (`>= 9` on nps is `= 9 or = 10`), so it is containment too: every stored rating and nps answer is
 * an integer within its question's bounds (answers.ts, answerBounds). Contains, and the comparisons on number and
 * date answers, look into the answer of that question (`jsonb_array_elements`), after the same containment test
 * that it was answered.
 *
 * A Style B page's `filteredTotal` for a list narrowed by its form and one answer clause the rollups can count
 * (answerRollupKeys) is a sum over `answer_rollups` instead of a COUNT over the form's responses.
 */
import { errors } from '../errors';
import type { FormQuestion, QuestionType } from '../forms/form-model';
import { answerBounds } from './answers';
import { isCalendarDate } from '../query/dates';
import { escapeLike, positionOf, type ExtraFields } from '../query/filter';
import { COMPARISON_OPS, type FilterClause, type FilterValue } from '../query/filter-parser';
import { joinSql, sql, type Sql } from '../query/sql';

/** The prefix of an answer field: `answers.q_plan`. */
export const ANSWER_FIELD_PREFIX = 'answers.';

/** What a filter needs of a question. */
export type AnswerQuestion = Pick<FormQuestion, 'id' | 'type' | 'options' | 'validation'>;

/** The form a list is narrowed to, with its questions. */
export interface AnswerForm {
  id: string;
  questions: readonly AnswerQuestion[];
}

const NUMERIC: ReadonlySet<QuestionType> = new Set(['number', 'rating', 'nps']);
const ORDERED: ReadonlySet<QuestionType> = new Set(['number', 'rating', 'nps', 'date']);
const TEXTUAL: ReadonlySet<QuestionType> = new Set(['text', 'email']);
/** Integer scales: their answers are integers within the question's bounds, so a bound is a finite list of values. */
const SCALES: ReadonlySet<QuestionType> = new Set(['rating', 'nps']);
/** Most values a scale's bound is listed as (nps: 11, a 1..5 rating: 5); a wider scale compares each answer instead. */
const MAX_LISTED_VALUES = 101;

/** Whether a filter field is an answer field (`answers.<question_id>`). */
export function isAnswerField(field: string): boolean {
  return field.startsWith(ANSWER_FIELD_PREFIX) && field.length > ANSWER_FIELD_PREFIX.length;
}

const isNull = (v: FilterValue) => !v.quoted && v.text.toLowerCase() === 'null';

/** `answers @> '[{"question_id": id[, "value": value]}]'`: the response answered the question (with that value). */
function answered(questionId: string, value?: unknown): Sql {
  const item = value === undefined ? { question_id: questionId } : { question_id: questionId, value };
  return sql('?? @> ?::jsonb', 'answers', JSON.stringify([item]));
}

/** The response answered the question, and its answer `e` meets `cond` (SQL over `e`, the answer object). */
function answerWhere(questionId: string, cond: Sql): Sql {
  const has = answered(questionId);
  return sql(
    `(${has.sql} AND EXISTS (SELECT 1 FROM jsonb_array_elements(??) AS a(e) WHERE e ->> 'question_id' = ? AND ${cond.sql}))`,
    ...has.bindings,
    'answers',
    questionId,
    ...cond.bindings,
  );
}

/** A clause's value read for its question: the option id, the number or the text. */
type Typed = { kind: 'number'; n: number } | { kind: 'text'; text: string };

/**
 * The compiler of one form's answer fields, for a list's FilterContext (`extra`).
 * @param form the form the list is narrowed to; undefined when it is not narrowed to one form, and then every
 *   answer clause is a 400 asking for `form_id` (question ids belong to a form).
 */
export function answerFields(form: AnswerForm | undefined): ExtraFields {
  const byId = new Map((form?.questions ?? []).map((q) => [q.id, q]));
  return {
    label: 'answers.<question_id>',
    matches: isAnswerField,
    compile(clause, param, location) {
      const bad = (what: string) => errors.invalid(location, param, `\`${param}\`: ${what}${positionOf(clause)}.`);
      const questionId = clause.field.slice(ANSWER_FIELD_PREFIX.length);
      if (form === undefined) {
        throw bad(`a filter on "${clause.field}" needs \`form_id\`: question ids belong to a form, so narrow the list to one form`);
      }
      const question = byId.get(questionId);
      if (!question) {
        const known = [...byId.keys()].join(', ') || 'none';
        throw bad(`unknown question "${questionId}" in form "${form.id}"; its questions: ${known}`);
      }
      return compileAnswerClause(clause, question, bad);
    },
  };
}

/** Checks that the operator fits the question's type and compiles the clause. */
function compileAnswerClause(clause: FilterClause, q: AnswerQuestion, bad: (what: string) => Error): Sql {
  if (clause.op === '~' && !TEXTUAL.has(q.type)) {
    throw bad(`"~" (contains) applies to text and email answers; "${q.id}" is a ${q.type} question`);
  }
  if (COMPARISON_OPS.includes(clause.op) && !ORDERED.has(q.type)) {
    throw bad(`"${clause.op}" applies to number, rating, nps and date answers; "${q.id}" is a ${q.type} question`);
  }
  const v = clause.values[0]!;
  switch (clause.op) {
    case '=':
    case '!=': {
      if (isNull(v)) return clause.op === '=' ? not(answered(q.id)) : answered(q.id);
      const eq = equals(q, typedValue(q, v, bad));
      return clause.op === '=' ? eq : not(eq);
    }
    case 'in': {
      const parts = clause.values.filter((x) => !isNull(x)).map((x) => equals(q, typedValue(q, x, bad)));
      if (clause.values.some(isNull)) parts.push(not(answered(q.id)));
      return anyOf(parts);
    }
    case '~':
      return answerWhere(q.id, sql(`jsonb_typeof(e -> 'value') = 'string' AND (e ->> 'value') ILIKE ?`, `%${escapeLike(v.text)}%`));
    default: {
      if (isNull(v)) throw bad(`"${clause.op}" needs a value, not null, for "${clause.field}"`);
      const t = typedValue(q, v, bad);
      const listed = t.kind === 'number' ? scaleValues(q, (x) => meets(x, clause.op, t.n)) : undefined;
      if (listed !== undefined) return anyOf(listed.map((x) => answered(q.id, x)));
      // Dates compare as text in the "C" collation: YYYY-MM-DD orders by day there, whatever the database's locale.
      const cond =
        t.kind === 'number'
          ? sql(`jsonb_typeof(e -> 'value') = 'number' AND (e ->> 'value')::numeric ${clause.op} ?`, t.n)
          : sql(`jsonb_typeof(e -> 'value') = 'string' AND (e ->> 'value') COLLATE "C" ${clause.op} ?`, t.text);
      return answerWhere(q.id, cond);
    }
  }
}

/** `x op n` for a comparison operator. */
function meets(x: number, op: FilterClause['op'], n: number): boolean {
  switch (op) {
    case '>=':
      return x >= n;
    case '>':
      return x > n;
    case '<=':
      return x <= n;
    case '<':
      return x < n;
    default:
      return x === n;
  }
}

/**
 * The values of a rating or nps question's scale (the integers within answerBounds) that `keep` keeps, in order;
 * undefined for another type or a scale of more than MAX_LISTED_VALUES values (then each answer is compared).
 */
function scaleValues(q: AnswerQuestion, keep: (x: number) => boolean): number[] | undefined {
  if (!SCALES.has(q.type)) return undefined;
  const { min, max } = answerBounds(q);
  if (min === undefined || max === undefined) return undefined;
  const lo = Math.ceil(min);
  const hi = Math.floor(max);
  if (hi - lo + 1 > MAX_LISTED_VALUES) return undefined;
  const out: number[] = [];
  for (let x = lo; x <= hi; x++) if (keep(x)) out.push(x);
  return out;
}

/** The OR of `parts`, `false` when there are none (a bound past the scale's end keeps nothing). */
function anyOf(parts: Sql[]): Sql {
  if (parts.length === 0) return sql('false');
  const joined = joinSql(parts, ' OR ');
  return sql(`(${joined.sql})`, ...joined.bindings);
}

function not(s: Sql): Sql {
  return sql(`NOT (${s.sql})`, ...s.bindings);
}

/** The answer to `q` is `t` (a multiple-choice answer: holds the option `t`). */
function equals(q: AnswerQuestion, t: Typed): Sql {
  if (t.kind === 'number') return answered(q.id, t.n);
  if (q.type === 'single_choice') return answered(q.id, { id: t.text });
  if (q.type === 'multiple_choice') return answered(q.id, [{ id: t.text }]);
  return answered(q.id, t.text);
}

/** The value as its question reads it. @throws the `bad` error for an unknown option, a non-number or a non-date. */
function typedValue(q: AnswerQuestion, v: FilterValue, bad: (what: string) => Error): Typed {
  if (NUMERIC.has(q.type)) {
    const n = Number(v.text);
    if (v.text.trim() === '' || !Number.isFinite(n)) throw bad(`"${v.text}" is not a number for the ${q.type} question "${q.id}"`);
    return { kind: 'number', n };
  }
  if (q.type === 'date' && !isCalendarDate(v.text)) throw bad(`"${v.text}" is not a date YYYY-MM-DD for the date question "${q.id}"`);
  if ((q.type === 'single_choice' || q.type === 'multiple_choice') && !q.options.some((o) => o.id === v.text)) {
    throw bad(`"${v.text}" is not an option of question "${q.id}"; its options: ${q.options.map((o) => o.id).join(', ')}`);
  }
  return { kind: 'text', text: v.text };
}

/** What a Style B page's `filteredTotal` sums over `answer_rollups`: one question's value keys. */
export interface AnswerRollupCount {
  questionId: string;
  valueKeys: string[];
}

/**
 * The `answer_rollups` value keys (migration 005, `response_answer_keys`: `''` per answer, an option id per chosen
 * option, the number of a numeric answer) whose counts add up to exactly the responses one answer clause keeps, or
 * undefined when the rollups cannot count it. Counted: answered (`!= null`, the key `''`); `=` and `in` on an option
 * of a choice question; `=`, `in` and the bounds on a rating or nps answer (the scale's values they keep). A
 * response answers a question at most once and holds an option at most once, so the keys' counts add up, except a
 * multiple-choice `in` of two options (one response may hold both): undefined, as are `= null`, `!=`, `~` and the
 * values of number, text, email and date answers. Call it only for a clause that compiled (its values are checked).
 */
export function answerRollupKeys(form: AnswerForm, clause: FilterClause): AnswerRollupCount | undefined {
  if (!isAnswerField(clause.field)) return undefined;
  const q = form.questions.find((x) => x.id === clause.field.slice(ANSWER_FIELD_PREFIX.length));
  if (q === undefined) return undefined;
  const keys = (valueKeys: Iterable<string>): AnswerRollupCount => ({ questionId: q.id, valueKeys: [...new Set(valueKeys)] });
  if (clause.op === '!=') return isNull(clause.values[0]!) ? keys(['']) : undefined;
  if (clause.op === '~' || clause.values.some(isNull)) return undefined;
  const texts = clause.values.map((v) => v.text);
  if (q.type === 'single_choice') return keys(texts);
  if (q.type === 'multiple_choice') return new Set(texts).size === 1 ? keys(texts) : undefined;
  const numbers = texts.map(Number);
  const listed = scaleValues(q, (x) => numbers.some((n) => meets(x, clause.op === 'in' ? '=' : clause.op, n)));
  return listed === undefined ? undefined : keys(listed.map(String));
}
