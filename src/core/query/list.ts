/**
 * Runs a list query either as a keyset (cursor) page, Style A, or as an offset page, Style B.
 * Both take the same base query (narrowing already applied) and the same sort keys, so the two
 * styles return the same rows in the same order for the same filters.
 */
import type { Knex } from 'knex';
import type { DbHandle } from '../../db';
import { errors } from '../errors';
import type { SortKey } from './fields';
import { decodeCursor, encodeCursor, keysetCondition, orderByClause } from './keyset';
import { sortSignature } from './sort';
import type { Sql } from './sql';

/** Style A paging: `limit` rows after (or before) the `cursor`. */
export interface KeysetPagination {
  kind: 'keyset';
  limit: number;
  cursor?: string | undefined;
}

/** Style B paging: `page` (1-based) of `limit` rows. */
export interface OffsetPagination {
  kind: 'page';
  page: number;
  limit: number;
}

/** A list query `Q` (its filters and sort) with Style A paging. */
export type KeysetQuery<Q> = Q & { pagination: KeysetPagination };

/** A list query `Q` (its filters and sort) with Style B paging. */
export type OffsetQuery<Q> = Q & { pagination: OffsetPagination };

export interface KeysetPage<T> {
  kind: 'keyset';
  items: T[];
  limit: number;
  nextCursor: string | null;
  prevCursor: string | null;
}

export interface OffsetPage<T> {
  kind: 'page';
  items: T[];
  page: number;
  limit: number;
  /** The whole collection (the workspace's responses or events, the table's rows). */
  total: number;
  /** What is left after every narrowing parameter. */
  filteredTotal: number;
}

const KEY_ALIAS = '__k';

function cursorValue(v: unknown): unknown {
  return v instanceof Date ? v.toISOString() : v;
}

/**
 * Fetches one keyset page: `limit + 1` rows to learn whether there is more, in the order of `keys`.
 * @param listId identity of the list (cursors from another list are rejected)
 * @returns rows (without the helper key columns) and the cursors of the neighbouring pages.
 * @throws AppError validation_error for a malformed or foreign cursor.
 */
export async function fetchKeysetPage<TRow extends Record<string, unknown>>(
  db: DbHandle,
  query: Knex.QueryBuilder,
  keys: readonly SortKey[],
  limit: number,
  cursor: string | undefined,
  listId: string,
): Promise<{ rows: TRow[]; nextCursor: string | null; prevCursor: string | null }> {
  const signature = sortSignature(keys);
  const decoded = cursor === undefined ? undefined : decodeCursor(cursor, listId, signature, keys);
  const backward = decoded?.d === 'p';
  const q = query.clone();
  keys.forEach((k, i) => {
    q.select(db.raw(`${k.field.expr.sql} AS ??`, [...k.field.expr.bindings, `${KEY_ALIAS}${i}`]));
  });
  if (decoded) {
    const cond = keysetCondition(keys, decoded.k, backward ? 'before' : 'after');
    q.whereRaw(cond.sql, cond.bindings);
  }
  const order = orderByClause(keys, backward);
  q.orderByRaw(order.sql, order.bindings).limit(limit + 1);

  const fetched = (await q) as Array<Record<string, unknown>>;
  const more = fetched.length > limit;
  const page = fetched.slice(0, limit);
  if (backward) page.reverse();
  const keyOf = (row: Record<string, unknown>) => keys.map((_, i) => cursorValue(row[`${KEY_ALIAS}${i}`]));
  const make = (row: Record<string, unknown> | undefined, d: 'n' | 'p') =>
    row === undefined ? null : encodeCursor({ l: listId, s: signature, k: keyOf(row), d });
  const first = page[0];
  const last = page[page.length - 1];
  const nextCursor = backward ? make(last, 'n') : more ? make(last, 'n') : null;
  const prevCursor = backward ? (more ? make(first, 'p') : null) : decoded ? make(first, 'p') : null;
  // Every row has the same columns: drop the helper key columns by a list computed once per page.
  const columns = page[0] === undefined ? [] : Object.keys(page[0]).filter((k) => !k.startsWith(KEY_ALIAS));
  const rows = page.map((row) => {
    const clean: Record<string, unknown> = {};
    for (const k of columns) clean[k] = row[k];
    return clean as TRow;
  });
  return { rows, nextCursor, prevCursor };
}

/**
 * Where a deep page may start instead of at the beginning of its list: `where` narrows the list to a
 * range that begins after exactly `skipped` of its rows (in the page's order), so only
 * `offset - skipped` rows are left to skip. Found from counters, e.g. one per day (responses).
 */
export interface OffsetStart {
  where: Sql;
  skipped: number;
}

/** Finds the OffsetStart for an offset; null when the offset is past the end of the list. */
export type OffsetSeek = (offset: number) => Promise<OffsetStart | null>;

/**
 * Fetches one offset page (`page` is 1-based) in the order of `keys`.
 * With `primaryKey`, a deep page is a deferred join: the offset is skipped over the primary keys
 * alone (an index-only walk when an index covers the order and the narrowing), then only the page's
 * rows are read. Without it, PostgreSQL would read every skipped row in full.
 * With `seek`, a page past the first starts where the seek says and skips only the rest of the offset.
 */
export async function fetchOffsetPage<TRow>(
  query: Knex.QueryBuilder,
  keys: readonly SortKey[],
  page: number,
  limit: number,
  primaryKey?: readonly string[],
  seek?: OffsetSeek,
): Promise<TRow[]> {
  const order = orderByClause(keys);
  let offset = (page - 1) * limit;
  if (!Number.isSafeInteger(offset)) throw errors.invalid('query', 'page', '`page` is too large.');
  let base = query;
  if (seek && offset > 0) {
    const start = await seek(offset);
    if (start === null) return [];
    base = query.clone().whereRaw(start.where.sql, start.where.bindings);
    offset -= start.skipped;
  }
  if (!primaryKey || offset === 0) {
    return (await base.clone().orderByRaw(order.sql, order.bindings).offset(offset).limit(limit)) as TRow[];
  }
  const pageKeys = base
    .clone()
    .clearSelect()
    .select([...primaryKey])
    .orderByRaw(order.sql, order.bindings)
    .offset(offset)
    .limit(limit);
  return (await base
    .clone()
    .whereIn([...primaryKey], pageKeys)
    .orderByRaw(order.sql, order.bindings)) as TRow[];
}

/** `SELECT count(*)` of a query (its selected columns and order dropped), as a number. */
export async function countRows(query: Knex.QueryBuilder): Promise<number> {
  const row = (await query.clone().clearSelect().clearOrder().count({ n: '*' }).first()) as { n?: unknown } | undefined;
  return Number(row?.n ?? 0);
}

/** `SELECT sum(column)` of a query, 0 when empty. */
export async function sumColumn(query: Knex.QueryBuilder, column: string): Promise<number> {
  const row = (await query.clone().sum({ n: column }).first()) as { n?: unknown } | undefined;
  return Number(row?.n ?? 0);
}
