/**
 * Keyset lists of small workspace collections (forms, datatables, webhook endpoints) sorted by
 * `created_at` or `name` with `id` as tie-breaker (CONTRACT section 10, sortable fields).
 */
import type { Knex } from 'knex';
import { fieldMap, type ListField } from './fields';
import { fetchKeysetPage, type KeysetPage } from './list';
import { parseSort } from './sort';
import { sql } from './sql';

const col = (name: string, type: ListField['type']): ListField => ({ name, expr: sql('??', name), type, nullable: false });
const SORT_FIELDS = fieldMap([col('created_at', 'timestamp'), col('name', 'text')]);
const ID = col('id', 'text');

export async function listByCreatedOrName<TRow extends Record<string, unknown>>(
  db: Knex | Knex.Transaction,
  query: Knex.QueryBuilder,
  listId: string,
  params: { limit: number; cursor?: string | undefined; sort?: string | undefined },
): Promise<KeysetPage<TRow>> {
  const keys = parseSort(params.sort, {
    fields: SORT_FIELDS,
    tieBreaker: ID,
    defaultSort: [{ field: SORT_FIELDS.get('created_at')!, dir: 'desc' }],
    multi: false,
  });
  const page = await fetchKeysetPage<TRow>(db, query, keys, params.limit, params.cursor, listId);
  return { kind: 'keyset', items: page.rows, limit: params.limit, nextCursor: page.nextCursor, prevCursor: page.prevCursor };
}
