/**
 * Keyset (cursor) pagination, Style A (API document "Common query parameters"; docs/api-rules.md, "Lists and pages").
 * A cursor is opaque base64url JSON: the list it belongs to, the order, the sort key of the row it
 * points at (exact values as stored: timestamps are millisecond-precise) and a direction.
 * `n` continues after that row; `p` goes back to the rows before it.
 */
import { errors } from '../errors';
import { inDateRange } from './dates';
import type { SortKey } from './fields';
import { joinSql, sql, type Sql } from './sql';

export interface CursorPayload {
  /** List identity, e.g. `responses:ws_1` or `rows:ws_1:tbl_2`. */
  l: string;
  /** Sort signature (see sortSignature). */
  s: string;
  /** Sort key values of the row, tie-breaker last. */
  k: unknown[];
  d: 'n' | 'p';
}

export function encodeCursor(p: CursorPayload): string {
  return Buffer.from(JSON.stringify(p), 'utf8').toString('base64url');
}

/**
 * Decodes a cursor and checks it belongs to this list and order.
 * @throws AppError validation_error (query `cursor`) when malformed or from another list or sort.
 */
export function decodeCursor(raw: string, list: string, signature: string, keys: readonly SortKey[]): CursorPayload {
  let p: CursorPayload | undefined;
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(raw)) throw new Error('not base64url');
    p = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as CursorPayload;
  } catch {
    throw errors.invalid('query', 'cursor', '`cursor` is malformed; pass the value from links.next or links.prev unchanged.');
  }
  const shapeOk =
    p !== null &&
    typeof p === 'object' &&
    typeof p.l === 'string' &&
    typeof p.s === 'string' &&
    Array.isArray(p.k) &&
    p.k.length === keys.length &&
    (p.d === 'n' || p.d === 'p');
  if (!shapeOk) {
    throw errors.invalid('query', 'cursor', '`cursor` is malformed; pass the value from links.next or links.prev unchanged.');
  }
  if (p.l !== list) throw errors.invalid('query', 'cursor', '`cursor` belongs to another list.');
  if (p.s !== signature) {
    throw errors.invalid('query', 'cursor', `\`cursor\` was made for sort "${p.s}"; this request sorts by "${signature}".`);
  }
  // A cursor that decodes but holds a value of the wrong type must not reach SQL (it would be a 500).
  if (!p.k.every((v, i) => valueFits(keys[i]!, v))) {
    throw errors.invalid('query', 'cursor', '`cursor` is malformed; pass the value from links.next or links.prev unchanged.');
  }
  return p;
}

const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** Whether a cursor value can stand for this sort key (cursors carry values as the database returned them). */
function valueFits(key: SortKey, v: unknown): boolean {
  if (v === null) return key.field.nullable;
  switch (key.field.type) {
    case 'timestamp':
      return typeof v === 'string' && ISO_TIMESTAMP.test(v) && inDateRange(Date.parse(v));
    case 'number':
      // pg returns numeric (cast JSON columns) as strings, double precision as numbers.
      return (typeof v === 'number' && Number.isFinite(v)) || (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)));
    case 'boolean':
      return typeof v === 'boolean';
    default:
      return typeof v === 'string';
  }
}

type Towards = 'after' | 'before';

function strictly(key: SortKey, value: unknown, towards: Towards): Sql {
  const { expr, nullable } = key.field;
  // NULLs sort after every value in both directions (ORDER BY … NULLS LAST).
  const forward = (key.dir === 'asc') === (towards === 'after');
  const op = forward ? '>' : '<';
  if (!nullable) return sql(`(${expr.sql}) ${op} ?`, ...expr.bindings, value);
  if (value === null) return towards === 'after' ? sql('false') : sql(`(${expr.sql}) IS NOT NULL`, ...expr.bindings);
  return towards === 'after'
    ? sql(`((${expr.sql}) ${op} ? OR (${expr.sql}) IS NULL)`, ...expr.bindings, value, ...expr.bindings)
    : sql(`(${expr.sql}) ${op} ?`, ...expr.bindings, value);
}

function equal(key: SortKey, value: unknown): Sql {
  const { expr } = key.field;
  return value === null ? sql(`(${expr.sql}) IS NULL`, ...expr.bindings) : sql(`(${expr.sql}) = ?`, ...expr.bindings, value);
}

/**
 * The WHERE condition selecting rows strictly after (or before) the row whose sort key is `values`.
 * When every key has one direction and no NULLs it is a row comparison `(a, b) < (?, ?)`, which
 * PostgreSQL answers with a single index range scan.
 */
export function keysetCondition(keys: readonly SortKey[], values: readonly unknown[], towards: Towards): Sql {
  const sameDir = keys.every((k) => k.dir === keys[0]!.dir);
  const noNulls = keys.every((k, i) => !k.field.nullable && values[i] !== null);
  if (sameDir && noNulls) {
    const forward = (keys[0]!.dir === 'asc') === (towards === 'after');
    const lhs = joinSql(
      keys.map((k) => k.field.expr),
      ', ',
    );
    return sql(`(${lhs.sql}) ${forward ? '>' : '<'} (${keys.map(() => '?').join(', ')})`, ...lhs.bindings, ...values);
  }
  const ors: Sql[] = keys.map((key, i) => {
    const eqs = keys.slice(0, i).map((k, j) => equal(k, values[j]));
    return joinSql([...eqs, strictly(key, values[i], towards)], ' AND ');
  });
  const joined = joinSql(
    ors.map((o) => sql(`(${o.sql})`, ...o.bindings)),
    ' OR ',
  );
  return sql(`(${joined.sql})`, ...joined.bindings);
}

/** ORDER BY for the keys (reversed for backward pages); NULLs after values, whatever the direction. */
export function orderByClause(keys: readonly SortKey[], reverse = false): Sql {
  return joinSql(
    keys.map((k) => {
      const asc = (k.dir === 'asc') !== reverse;
      const nulls = k.field.nullable ? (reverse ? ' NULLS FIRST' : ' NULLS LAST') : '';
      return sql(`${k.field.expr.sql} ${asc ? 'ASC' : 'DESC'}${nulls}`, ...k.field.expr.bindings);
    }),
    ', ',
  );
}
