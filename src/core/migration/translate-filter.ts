/**
 * A Style B responses `filter` expression as Style A typed parameters (the scheme of
 * docs/migrating-between-styles.md, "Response filters"): `f = v` → `f=v`, `f != v` → `f_ne=v`,
 * `f in [..]` → `f_in` repeated, `f ~ v` → `f_contains=v`, `f = null` / `f != null` → `f_present=false|true`
 * (`topic = pricing` → `topic=pricing`: the same names or ids, which Style A resolves as Style B does);
 * an answer field `answers.q OP v` → `answer<suffix>=q:v` (docs/api-rules.md, "Filters on answers"), value for
 * value, whatever the question's type: Style A compiles both with the same code, against the same form.
 * Parsed with the service's own parser (src/core/query/filter-parser.ts) and checked as Style B checks it
 * (src/core/query/filter.ts), so a filter Style B refuses is reported, never translated.
 */
import { EMAIL_EVENT_TYPES } from '../email-events/email-events.store';
import { snakeCase } from '../query/fields';
import { ANSWER_FIELD_PREFIX, isAnswerField } from '../responses/answer-filter';
import { SENTIMENT_LABELS } from '../responses/sentiment-labels';
import { FilterSyntaxError, parseFilter, type FilterClause, type FilterValue } from '../query/filter-parser';
import { REFUSED_BY_B, Untranslatable, type QueryPairs } from './translate-types';

/**
 * How a response filter field's values read: text, a number, one of the sentiment labels (`label`: a closed set,
 * no `~`), or a topic's id or name (`topic`: checked by Style A against the workspace's topics, no `~`).
 */
type FieldKind = 'text' | 'number' | 'label' | 'topic';

/** The Style B response filter fields and how they compare (src/core/responses/responses.store.ts). */
const RESPONSE_FIELDS: ReadonlyMap<string, FieldKind> = new Map([
  ['id', 'text'],
  ['form_id', 'text'],
  ['score', 'number'],
  ['email_id', 'text'],
  ['row_id', 'text'],
  ['respondent_email', 'text'],
  ['sentiment', 'label'],
  ['topic', 'topic'],
]);

/** Fields a response always has: `in [v, null]` is `in [v]` there. */
const NEVER_ABSENT = new Set(['id', 'form_id', 'score']);

/** Parses `filter` as Style B does; a syntax error is a request Style B refuses. */
export function clausesOf(expression: string): FilterClause[] {
  try {
    return parseFilter(expression);
  } catch (e) {
    if (e instanceof FilterSyntaxError) throw new Untranslatable('query.filter', `${REFUSED_BY_B}: \`filter\`: ${e.message}.`);
    throw e;
  }
}

const isNull = (v: FilterValue) => !v.quoted && v.text.toLowerCase() === 'null';

/** A value as Style A reads it: numbers in their plain spelling (`9.0` → `9`), like Style B's typed compare. */
function valueText(type: FieldKind, v: FilterValue, clause: FilterClause): string {
  if (type === 'text' || type === 'topic') return v.text;
  if (type === 'label') {
    if ((SENTIMENT_LABELS as readonly string[]).includes(v.text)) return v.text;
    throw new Untranslatable(
      'query.filter',
      `${REFUSED_BY_B}: "${v.text}" is not a value of field "${clause.field}", which takes ${SENTIMENT_LABELS.join(', ')}.`,
    );
  }
  const n = Number(v.text);
  if (v.text.trim() === '' || !Number.isFinite(n)) {
    throw new Untranslatable('query.filter', `${REFUSED_BY_B}: "${v.text}" is not a number for field "${clause.field}".`);
  }
  return String(n);
}

/** An `in` list: its non-null values (as Style A spells them) and whether it holds a bare null. */
interface InList {
  values: string[];
  withNull: boolean;
}

/** Linear in both lists (a Set, not `includes`, which made two long lists quadratic). */
function intersect(a: InList, b: InList): InList {
  const inB = new Set(b.values);
  return { values: a.values.filter((v) => inB.has(v)), withNull: a.withNull && b.withNull };
}

/** The parameters of one field's `in` lists (several lists are ANDed: their intersection). */
function inParams(field: string, list: InList, some: string): QueryPairs {
  const values = [...new Set(list.values)];
  if (values.length === 0 && !list.withNull)
    return [
      [`${field}_in`, some],
      [`${field}_ne`, some],
    ]; // matches nothing, as B does
  if (values.length === 0) return [[`${field}_present`, 'false']];
  if (list.withNull) {
    throw new Untranslatable(
      'query.filter',
      `an in list holding null and values: \`${field} in [..., null]\` keeps items whose ${field} is one of the values or absent; Style A parameters are ANDed and cannot say "or absent".`,
    );
  }
  return values.map((v) => [`${field}_in`, v]);
}

/** One non-`in` clause as its Style A parameter. */
function clauseParam(field: string, type: FieldKind, clause: FilterClause): [string, string] {
  const v = clause.values[0]!;
  switch (clause.op) {
    case '=':
      return isNull(v) ? [`${field}_present`, 'false'] : [field, valueText(type, v, clause)];
    case '!=':
      return isNull(v) ? [`${field}_present`, 'true'] : [`${field}_ne`, valueText(type, v, clause)];
    default:
      if (type === 'label' || type === 'topic') {
        throw new Untranslatable('query.filter', `${REFUSED_BY_B}: "~" (contains) does not apply to "${clause.field}", which takes =, != and in.`);
      }
      if (type !== 'text') {
        throw new Untranslatable('query.filter', `${REFUSED_BY_B}: "~" (contains) applies to text fields; "${clause.field}" is a number.`);
      }
      // Contains "" holds for every present value (ILIKE '%%').
      return v.text === '' ? [`${field}_present`, 'true'] : [`${field}_contains`, v.text];
  }
}

/** The Style A parameter of each answer-field operator but `in` (the keyed parameters of src/core/query/typed-filter.ts). */
const ANSWER_PARAM: Record<string, string> = {
  '=': 'answer',
  '!=': 'answer_ne',
  '~': 'answer_contains',
  '>': 'answer_gt',
  '>=': 'answer_gte',
  '<': 'answer_lt',
  '<=': 'answer_lte',
};

/** A question id as the key of a keyed value: double-quoted when it holds a ":" or starts with a quote. */
function answerKey(questionId: string): string {
  return questionId.includes(':') || questionId.startsWith('"') ? `"${questionId.replace(/[\\"]/g, (c) => `\\${c}`)}"` : questionId;
}

/**
 * One answer clause as its Style A parameters: `answers.q = v` → `answer=q:v`, `!= null` / `= null` →
 * `answer_present=q:true|false`, `in [v, null]` → `answer_in=q:v&answer_in=q`.
 * @param lists the questions whose `in` list is already taken (a second one cannot translate).
 * @throws Untranslatable for a comparison with null (Style B refuses it) or a second `in` list on one question.
 */
function answerParams(clause: FilterClause, lists: Set<string>): QueryPairs {
  const key = answerKey(clause.field.slice(ANSWER_FIELD_PREFIX.length));
  const v = clause.values[0]!;
  if (clause.op === 'in') {
    if (lists.has(key)) {
      throw new Untranslatable(
        'query.filter',
        `two in lists on one answer: Style A's answer_in values of one question form one list, and "${clause.field}" has two; their intersection would change the meaning for a multiple-choice answer (it holds several options). Join them into one list or split the request.`,
      );
    }
    lists.add(key);
    return clause.values.map((x) => ['answer_in', isNull(x) ? key : `${key}:${x.text}`]);
  }
  if (isNull(v) && (clause.op === '=' || clause.op === '!=')) return [['answer_present', `${key}:${clause.op === '!=' ? 'true' : 'false'}`]];
  if (isNull(v) && clause.op !== '~') {
    throw new Untranslatable('query.filter', `${REFUSED_BY_B}: "${clause.op}" needs a value, not null, for "${clause.field}".`);
  }
  return [[ANSWER_PARAM[clause.op]!, `${key}:${v.text}`]];
}

/**
 * The Style A parameters of a Style B responses filter, in the order of the clauses.
 * @throws Untranslatable naming `query.filter` for a filter Style B refuses or one Style A cannot say.
 */
export function responseFilterParams(expression: string, formIdGiven: boolean): QueryPairs {
  const out: QueryPairs = [];
  const lists = new Map<string, { list: InList; some: string }>();
  const addList = (field: string, list: InList) => {
    const seen = lists.get(field);
    lists.set(field, seen ? { list: intersect(seen.list, list), some: seen.some } : { list, some: list.values[0] ?? '0' });
  };
  // Style A takes `form_id` once: a further `form_id = v` is the one-value list `form_id_in=v`.
  let formIdTaken = formIdGiven;
  const answerLists = new Set<string>();
  let answerField: string | undefined;
  for (const clause of clausesOf(expression)) {
    if (isAnswerField(clause.field)) {
      out.push(...answerParams(clause, answerLists));
      answerField ??= clause.field;
      continue;
    }
    const field = RESPONSE_FIELDS.has(clause.field) ? clause.field : snakeCase(clause.field);
    const type = RESPONSE_FIELDS.get(field);
    if (type === undefined) {
      const known = [...RESPONSE_FIELDS.keys()].join(', ');
      throw new Untranslatable('query.filter', `${REFUSED_BY_B}: unknown field "${clause.field}"; filterable fields: ${known}.`);
    }
    if (field === 'form_id' && clause.op === '=' && !isNull(clause.values[0]!)) {
      // `form_id=` (empty) is a 400 in Style A: the empty text goes as the one-value list `form_id_in=`.
      if (formIdTaken || clause.values[0]!.text === '') addList(field, { values: [clause.values[0]!.text], withNull: false });
      else out.push([field, clause.values[0]!.text]);
      formIdTaken ||= clause.values[0]!.text !== '';
    } else if (clause.op !== 'in') {
      out.push(clauseParam(field, type, clause));
    } else {
      const values = clause.values.filter((v) => !isNull(v)).map((v) => valueText(type, v, clause));
      const withNull = clause.values.some(isNull) && (values.length === 0 || !NEVER_ABSENT.has(field));
      addList(field, { values, withNull });
    }
  }
  for (const [field, { list, some }] of lists) out.push(...inParams(field, list, some));
  // The form the answers' questions belong to: the `form_id` parameter or a `form_id = v` condition, as Style B reads it.
  if (answerField !== undefined && !formIdTaken) {
    throw new Untranslatable('query.filter', `${REFUSED_BY_B}: a filter on "${answerField}" needs \`form_id\`: question ids belong to a form.`);
  }
  return out;
}

/** Style B email event filter fields (src/core/email-events/email-events.store.ts) and their Style A parameter. */
const EVENT_FIELDS: ReadonlyMap<string, string | null> = new Map([
  ['event_type', 'type'],
  ['email_id', 'email_id'],
  ['email', null],
  ['form_id', null],
  ['row_id', null],
  ['flow_id', null],
]);

/**
 * The Style A parameters of a Style B email events filter: only `event_type = v` (→ `type`) and
 * `email_id = v` have one.
 * @throws Untranslatable naming `query.filter` for any other condition.
 */
export function eventFilterParams(expression: string): QueryPairs {
  const out: QueryPairs = [];
  for (const clause of clausesOf(expression)) {
    const field = EVENT_FIELDS.has(clause.field) ? clause.field : snakeCase(clause.field);
    if (!EVENT_FIELDS.has(field)) {
      const known = [...EVENT_FIELDS.keys()].join(', ');
      throw new Untranslatable('query.filter', `${REFUSED_BY_B}: unknown field "${clause.field}"; filterable fields: ${known}.`);
    }
    const target = EVENT_FIELDS.get(field);
    const v = clause.values[0]!;
    if (target === null || target === undefined || clause.op !== '=' || isNull(v)) {
      throw new Untranslatable(
        'query.filter',
        `an email event filter condition other than event_type = v or email_id = v: Style A email event lists take only type, email_id and recipient (recipient ignores case, email = v does not); "${clause.field} ${clause.op} …" has no equivalent.`,
      );
    }
    // Style A answers 400 to an empty `type=`/`email_id=` or an unknown `type`, where Style B's filter answers no events.
    if (v.text === '' || (target === 'type' && !(EMAIL_EVENT_TYPES as readonly string[]).includes(v.text))) {
      throw new Untranslatable(
        'query.filter',
        `an email event filter condition other than event_type = v or email_id = v: "${clause.field} = ${JSON.stringify(v.text)}" is ${v.text === '' ? 'an empty value' : 'not a known event type'}, which Style A's \`${target}\` refuses.`,
      );
    }
    out.push([target, v.text]);
  }
  return out;
}
