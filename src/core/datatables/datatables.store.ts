/**
 * The store of datatables, their fields and rows, style-neutral (`datatables`, `datatable_fields`,
 * `datatable_rows`; API document "Datatable and row"; Style A `/datatables…`, Style B `/tables…`). Row
 * columns live in JSONB `data`; `data.id` is the upsert key.
 *
 * Row writes (docs/writes-keys-limits.md, "Row writes"): one upsert on `data.id` for Style A `POST …/rows`
 * and Style B `POST …/entries` / `…/bulk-entries`, a merging patch and a delete. The caller owns the
 * transaction (docs/decisions.md, "Who opens transactions"): patchRow and deleteRow run in the one it
 * passes, an upsert included. Each write records its events (`row.created`, `row.updated`, `row.deleted`:
 * the event log and the webhook outbox) in the same transaction as the write.
 */
import type { Knex } from 'knex';
import { affectedRows, type DbHandle } from '../../db';
import { cursorBatches } from '../../db/batches';
import { type ErrorDetail, errors } from '../errors';
import { type DateBound, parseDateValue } from '../query/dates';
import { fieldMap, type ListField } from '../query/fields';
import { compileFilter } from '../query/filter';
import { countRows, fetchKeysetPage, fetchOffsetPage, type KeysetPage, type KeysetQuery, type OffsetPage, type OffsetQuery } from '../query/list';
import { listByCreatedOrName, type SortedKeysetParams } from '../query/simple-list';
import { parseSortNewestFirst } from '../query/sort';
import { sql } from '../query/sql';
import { newId } from '../ids';
import { recordEvents, type SubscribedEndpoint } from '../webhooks/outbox';
import { isPlainObject } from '../plain-object';

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

export async function listDatatables(db: DbHandle, workspaceId: string, params: SortedKeysetParams): Promise<KeysetPage<Datatable>> {
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
  const row = (await db('datatables').select('id', 'name', 'row_count', 'created_at', 'updated_at').where({ workspace_id: workspaceId, id }).first()) as
    DatatableRow | undefined;
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
  return {
    name: f.name,
    expr: sql(`(data ->> ?)${cast}`, f.name),
    type: f.type === 'number' ? 'number' : f.type === 'boolean' ? 'boolean' : 'text',
    nullable: true,
  };
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

// Row writes.

export interface UpsertOptions {
  /** How the adapter names item `i` in error details: `data` for a single object, `data[i]` for arrays. */
  single: boolean;
  /** Style B: every item must carry `id` (400 naming `data.id` / `data[i].id`). */
  requireId?: boolean;
  /** Most items accepted in one request (Style A 100, Style B 1000). */
  maxItems?: number;
}

export interface UpsertedRow extends Row {
  /** True when the row was created, false when an existing row (same `data.id`) was merged. */
  created: boolean;
}

type UpsertedRowRecord = RowRecord & { external_id: string | null; inserted?: boolean };

const RETURNING = 'row_id, datatable_id, data, created_at, updated_at, external_id';

/** `data` minus its top-level `null` members (a null removes a column; nested json values keep theirs). */
const STRIP_NULLS = (expr: string) =>
  `COALESCE((SELECT jsonb_object_agg(e.key, e.value) FROM jsonb_each(${expr}) e WHERE e.value <> 'null'::jsonb), '{}'::jsonb)`;

/**
 * Why a column value does not fit its field type (docs/writes-keys-limits.md, "Row writes"), or undefined when it fits.
 * The one check for row writes and fixture rows (the importer).
 */
export function columnTypeProblem(type: DatatableField['type'], value: unknown): string | undefined {
  switch (type) {
    case 'string':
      return typeof value === 'string' ? undefined : 'must be a string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? undefined : 'must be a number';
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'must be true or false';
    case 'date':
      if (typeof value !== 'string') return 'must be a date (YYYY-MM-DD) or an ISO 8601 date-time with offset';
      try {
        parseDateValue(value, 'value', 'body');
        return undefined;
      } catch {
        return 'must be a date (YYYY-MM-DD) or an ISO 8601 date-time with offset';
      }
    case 'json':
      return undefined;
  }
}

/**
 * Checks one item's columns against the table's fields. `null` is always allowed (it removes the
 * column). `id` is the upsert key: a non-empty string or a number, whether or not it is a field.
 * Pushes problems into `out`, each naming `prefix.column`.
 */
function checkColumns(
  data: Record<string, unknown>,
  fields: ReadonlyMap<string, DatatableField['type']>,
  prefix: string,
  out: ErrorDetail[],
  opts: { idMayBeNull: boolean },
): void {
  for (const [name, value] of Object.entries(data)) {
    const field = `${prefix}.${name}`;
    if (name === 'id') {
      if (value === null && opts.idMayBeNull) continue;
      const ok = (typeof value === 'string' && value !== '') || (typeof value === 'number' && Number.isFinite(value));
      if (!ok) out.push({ location: 'body', field, message: `\`${field}\` must be a non-empty string or a number.` });
      else if (fields.has('id')) {
        const why = columnTypeProblem(fields.get('id')!, value);
        if (why) out.push({ location: 'body', field, message: `\`${field}\` ${why}.` });
      }
      continue;
    }
    const type = fields.get(name);
    if (type === undefined) {
      const known = [...fields.keys()].join(', ') || 'none';
      out.push({ location: 'body', field, message: `\`${field}\` is not a column of this table (columns: ${known}).` });
      continue;
    }
    if (value === null) continue;
    const why = columnTypeProblem(type, value);
    if (why) out.push({ location: 'body', field, message: `\`${field}\` ${why} (column type ${type}); got ${shown(value)}.` });
  }
}

/** A value in a message: its JSON, cut after 80 characters. */
function shown(value: unknown): string {
  const text = JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

interface WriteContext {
  fields: Map<string, DatatableField['type']>;
  /** The workspace's enabled webhook endpoints (recordEvents decides which take the write's events). */
  endpoints: SubscribedEndpoint[];
}

/**
 * What a row write needs to know, in ONE query: the table's fields (404 when the table does not exist)
 * and the workspace's enabled webhook endpoints.
 * @throws AppError resource_not_found for the datatable.
 */
async function writeContext(db: DbHandle, workspaceId: string, datatableId: string): Promise<WriteContext> {
  const { rows } = (await db.raw(
    `SELECT COALESCE((SELECT json_agg(json_build_object('name', f.name, 'type', f.type) ORDER BY f.position, f.name)
                        FROM datatable_fields f WHERE f.workspace_id = d.workspace_id AND f.datatable_id = d.id), '[]') AS fields,
            COALESCE((SELECT json_agg(json_build_object('id', e.id, 'events', e.events) ORDER BY e.id)
                        FROM webhook_endpoints e WHERE e.workspace_id = d.workspace_id AND e.enabled), '[]') AS endpoints
       FROM datatables d WHERE d.workspace_id = ? AND d.id = ?`,
    [workspaceId, datatableId],
  )) as { rows: Array<{ fields: DatatableField[]; endpoints: SubscribedEndpoint[] }> };
  const found = rows[0];
  if (!found) throw errors.notFound('Datatable', datatableId);
  return { fields: new Map(found.fields.map((f) => [f.name, f.type])), endpoints: found.endpoints };
}

/** A checked upsert, ready to write (see prepareRowUpsert). */
export interface RowUpsert {
  workspaceId: string;
  datatableId: string;
  endpoints: SubscribedEndpoint[];
  items: PreparedItem[];
}

/**
 * Checks an upsert of rows against the table's fields, in one query for the fields and the workspace's
 * webhook endpoints; writes nothing. An item with `id` is an upsert on it, one without `id` creates a
 * row with a new `row_…` id (writeRowUpsert).
 * @throws AppError resource_not_found for the datatable; validation_error (details naming e.g.
 * `data[3].seats`) for an unknown column, a value of the wrong type, a missing `id` when required,
 * the same `id` twice, or too many items.
 * Spec: Style A POST {ws}/datatables/{id}/rows; Style B POST {ws}/tables/{id}/entries and bulk-entries.
 */
export async function prepareRowUpsert(
  db: DbHandle,
  workspaceId: string,
  datatableId: string,
  items: Record<string, unknown>[],
  opts: UpsertOptions,
): Promise<RowUpsert> {
  if (opts.maxItems !== undefined && items.length > opts.maxItems) {
    throw errors.invalid('body', 'data', `\`data\` holds at most ${opts.maxItems} rows; got ${items.length}.`);
  }
  if (items.length === 0) throw errors.invalid('body', 'data', '`data` needs at least one row.');
  const { fields, endpoints } = await writeContext(db, workspaceId, datatableId);
  const prepared = prepareItems(items, fields, opts);
  return { workspaceId, datatableId, endpoints, items: prepared };
}

/**
 * Writes a prepared upsert: all rows or none (`INSERT … ON CONFLICT (workspace_id, datatable_id,
 * external_id) DO UPDATE`, race-free: two clients upserting the same `data.id` leave one row); the
 * columns sent overwrite, the others stay, `null` removes a column; then the `row.created` /
 * `row.updated` events in the same transaction.
 * @param db the caller's transaction (the rows' events are recorded in it).
 * @returns the rows in request order, each with `created`; times are UTC Dates.
 * @throws Error when `db` is not a transaction (a programming error).
 */
export async function writeRowUpsert(db: DbHandle, upsert: RowUpsert): Promise<UpsertedRow[]> {
  // The rows' events go to the event log in the same transaction (docs/live.md, "Event log").
  if (!db.isTransaction) throw new Error('a row upsert needs a transaction');
  const { workspaceId, datatableId, endpoints } = upsert;
  const result = await upsertStatement(db, workspaceId, datatableId, upsert.items);
  await recordEvents(
    db as Knex.Transaction,
    workspaceId,
    result.map(({ created, ...row }) => ({ type: created ? 'row.created' : 'row.updated', resource: { kind: 'row', row } })),
    endpoints,
  );
  return result;
}

interface PreparedItem {
  ord: number;
  row_id: string;
  data: Record<string, unknown>;
  /** The upsert key (`data.id` as text), or undefined for an item that always creates a row. */
  key: string | undefined;
}

/**
 * Checks every item against the fields and gives each a new `row_id`.
 * @throws AppError validation_error naming every problem (`data[3].seats`, a repeated `id`, …).
 */
function prepareItems(items: Record<string, unknown>[], fields: ReadonlyMap<string, DatatableField['type']>, opts: UpsertOptions): PreparedItem[] {
  const problems: ErrorDetail[] = [];
  const seen = new Map<string, number>();
  const prepared = items.map((item, i): PreparedItem => {
    const prefix = opts.single ? 'data' : `data[${i}]`;
    if (!isPlainObject(item)) {
      problems.push({ location: 'body', field: prefix, message: `\`${prefix}\` must be an object of columns.` });
      return { ord: i, row_id: '', data: {}, key: undefined };
    }
    checkColumns(item, fields, prefix, problems, { idMayBeNull: false });
    const id = item.id;
    if ((id === undefined || id === null) && opts.requireId) {
      problems.push({ location: 'body', field: `${prefix}.id`, message: `\`${prefix}.id\` is required (the upsert key).` });
    }
    // checkColumns has reported an id of another type than string or number (the request is refused below).
    const key = id === undefined || id === null ? undefined : String(id as string | number);
    if (key !== undefined) {
      const first = seen.get(key);
      if (first !== undefined) {
        problems.push({ location: 'body', field: `${prefix}.id`, message: `\`${prefix}.id\` "${key}" repeats data[${first}].id; send each id once.` });
      } else seen.set(key, i);
    }
    return { ord: i, row_id: newId('row'), data: item, key };
  });
  if (problems.length > 0) throw errors.validation(problems);
  return prepared;
}

/**
 * The upsert itself: one `INSERT … ON CONFLICT DO UPDATE` for every item (race-free: two clients
 * upserting the same `data.id` at once leave one row), then, for created rows that were sent with
 * a `null` column, one UPDATE that drops those columns. Rows come back in request order.
 */
async function upsertStatement(q: DbHandle, workspaceId: string, datatableId: string, prepared: readonly PreparedItem[]): Promise<UpsertedRow[]> {
  // Upserts in a stable key order, so two overlapping bulk writes lock rows in the same order.
  const ordered = [...prepared].sort((a, b) => (a.key ?? '\uffff' + a.row_id).localeCompare(b.key ?? '\uffff' + b.row_id));
  const { rows } = (await q.raw(
    `INSERT INTO datatable_rows AS r (workspace_id, datatable_id, row_id, data)
     SELECT ?, ?, x.row_id, x.data
       FROM jsonb_to_recordset(?::jsonb) AS x(row_id text, data jsonb)
     ON CONFLICT (workspace_id, datatable_id, external_id)
     DO UPDATE SET data = ${STRIP_NULLS('r.data || EXCLUDED.data')}, updated_at = now()
     RETURNING ${RETURNING}, (xmax = 0) AS inserted`,
    [workspaceId, datatableId, JSON.stringify(ordered.map((p) => ({ row_id: p.row_id, data: p.data })))],
  )) as { rows: UpsertedRowRecord[] };

  // Created rows keep a null sent for a column out of their data.
  const createdWithNulls = rows.filter((r) => r.inserted && Object.values(r.data).some((v) => v === null)).map((r) => r.row_id);
  if (createdWithNulls.length > 0) {
    const { rows: fixed } = (await q.raw(
      `UPDATE datatable_rows SET data = ${STRIP_NULLS('data')}
        WHERE workspace_id = ? AND datatable_id = ? AND row_id = ANY(?)
        RETURNING ${RETURNING}`,
      [workspaceId, datatableId, createdWithNulls],
    )) as { rows: UpsertedRowRecord[] };
    const byId = new Map(fixed.map((r) => [r.row_id, r]));
    for (const r of rows) {
      const f = byId.get(r.row_id);
      if (f) r.data = f.data;
    }
  }

  const byKey = new Map(rows.filter((r) => r.external_id !== null).map((r) => [r.external_id!, r]));
  const byRowId = new Map(rows.map((r) => [r.row_id, r]));
  return prepared.map((p) => {
    const r = p.key !== undefined ? byKey.get(p.key) : byRowId.get(p.row_id);
    if (!r) throw new Error(`upsert returned no row for item ${p.ord}`);
    return { ...toRow(r), created: r.inserted === true };
  });
}

/**
 * Merges columns into one row, in the caller's transaction, with its `row.updated` event: the columns
 * sent overwrite, `null` removes a column, the others stay.
 * Changing `id` to the `id` of another row of the table violates the unique index (23505), which
 * the error handler answers as 409 conflict.
 * @throws AppError resource_not_found for the datatable or the row; validation_error naming
 * `data.<column>` for an unknown column or a wrong type.
 * Spec: Style A PATCH {ws}/datatables/{id}/rows/{row_id}; Style B PATCH {ws}/tables/{id}/entries/{row_id}.
 */
export async function patchRow(trx: Knex.Transaction, workspaceId: string, datatableId: string, rowId: string, patch: Record<string, unknown>): Promise<Row> {
  const { fields, endpoints } = await writeContext(trx, workspaceId, datatableId);
  const problems: ErrorDetail[] = [];
  checkColumns(patch, fields, 'data', problems, { idMayBeNull: true });
  if (problems.length > 0) throw errors.validation(problems);
  const remove = Object.keys(patch).filter((k) => patch[k] === null);
  const set = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== null));
  const { rows } = (await trx.raw(
    `UPDATE datatable_rows SET data = (data - ?::text[]) || ?::jsonb, updated_at = now()
      WHERE workspace_id = ? AND datatable_id = ? AND row_id = ?
      RETURNING ${RETURNING}`,
    [remove, JSON.stringify(set), workspaceId, datatableId, rowId],
  )) as { rows: UpsertedRowRecord[] };
  if (!rows[0]) throw errors.notFound('Row', rowId);
  const row = toRow(rows[0]);
  await recordEvents(trx, workspaceId, [{ type: 'row.updated', resource: { kind: 'row', row } }], endpoints);
  return row;
}

/**
 * Deletes one row in the caller's transaction, with its `row.deleted` event (responses linked to it
 * keep their captured `table_data`; their `row_id` is cleared).
 * @throws AppError resource_not_found for the datatable or the row.
 * Spec: Style A DELETE {ws}/datatables/{id}/rows/{row_id}; Style B DELETE {ws}/tables/{id}/entries/{row_id}.
 */
export async function deleteRow(trx: Knex.Transaction, workspaceId: string, datatableId: string, rowId: string): Promise<void> {
  await getDatatable(trx, workspaceId, datatableId);
  const n = await affectedRows(trx('datatable_rows').where({ workspace_id: workspaceId, datatable_id: datatableId, row_id: rowId }).delete(), 'row_id');
  if (n === 0) throw errors.notFound('Row', rowId);
  await recordEvents(trx, workspaceId, [{ type: 'row.deleted', resource: { kind: 'row_deleted', rowId, datatableId } }]);
}

/** The row's id when the row is the workspace's, else undefined (an email link naming a row checks it with it). */
export function rowIdInWorkspace(db: DbHandle, workspaceId: string, rowId: string): Promise<{ row_id: string } | undefined> {
  return db('datatable_rows').first<{ row_id: string } | undefined>('row_id').where({ workspace_id: workspaceId, row_id: rowId });
}

/** A row's data locked FOR SHARE in the caller's transaction (a submission captures the row as committed now), undefined when absent. */
export async function rowDataForShare(trx: DbHandle, workspaceId: string, rowId: string): Promise<{ data: Record<string, unknown> } | undefined> {
  return (await trx('datatable_rows').select('data').where({ workspace_id: workspaceId, row_id: rowId }).forShare().first()) as
    { data: Record<string, unknown> } | undefined;
}

/** The workspace's first row by creation (`row_id`, `data`), undefined when it has none (the demo page). */
export function firstRowOfWorkspace(db: DbHandle, workspaceId: string): Promise<{ row_id: string; data: { email?: unknown } } | undefined> {
  return db('datatable_rows')
    .first<{ row_id: string; data: { email?: unknown } } | undefined>('row_id', 'data')
    .where({ workspace_id: workspaceId })
    .orderBy(['created_at', 'row_id']);
}

/**
 * The person's datatable rows (docs/data-rights.md, "Whose data is it"): the rows `linkedRowIds` names (those the
 * person's responses and email events point at) and every row whose data holds `address` (lower case compared),
 * oldest first (created_at, row_id), in batches through a server-side cursor in `trx` (a read-only transaction the
 * caller ends; cursorBatches).
 * @param address the person's email address in lower case.
 */
export async function* personRows(
  trx: Knex.Transaction,
  workspaceId: string,
  address: string,
  linkedRowIds: readonly string[],
  batchSize = 500,
): AsyncGenerator<Row[], void, undefined> {
  const query = trx('datatable_rows')
    .select('row_id', 'datatable_id', 'data', 'created_at', 'updated_at')
    .where('workspace_id', workspaceId)
    .where((w) => {
      w.whereRaw('strpos(lower(data::text), ?) > 0', [address]);
      if (linkedRowIds.length > 0) w.orWhereIn('row_id', [...linkedRowIds]);
    })
    .orderBy([
      { column: 'created_at', order: 'asc' },
      { column: 'row_id', order: 'asc' },
    ]);
  for await (const rows of cursorBatches<RowRecord>(trx, 'person_rows', query, batchSize)) yield rows.map(toRow);
}

/**
 * The person's rows (as personRows selects them: `linkedRowIds` and rows whose data holds `address`; an erasure by row
 * id passes a null address and the row among `linkedRowIds`), as the table and row ids an erasure deletes one by one
 * through deleteRow.
 */
export async function personRowRefs(
  db: DbHandle,
  workspaceId: string,
  address: string | null,
  linkedRowIds: readonly string[],
): Promise<Array<{ datatableId: string; rowId: string }>> {
  if (address === null && linkedRowIds.length === 0) return [];
  const rows = (await db('datatable_rows')
    .select('datatable_id', 'row_id')
    .where('workspace_id', workspaceId)
    .where((w) => {
      if (address !== null) w.orWhereRaw('strpos(lower(data::text), ?) > 0', [address]);
      if (linkedRowIds.length > 0) w.orWhereIn('row_id', [...linkedRowIds]);
    })
    .orderBy('row_id')) as Array<{ datatable_id: string; row_id: string }>;
  return rows.map((r) => ({ datatableId: r.datatable_id, rowId: r.row_id }));
}
