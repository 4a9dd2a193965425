/**
 * A Style B responses `filter` expression as Style A typed parameters (the scheme of
 * docs/migrating-between-styles.md, "Response filters"): `f = v` → `f=v`, `f != v` → `f_ne=v`,
 * `f in [..]` → `f_in` repeated, `f ~ v` → `f_contains=v`, `f = null` / `f != null` → `f_present=false|true`.
 * Parsed with the service's own parser (src/core/query/filter-parser.ts) and checked as Style B checks it
 * (src/core/query/filter.ts), so a filter Style B refuses is reported, never translated.
 */
import { EMAIL_EVENT_TYPES } from '../email-events/email-events.store';
import { snakeCase } from '../query/fields';
import { FilterSyntaxError, parseFilter, type FilterClause, type FilterValue } from '../query/filter-parser';
import { REFUSED_BY_B, Untranslatable, type QueryPairs } from './translate-types';

/** The Style B response filter fields and whether they compare as numbers (src/core/responses/responses.store.ts). */
const RESPONSE_FIELDS: ReadonlyMap<string, 'text' | 'number'> = new Map([
  ['id', 'text'],
  ['form_id', 'text'],
  ['score', 'number'],
  ['email_id', 'text'],
  ['row_id', 'text'],
  ['respondent_email', 'text'],
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
function valueText(type: 'text' | 'number', v: FilterValue, clause: FilterClause): string {
  if (type === 'text') return v.text;
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
function clauseParam(field: string, type: 'text' | 'number', clause: FilterClause): [string, string] {
  const v = clause.values[0]!;
  switch (clause.op) {
    case '=':
      return isNull(v) ? [`${field}_present`, 'false'] : [field, valueText(type, v, clause)];
    case '!=':
      return isNull(v) ? [`${field}_present`, 'true'] : [`${field}_ne`, valueText(type, v, clause)];
    default:
      if (type !== 'text') {
        throw new Untranslatable('query.filter', `${REFUSED_BY_B}: "~" (contains) applies to text fields; "${clause.field}" is a number.`);
      }
      // Contains "" holds for every present value (ILIKE '%%').
      return v.text === '' ? [`${field}_present`, 'true'] : [`${field}_contains`, v.text];
  }
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
  for (const clause of clausesOf(expression)) {
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
