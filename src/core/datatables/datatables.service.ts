/**
 * Datatables, their fields and rows, style-neutral (API document "Datatable and row"; Style A
 * `/datatables…`, Style B `/tables…`). Row columns live in JSONB `data`; `data.id` is the upsert key.
 */
import type { Knex } from 'knex';
import { errors } from '../errors';
import type { DateBound } from '../query/dates';
import { fieldMap, type ListField } from '../query/fields';
import { compileFilter } from '../query/filter';
import { countRows, fetchKeysetPage, fetchOffsetPage, type KeysetPage, type ListPage, type Pagination } from '../query/list';
import { listByCreatedOrName } from '../query/simple-list';
import { parseSort } from '../query/sort';
import { sql } from '../query/sql';

type Db = Knex | Knex.Transaction;

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
  db: Db,
  workspaceId: string,
  params: { limit: number; cursor?: string | undefined; sort?: string | undefined },
): Promise<KeysetPage<Datatable>> {
  const query = db('datatables').select('id', 'name', 'row_count', 'created_at', 'updated_at').where('workspace_id', workspaceId);
  const page = await listByCreatedOrName<DatatableRow & Record<string, unknown>>(db, query, `datatables:${workspaceId}`, params);
  return { ...page, items: page.items.map(toDatatable) };
}

/** Every datatable of the workspace by name (Style B `/tables` has no pagination). */
export async function listAllDatatables(db: Db, workspaceId: string): Promise<Datatable[]> {
  const rows = (await db('datatables')
    .select('id', 'name', 'row_count', 'created_at', 'updated_at')
    .where('workspace_id', workspaceId)
    .orderBy([{ column: 'name' }, { column: 'id' }])) as DatatableRow[];
  return rows.map(toDatatable);
}

/** @throws AppError resource_not_found */
export async function getDatatable(db: Db, workspaceId: string, id: string, opts: { fields?: boolean } = {}): Promise<Datatable> {
  const row = (await db('datatables')
    .select('id', 'name', 'row_count', 'created_at', 'updated_at')
    .where({ workspace_id: workspaceId, id })
    .first()) as DatatableRow | undefined;
  if (!row) throw errors.notFound('Datatable', id);
  const table = toDatatable(row);
  if (opts.fields) table.fields = await listFields(db, workspaceId, id);
  return table;
}

export async function listFields(db: Db, workspaceId: string, datatableId: string): Promise<DatatableField[]> {
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
  pagination: Pagination;
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
 * Lists a datatable's rows: sort by `created_at`, `updated_at`, `row_id` or any column; `filter` on
 * any column and `row_id`; date bounds on `created_at`.
 * @throws AppError resource_not_found for the datatable; validation_error for sort/filter/cursor.
 */
export async function listRows(db: Db, workspaceId: string, datatableId: string, q: RowListQuery): Promise<ListPage<Row>> {
  const table = await getDatatable(db, workspaceId, datatableId, { fields: true });
  const columns = (table.fields ?? []).map(columnField);
  const sortFields = fieldMap([builtin('created_at', 'timestamp'), builtin('updated_at', 'timestamp'), ROW_ID, ...columns]);
  const keys = parseSort(q.sort, {
    fields: sortFields,
    tieBreaker: ROW_ID,
    defaultSort: [{ field: sortFields.get('created_at')!, dir: 'desc' }],
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

  if (q.pagination.kind === 'keyset') {
    const page = await fetchKeysetPage<RowRecord & Record<string, unknown>>(
      db,
      base,
      keys,
      q.pagination.limit,
      q.pagination.cursor,
      `rows:${workspaceId}:${datatableId}`,
    );
    return { kind: 'keyset', items: page.rows.map(toRow), limit: q.pagination.limit, nextCursor: page.nextCursor, prevCursor: page.prevCursor };
  }
  const { page, limit } = q.pagination;
  const [rows, filteredTotal] = await Promise.all([
    fetchOffsetPage<RowRecord>(base, keys, page, limit, ['workspace_id', 'row_id']),
    narrowed ? countRows(base) : Promise.resolve(table.rowCount),
  ]);
  return { kind: 'page', items: rows.map(toRow), page, limit, total: table.rowCount, filteredTotal };
}

/** @throws AppError resource_not_found for the datatable or the row */
export async function getRow(db: Db, workspaceId: string, datatableId: string, rowId: string): Promise<Row> {
  await getDatatable(db, workspaceId, datatableId);
  const row = (await db('datatable_rows')
    .select('row_id', 'datatable_id', 'data', 'created_at', 'updated_at')
    .where({ workspace_id: workspaceId, datatable_id: datatableId, row_id: rowId })
    .first()) as RowRecord | undefined;
  if (!row) throw errors.notFound('Row', rowId);
  return toRow(row);
}
