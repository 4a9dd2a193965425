/**
 * Typed filter parameters: the Style A spelling of the `filter` language (docs/migrating-between-styles.md,
 * "Response filters"). For a filter field `f`:
 *
 *   f=v             → f = v          f_ne=v        → f != v  (absent values kept)
 *   f_in=v (repeat) → f in [v, …]    f_contains=v  → f ~ v   (text fields only)
 *   f_present=true  → f != null      f_present=false → f = null
 *
 * Every parameter may repeat: the values of `f_in` form one list, every other parameter adds one clause
 * per value; clauses are ANDed. The parameters become the very FilterClauses the parser makes of the
 * equivalent expression and are compiled by filter.ts, so both spellings answer alike by construction.
 * A typed value is always text (quoted): `email_id=null` is the text "null"; absence is `_present=false`.
 *
 * Keyed parameters say the same of a family of fields `p.<key>` (responses: `answers.<question_id>`, the
 * parameters `answer`, `answer_ne`, …; docs/api-rules.md, "Filters on answers"): each value is `<key>:<value>`
 * and names its field, so one parameter serves every key. They add the comparisons:
 *
 *   answer=k:v → answers.k = v      answer_gte=k:v → answers.k >= v   (also _gt, _lte, _lt)
 *   answer_in=k:v (repeat)          → answers.k in [v, …]: the values of one key form one list;
 *   answer_in=k (no ":")            → adds null to k's list ("or not answered")
 *   answer_present=k:true|false     → answers.k != null / answers.k = null
 *
 * The key ends at the first ":"; a key holding ":" (or starting with a quote) is double-quoted, as a filter
 * value is: `answer="q:1":v` (`\"` and `\\` inside).
 */
import { errors } from '../errors';
import type { ListField } from './fields';
import { compileClause, type CompiledFilter, type ExtraFields } from './filter';
import type { FilterClause, FilterOp } from './filter-parser';
import { joinSql } from './sql';

export type TypedSuffix = '' | '_ne' | '_in' | '_contains' | '_present' | '_gt' | '_gte' | '_lt' | '_lte';

/** One typed parameter: its name, the filter field and the operator it stands for. */
export interface TypedFilterParam {
  name: string;
  /** The filter field; for a keyed parameter the family's prefix (`answers`), the value naming the rest. */
  field: string;
  suffix: TypedSuffix;
  /** Keyed parameters only: what the key of a value is, for messages (`question_id`). */
  key?: string;
}

const OPS: Record<Exclude<TypedSuffix, '_present'>, FilterOp> = {
  '': '=',
  _ne: '!=',
  _in: 'in',
  _contains: '~',
  _gt: '>',
  _gte: '>=',
  _lt: '<',
  _lte: '<=',
};

/**
 * The typed parameters of a list's filter fields, in field order: every suffix for every field, except
 * `_contains` on non-text fields and on fields with a closed set of values (`~` is a 400 there in the filter language too) and the names in `omit`
 * (parameters the list already has under that name, e.g. `form_id`).
 */
export function typedFilterParams(fields: ReadonlyMap<string, ListField>, omit: readonly string[] = []): TypedFilterParam[] {
  const params: TypedFilterParam[] = [];
  for (const field of fields.values()) {
    const contains = field.type === 'text' && field.values === undefined;
    const suffixes: TypedSuffix[] = contains ? ['', '_ne', '_in', '_contains', '_present'] : ['', '_ne', '_in', '_present'];
    for (const suffix of suffixes) {
      const name = `${field.name}${suffix}`;
      if (!omit.includes(name)) params.push({ name, field: field.name, suffix });
    }
  }
  return params;
}

/**
 * The keyed parameters of the field family `<prefix>.<key>`: `name` with every suffix (`answer`, `answer_ne`, …,
 * `answer_lte`), `key` naming what a value's key is in messages.
 */
export function keyedFilterParams(name: string, prefix: string, key: string): TypedFilterParam[] {
  const suffixes: TypedSuffix[] = ['', '_ne', '_in', '_contains', '_present', '_gt', '_gte', '_lt', '_lte'];
  return suffixes.map((suffix) => ({ name: `${name}${suffix}`, field: prefix, suffix, key }));
}

/**
 * A keyed value `<key>:<value>` split at the first ":" (a double-quoted key may hold one); `value` is undefined
 * when there is no ":".
 * @throws AppError validation_error naming the parameter for an empty or unterminated key.
 */
export function splitKeyed(param: TypedFilterParam, raw: string): { key: string; value: string | undefined } {
  const bad = (why: string) =>
    errors.invalid('query', param.name, `\`${param.name}\` must be <${param.key ?? 'key'}>:<value>${why}; got ${JSON.stringify(raw)}.`);
  let key: string;
  let rest: string;
  if (raw.startsWith('"')) {
    let i = 1;
    key = '';
    while (i < raw.length && raw[i] !== '"') {
      if (raw[i] === '\\' && (raw[i + 1] === '"' || raw[i + 1] === '\\')) i++;
      key += raw[i];
      i++;
    }
    if (i >= raw.length) throw bad(' (the quoted key has no closing quote)');
    rest = raw.slice(i + 1);
    if (rest !== '' && !rest.startsWith(':')) throw bad(' (a ":" must follow the quoted key)');
  } else {
    const colon = raw.indexOf(':');
    key = colon < 0 ? raw : raw.slice(0, colon);
    rest = colon < 0 ? '' : raw.slice(colon);
  }
  if (key === '') throw bad('');
  return { key, value: rest === '' ? undefined : rest.slice(1) };
}

/** The clauses of a keyed parameter's values: `_in` values one list per key (in first-seen order), others one clause each. */
function keyedClauses(param: TypedFilterParam, values: readonly string[]): FilterClause[] {
  const field = (key: string) => `${param.field}.${key}`;
  const need = (v: { key: string; value: string | undefined }, raw: string, shape: string): string => {
    if (v.value === undefined || (param.suffix === '_present' && v.value !== 'true' && v.value !== 'false')) {
      throw errors.invalid('query', param.name, `\`${param.name}\` must be ${shape}; got ${JSON.stringify(raw)}.`);
    }
    return v.value;
  };
  if (param.suffix === '_in') {
    const lists = new Map<string, FilterClause>();
    for (const raw of values) {
      const v = splitKeyed(param, raw);
      const clause = lists.get(v.key) ?? { field: field(v.key), op: 'in' as const, values: [], position: 0 };
      clause.values.push(v.value === undefined ? { text: 'null', quoted: false } : { text: v.value, quoted: true });
      lists.set(v.key, clause);
    }
    return [...lists.values()];
  }
  const key = param.key ?? 'key';
  return values.map((raw) => {
    const v = splitKeyed(param, raw);
    if (param.suffix === '_present') {
      const present = need(v, raw, `<${key}>:true or <${key}>:false`) === 'true';
      return { field: field(v.key), op: present ? '!=' : '=', values: [{ text: 'null', quoted: false }], position: 0 };
    }
    const text = need(v, raw, `<${key}>:<value>`);
    return { field: field(v.key), op: OPS[param.suffix as Exclude<TypedSuffix, '_present'>], values: [{ text, quoted: true }], position: 0 };
  });
}

/**
 * The clauses of one typed parameter's values (position 0: a parameter has no position).
 * @throws AppError validation_error naming the parameter when a `_present` value is not true or false, or a keyed
 *   value is not `<key>:<value>`.
 */
export function typedClauses(param: TypedFilterParam, values: readonly string[]): FilterClause[] {
  if (param.key !== undefined) return keyedClauses(param, values);
  const clause = (op: FilterOp, texts: readonly string[], quoted = true): FilterClause => ({
    field: param.field,
    op,
    values: texts.map((text) => ({ text, quoted })),
    position: 0,
  });
  if (param.suffix === '_in') return values.length === 0 ? [] : [clause('in', values)];
  if (param.suffix !== '_present') return values.map((v) => clause(OPS[param.suffix as Exclude<TypedSuffix, '_present'>], [v]));
  return values.map((v) => {
    if (v !== 'true' && v !== 'false') throw errors.invalid('query', param.name, `\`${param.name}\` must be true or false; got "${v}".`);
    // A bare null: `f != null` (present) or `f = null` (absent), exactly as the filter language says it.
    return clause(v === 'true' ? '!=' : '=', ['null'], false);
  });
}

/**
 * Compiles the typed parameters a request gave (`read(name)`: its values, undefined when absent) over the
 * list's fields (and its `extra` fields, for keyed parameters); clauses are ANDed. Errors name the parameter
 * (`score_in`, `answer_gte`), never `filter`.
 * @returns undefined when no typed parameter was given.
 * @throws AppError validation_error naming the parameter for a value of the wrong type.
 */
export function compileTypedFilter(
  fields: ReadonlyMap<string, ListField>,
  params: readonly TypedFilterParam[],
  read: (name: string) => readonly string[] | undefined,
  extra?: ExtraFields,
): CompiledFilter | undefined {
  const clauses: FilterClause[] = [];
  const parts = [];
  for (const param of params) {
    const values = read(param.name);
    if (values === undefined) continue;
    for (const c of typedClauses(param, values)) {
      clauses.push(c);
      parts.push(compileClause(c, { fields, extra, param: param.name }));
    }
  }
  return clauses.length === 0 ? undefined : { clauses, where: joinSql(parts, ' AND ') };
}
