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
 */
import { errors } from '../errors';
import type { ListField } from './fields';
import { compileClause, type CompiledFilter } from './filter';
import type { FilterClause, FilterOp } from './filter-parser';
import { joinSql } from './sql';

export type TypedSuffix = '' | '_ne' | '_in' | '_contains' | '_present';

/** One typed parameter: its name, the filter field and the operator it stands for. */
export interface TypedFilterParam {
  name: string;
  field: string;
  suffix: TypedSuffix;
}

const OPS: Record<Exclude<TypedSuffix, '_present'>, FilterOp> = { '': '=', _ne: '!=', _in: 'in', _contains: '~' };

/**
 * The typed parameters of a list's filter fields, in field order: every suffix for every field, except
 * `_contains` on non-text fields (`~` is a 400 there in the filter language too) and the names in `omit`
 * (parameters the list already has under that name, e.g. `form_id`).
 */
export function typedFilterParams(fields: ReadonlyMap<string, ListField>, omit: readonly string[] = []): TypedFilterParam[] {
  const params: TypedFilterParam[] = [];
  for (const field of fields.values()) {
    const suffixes: TypedSuffix[] = field.type === 'text' ? ['', '_ne', '_in', '_contains', '_present'] : ['', '_ne', '_in', '_present'];
    for (const suffix of suffixes) {
      const name = `${field.name}${suffix}`;
      if (!omit.includes(name)) params.push({ name, field: field.name, suffix });
    }
  }
  return params;
}

/**
 * The clauses of one typed parameter's values (position 0: a parameter has no position).
 * @throws AppError validation_error naming the parameter when a `_present` value is not true or false.
 */
export function typedClauses(param: TypedFilterParam, values: readonly string[]): FilterClause[] {
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
 * list's fields; clauses are ANDed. Errors name the parameter (`score_in`), never `filter`.
 * @returns undefined when no typed parameter was given.
 * @throws AppError validation_error naming the parameter for a value of the wrong type.
 */
export function compileTypedFilter(
  fields: ReadonlyMap<string, ListField>,
  params: readonly TypedFilterParam[],
  read: (name: string) => readonly string[] | undefined,
): CompiledFilter | undefined {
  const clauses: FilterClause[] = [];
  const parts = [];
  for (const param of params) {
    const values = read(param.name);
    if (values === undefined) continue;
    for (const c of typedClauses(param, values)) {
      clauses.push(c);
      parts.push(compileClause(c, { fields, param: param.name }));
    }
  }
  return clauses.length === 0 ? undefined : { clauses, where: joinSql(parts, ' AND ') };
}
