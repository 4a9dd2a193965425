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
 * `responses_answers_idx` serves; contains and the comparisons look into the answer of that question
 * (`jsonb_array_elements`), after the same containment test that it was answered.
 */
import { errors } from '../errors';
import type { FormQuestion, QuestionType } from '../forms/form-model';
import { isCalendarDate } from '../query/dates';
import { escapeLike, positionOf, type ExtraFields } from '../query/filter';
import { COMPARISON_OPS, type FilterClause, type FilterValue } from '../query/filter-parser';
import { joinSql, sql, type Sql } from '../query/sql';

/** The prefix of an answer field: `answers.q_plan`. */
export const ANSWER_FIELD_PREFIX = 'answers.';

/** What a filter needs of a question. */
export type AnswerQuestion = Pick<FormQuestion, 'id' | 'type' | 'options'>;

/** The form a list is narrowed to, with its questions. */
export interface AnswerForm {
  id: string;
  questions: readonly AnswerQuestion[];
}

const NUMERIC: ReadonlySet<QuestionType> = new Set(['number', 'rating', 'nps']);
const ORDERED: ReadonlySet<QuestionType> = new Set(['number', 'rating', 'nps', 'date']);
const TEXTUAL: ReadonlySet<QuestionType> = new Set(['text', 'email']);

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
      const joined = joinSql(parts, ' OR ');
      return sql(`(${joined.sql})`, ...joined.bindings);
    }
    case '~':
      return answerWhere(q.id, sql(`jsonb_typeof(e -> 'value') = 'string' AND (e ->> 'value') ILIKE ?`, `%${escapeLike(v.text)}%`));
    default: {
      if (isNull(v)) throw bad(`"${clause.op}" needs a value, not null, for "${clause.field}"`);
      const t = typedValue(q, v, bad);
      // Dates compare as text in the "C" collation: YYYY-MM-DD orders by day there, whatever the database's locale.
      const cond =
        t.kind === 'number'
          ? sql(`jsonb_typeof(e -> 'value') = 'number' AND (e ->> 'value')::numeric ${clause.op} ?`, t.n)
          : sql(`jsonb_typeof(e -> 'value') = 'string' AND (e ->> 'value') COLLATE "C" ${clause.op} ?`, t.text);
      return answerWhere(q.id, cond);
    }
  }
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
