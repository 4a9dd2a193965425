/**
 * Compiles parsed filter clauses (filter-parser.ts) to SQL over a list's whitelisted fields.
 * Typed comparison: number fields compare as numbers, booleans as booleans, text exactly;
 * `~` is a case-insensitive "contains" on text; `!=` keeps rows whose value is absent;
 * a bare `null` matches an absent value. Errors name the field, the value and the position.
 */
import { errors, type ErrorLocation } from '../errors';
import { lookupField, type ListField } from './fields';
import { COMPARISON_OPS, FilterSyntaxError, parseFilter, type FilterClause, type FilterValue } from './filter-parser';
import { joinSql, sql, type Sql } from './sql';

export interface FilterContext {
  fields: ReadonlyMap<string, ListField>;
  /** Fields outside the whitelist that the list compiles itself (responses: `answers.<question_id>`). */
  extra?: ExtraFields;
  /** The parameter name used in error details (`filter`). */
  param?: string;
  location?: ErrorLocation;
}

/**
 * A family of fields a list names by pattern rather than in its whitelist (responses: `answers.<question_id>`,
 * src/core/responses/answer-filter.ts): `compile` answers the SQL of a clause whose field `matches`.
 */
export interface ExtraFields {
  matches(field: string): boolean;
  /** @throws AppError validation_error naming `param` at `location` for a clause that does not fit. */
  compile(clause: FilterClause, param: string, location: ErrorLocation): Sql;
  /** How the error for an unknown field lists the family (`answers.<question_id>`). */
  label: string;
}

/** Several families as one (`answers.<question_id>` and `topic` on responses): the first that matches a field compiles it. */
export function combineExtraFields(families: readonly ExtraFields[]): ExtraFields {
  return {
    label: families.map((f) => f.label).join(', '),
    matches: (field) => families.some((f) => f.matches(field)),
    compile(clause, param, location) {
      return families.find((f) => f.matches(clause.field))!.compile(clause, param, location);
    },
  };
}

/** A compiled filter: its clauses (for callers that inspect them) and the ANDed SQL condition. */
export interface CompiledFilter {
  clauses: FilterClause[];
  where: Sql;
}

/** ` (position N)` for a clause of an expression; nothing for a typed parameter's clause (position 0). */
export const positionOf = (clause: FilterClause) => (clause.position > 0 ? ` (position ${clause.position})` : '');

function typedValue(field: ListField, v: FilterValue, clause: FilterClause, ctx: FilterContext): unknown {
  const param = ctx.param ?? 'filter';
  const bad = (what: string) => errors.invalid(ctx.location ?? 'query', param, `\`${param}\`: ${what}${positionOf(clause)}.`);
  switch (field.type) {
    case 'number': {
      const n = Number(v.text);
      if (v.text.trim() === '' || !Number.isFinite(n)) throw bad(`"${v.text}" is not a number for field "${clause.field}"`);
      return n;
    }
    case 'boolean': {
      const t = v.text.toLowerCase();
      if (t !== 'true' && t !== 'false') throw bad(`"${v.text}" is not true or false for field "${clause.field}"`);
      return t === 'true';
    }
    default:
      if (field.values !== undefined && !field.values.includes(v.text)) {
        throw bad(`"${v.text}" is not a value of field "${clause.field}", which takes ${field.values.join(', ')}`);
      }
      return v.text;
  }
}

/** `text` as a LIKE pattern that matches it literally: `%`, `_` and the backslash escaped by a backslash (LIKE's default escape). */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * One clause as SQL over the whitelisted fields (the one place a filter condition becomes SQL; typed-filter.ts
 * builds clauses for Style A's typed parameters and compiles them here too), or over the list's `extra` fields,
 * whose own module compiles them.
 * @throws AppError validation_error naming `ctx.param` for an unknown field, `~` on a non-text field, a comparison
 *   on a whitelisted field or a bad value.
 */
export function compileClause(clause: FilterClause, ctx: FilterContext): Sql {
  const param = ctx.param ?? 'filter';
  const location = ctx.location ?? 'query';
  if (ctx.extra?.matches(clause.field)) return ctx.extra.compile(clause, param, location);
  const field = lookupField(ctx.fields, clause.field);
  if (!field) {
    const known = [...ctx.fields.keys(), ...(ctx.extra ? [ctx.extra.label] : [])].join(', ');
    throw errors.invalid(location, param, `\`${param}\`: unknown field "${clause.field}" at position ${clause.position}; filterable fields: ${known}.`);
  }
  if (COMPARISON_OPS.includes(clause.op)) {
    const which = ctx.extra ? `; comparisons apply to ${ctx.extra.label}` : '';
    throw errors.invalid(
      location,
      param,
      `\`${param}\`: "${clause.op}" does not apply to "${clause.field}", which takes =, !=, ~ and in${which}${positionOf(clause)}.`,
    );
  }
  const e = field.expr;
  const isNull = (v: FilterValue) => !v.quoted && v.text.toLowerCase() === 'null';
  switch (clause.op) {
    case '=':
    case '!=': {
      const v = clause.values[0]!;
      if (isNull(v)) return sql(`(${e.sql}) IS ${clause.op === '=' ? '' : 'NOT '}NULL`, ...e.bindings);
      const value = typedValue(field, v, clause, ctx);
      return clause.op === '=' ? sql(`(${e.sql}) = ?`, ...e.bindings, value) : sql(`(${e.sql}) IS DISTINCT FROM ?`, ...e.bindings, value);
    }
    case '~': {
      if (field.values !== undefined) {
        throw errors.invalid(
          location,
          param,
          `\`${param}\`: "~" (contains) does not apply to "${clause.field}", which takes =, != and in${positionOf(clause)}.`,
        );
      }
      if (field.type !== 'text') {
        throw errors.invalid(
          location,
          param,
          `\`${param}\`: "~" (contains) applies to text fields; "${clause.field}" is a ${field.type}${positionOf(clause)}.`,
        );
      }
      return sql(`(${e.sql}) ILIKE ?`, ...e.bindings, `%${escapeLike(clause.values[0]!.text)}%`);
    }
    case 'in': {
      const values = clause.values.filter((v) => !isNull(v)).map((v) => typedValue(field, v, clause, ctx));
      const parts: Sql[] = [];
      if (values.length > 0) parts.push(sql(`(${e.sql}) IN (${values.map(() => '?').join(', ')})`, ...e.bindings, ...values));
      if (clause.values.some(isNull)) parts.push(sql(`(${e.sql}) IS NULL`, ...e.bindings));
      const joined = joinSql(parts, ' OR ');
      return sql(`(${joined.sql})`, ...joined.bindings);
    }
    default:
      // The comparisons were refused above; a FilterOp added later must say here what it means.
      throw new Error(`unhandled filter operator ${clause.op}`);
  }
}

/**
 * Parses and compiles a filter expression; clauses are ANDed.
 * @throws AppError validation_error (query `filter`) for syntax errors, unknown fields or operators, bad values.
 */
export function compileFilter(expression: string, ctx: FilterContext): CompiledFilter {
  let clauses: FilterClause[];
  try {
    clauses = parseFilter(expression);
  } catch (e) {
    if (e instanceof FilterSyntaxError) {
      throw errors.invalid(ctx.location ?? 'query', ctx.param ?? 'filter', `\`${ctx.param ?? 'filter'}\`: ${e.message}.`);
    }
    throw e;
  }
  const where = joinSql(
    clauses.map((c) => compileClause(c, ctx)),
    ' AND ',
  );
  return { clauses, where };
}
