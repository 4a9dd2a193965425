/**
 * Keyset lists of small workspace collections (forms, datatables, webhook endpoints) sorted by
 * `created_at` or `name` with `id` as tie-breaker (docs/api-rules.md, "Sorting", sortable fields).
 */
import type { Knex } from 'knex';
import type { DbHandle } from '../../db';
import { fieldMap, type ListField } from './fields';
import { fetchKeysetPage, type KeysetPage } from './list';
import { parseSortNewestFirst } from './sort';
import { sql } from './sql';

const col = (name: string, type: ListField['type']): ListField => ({ name, expr: sql('??', name), type, nullable: false });
const SORT_FIELDS = fieldMap([col('created_at', 'timestamp'), col('name', 'text')]);
const ID = col('id', 'text');

/** The paging and order of such a list: `limit`, an optional `cursor` and an optional `sort` (`created_at` or `name`). */
export interface SortedKeysetParams {
  limit: number;
  cursor?: string | undefined;
  sort?: string | undefined;
}

export async function listByCreatedOrName<TRow extends Record<string, unknown>>(
  db: DbHandle,
  query: Knex.QueryBuilder,
  listId: string,
  params: SortedKeysetParams,
): Promise<KeysetPage<TRow>> {
  const keys = parseSortNewestFirst(params.sort, {
    fields: SORT_FIELDS,
    tieBreaker: ID,
    multi: false,
  });
  const page = await fetchKeysetPage<TRow>(db, query, keys, params.limit, params.cursor, listId);
  return { kind: 'keyset', items: page.rows, limit: params.limit, nextCursor: page.nextCursor, prevCursor: page.prevCursor };
}
