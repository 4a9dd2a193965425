/**
 * Datatables, their fields and rows, style-neutral (API document "Datatable and row"; Style A
 * `/datatables…`, Style B `/tables…`). Row columns live in JSONB `data`; `data.id` is the upsert key.
 */
import type { DbHandle } from '../../db';
import { errors } from '../errors';
import type { DateBound } from '../query/dates';
import { fieldMap, type ListField } from '../query/fields';
import { compileFilter } from '../query/filter';
import { countRows, fetchKeysetPage, fetchOffsetPage, type KeysetPage, type KeysetQuery, type OffsetPage, type OffsetQuery } from '../query/list';
import { listByCreatedOrName, type SortedKeysetParams } from '../query/simple-list';
import { parseSortNewestFirst } from '../query/sort';
import { sql } from '../query/sql';

export type FieldType = 'string' | 'number' | 'boolean' | 'date' | 'json';

export interface DatatableField {
  name: string;
  type: FieldType;
}

export interface Datatable {
  id: string;
  name: string;
  rowCount: number;
  createdAt: Date;
  updatedAt: Date;
  fields?: DatatableField[];
}

export interface Row {
  rowId: string;
  datatableId: string;
  data: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}

/** Column names a datatable may not use: they would collide with the Style A row shape. */
export const RESERVED_FIELD_NAMES = new Set(['row_id', 'created_at', 'updated_at']);

interface DatatableRow {
  id: string;
  name: string;
  row_count: number;
  created_at: Date;
  updated_at: Date;
}

const toDatatable = (r: DatatableRow): Datatable => ({
  id: r.id,
  name: r.name,
  rowCount: Number(r.row_count),
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export async function listDatatables(
  db: DbHandle,
  workspaceId: string,
  params: SortedKeysetParams,
): Promise<KeysetPage<Datatable>> {
  const query = db('datatables').select('id', 'name', 'row_count', 'created_at', 'updated_at').where('workspace_id', workspaceId);
  const page = await listByCreatedOrName<DatatableRow & Record<string, unknown>>(db, query, `datatables:${workspaceId}`, params);
  return { ...page, items: page.items.map(toDatatable) };
}

/** Every datatable of the workspace by name (Style B `/tables` has no pagination). */
export async function listAllDatatables(db: DbHandle, workspaceId: string): Promise<Datatable[]> {
  const rows = (await db('datatables')
    .select('id', 'name', 'row_count', 'created_at', 'updated_at')
    .where('workspace_id', workspaceId)
    .orderBy([{ column: 'name' }, { column: 'id' }])) as DatatableRow[];
  return rows.map(toDatatable);
}

/** @throws AppError resource_not_found */
export async function getDatatable(db: DbHandle, workspaceId: string, id: string, opts: { fields?: boolean } = {}): Promise<Datatable> {
  const row = (await db('datatables')
    .select('id', 'name', 'row_count', 'created_at', 'updated_at')
    .where({ workspace_id: workspaceId, id })
    .first()) as DatatableRow | undefined;
  if (!row) throw errors.notFound('Datatable', id);
  const table = toDatatable(row);
  if (opts.fields) table.fields = await listFields(db, workspaceId, id);
  return table;
}

export async function listFields(db: DbHandle, workspaceId: string, datatableId: string): Promise<DatatableField[]> {
  return (await db('datatable_fields')
    .select('name', 'type')
    .where({ workspace_id: workspaceId, datatable_id: datatableId })
    .orderBy([{ column: 'position' }, { column: 'name' }])) as DatatableField[];
}

const builtin = (name: string, type: ListField['type']): ListField => ({ name, expr: sql('??', name), type, nullable: false });
const ROW_ID = builtin('row_id', 'text');

/** A column's expression, typed by its field: numbers sort and compare as numbers. */
export function columnField(f: DatatableField): ListField {
  const cast = f.type === 'number' ? '::numeric' : f.type === 'boolean' ? '::boolean' : '';
  return { name: f.name, expr: sql(`(data ->> ?)${cast}`, f.name), type: f.type === 'number' ? 'number' : f.type === 'boolean' ? 'boolean' : 'text', nullable: true };
}

export interface RowListQuery {
  filter?: string | undefined;
  sort?: string | undefined;
  multiSort?: boolean;
  created?: readonly DateBound[];
}

/** A `datatable_rows` row as selected (snake_case). */
export interface RowRecord {
  row_id: string;
  datatable_id: string;
  data: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}

export const toRow = (r: RowRecord): Row => ({
  rowId: r.row_id,
  datatableId: r.datatable_id,
  data: r.data,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/**
 * The table (404 when missing), the sort keys and the narrowed query of a rows list: sort by
 * `created_at`, `updated_at`, `row_id` or any column; `filter` on any column and `row_id`; date
 * bounds on `created_at`.
 * @throws AppError resource_not_found for the datatable; validation_error for sort/filter.
 */
async function rowsQuery(db: DbHandle, workspaceId: string, datatableId: string, q: RowListQuery) {
  const table = await getDatatable(db, workspaceId, datatableId, { fields: true });
  const columns = (table.fields ?? []).map(columnField);
  const sortFields = fieldMap([builtin('created_at', 'timestamp'), builtin('updated_at', 'timestamp'), ROW_ID, ...columns]);
  const keys = parseSortNewestFirst(q.sort, {
    fields: sortFields,
    tieBreaker: ROW_ID,
    multi: q.multiSort ?? false,
  });
  const base = db('datatable_rows')
    .select('row_id', 'datatable_id', 'data', 'created_at', 'updated_at')
    .where({ workspace_id: workspaceId, datatable_id: datatableId });
  const narrowed = q.filter !== undefined || (q.created?.length ?? 0) > 0;
  if (q.filter !== undefined) {
    const { where } = compileFilter(q.filter, { fields: fieldMap([ROW_ID, ...columns]) });
    base.whereRaw(where.sql, where.bindings);
  }
  for (const b of q.created ?? []) base.where('created_at', b.op, b.value);
  return { table, keys, base, narrowed };
}

/**
 * Lists a datatable's rows (sort, filter and dates as in rowsQuery) as a keyset page (Style A).
 * @throws AppError resource_not_found for the datatable; validation_error for sort/filter/cursor.
 */
export async function listRowsKeyset(db: DbHandle, workspaceId: string, datatableId: string, q: KeysetQuery<RowListQuery>): Promise<KeysetPage<Row>> {
  const { keys, base } = await rowsQuery(db, workspaceId, datatableId, q);
  const { limit, cursor } = q.pagination;
  const page = await fetchKeysetPage<RowRecord & Record<string, unknown>>(db, base, keys, limit, cursor, `rows:${workspaceId}:${datatableId}`);
  return { kind: 'keyset', items: page.rows.map(toRow), limit, nextCursor: page.nextCursor, prevCursor: page.prevCursor };
}

/**
 * Lists a datatable's rows (sort, filter and dates as in rowsQuery) as an offset page (Style B) with
 * `total` and `filteredTotal`.
 * @throws AppError resource_not_found for the datatable; validation_error for sort/filter or a `page` too large.
 */
export async function listRowsOffset(db: DbHandle, workspaceId: string, datatableId: string, q: OffsetQuery<RowListQuery>): Promise<OffsetPage<Row>> {
  const { table, keys, base, narrowed } = await rowsQuery(db, workspaceId, datatableId, q);
  const { page, limit } = q.pagination;
  const [rows, filteredTotal] = await Promise.all([
    fetchOffsetPage<RowRecord>(base, keys, page, limit, ['workspace_id', 'row_id']),
    narrowed ? countRows(base) : Promise.resolve(table.rowCount),
  ]);
  return { kind: 'page', items: rows.map(toRow), page, limit, total: table.rowCount, filteredTotal };
}

/** @throws AppError resource_not_found for the datatable or the row */
export async function getRow(db: DbHandle, workspaceId: string, datatableId: string, rowId: string): Promise<Row> {
  await getDatatable(db, workspaceId, datatableId);
  const row = (await db('datatable_rows')
    .select('row_id', 'datatable_id', 'data', 'created_at', 'updated_at')
    .where({ workspace_id: workspaceId, datatable_id: datatableId, row_id: rowId })
    .first()) as RowRecord | undefined;
  if (!row) throw errors.notFound('Row', rowId);
  return toRow(row);
}
