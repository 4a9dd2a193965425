/**
 * Datatables and their rows in a fixture document (docs/import.md, "What is checked"; docs/writes-keys-limits.md, "Row writes"): fields with unique,
 * unreserved names; rows whose columns are fields of the table and fit their types, with a `data.id`
 * unique per table and row ids unique in the document and new to their workspace.
 */
import { columnTypeProblem } from '../datatables/datatables.store';
import { newId } from '../ids';
import type { DatatableFieldType, FixtureDatatable, FixtureRow } from './fixture-schema';
import type { ImportContext, Item, Rec, TableInfo } from './context';
import { checkItemSchema } from './item-schema';
import { prop } from './json-paths';

const RESERVED_FIELDS = new Set(['row_id', 'created_at', 'updated_at']);

const FIELD_TYPE_TEXT: Record<DatatableFieldType, string> = {
  string: 'a string',
  number: 'a number',
  boolean: 'true or false',
  date: 'a date "YYYY-MM-DD" or an ISO 8601 date-time with an offset',
  json: 'any JSON value',
};

/** A row as read: `datatables[index].rows[row]`. */
export interface RowEntry {
  index: number;
  row: number;
  value: unknown;
}

function rowPath(e: { index: number; row: number }): string {
  return `datatables[${e.index}].rows[${e.row}]`;
}

/** Registers a row's given id (first reading): a duplicate in the document is reported at `.row_id`. */
export function registerRow(ctx: ImportContext, e: RowEntry): void {
  const given = e.value && typeof e.value === 'object' ? (e.value as { row_id?: unknown }).row_id : undefined;
  if (typeof given !== 'string') return;
  const prev = ctx.rows.get(given);
  if (prev) ctx.problems.add(`${rowPath(e)}.row_id`, `duplicate row id "${given}" (first at ${prev.path})`);
  else ctx.rows.set(given, { table: e.index, path: rowPath(e) });
}

/**
 * Checks the datatables and their fields (workspaces resolved before) and registers each in `ctx.tables`.
 * @param ids the datatables' ids (ImportContext.claimIds).
 * @returns the `datatables` and `datatable_fields` records to write.
 */
export function checkDatatables(ctx: ImportContext, items: Item<FixtureDatatable>[], ids: string[]): { datatables: Rec[]; fields: Rec[] } {
  const datatables: Rec[] = [];
  const fields: Rec[] = [];
  items.forEach((item, i) => {
    const t = item.value;
    const path = `datatables[${item.index}]`;
    const id = ids[i]!;
    const workspaceId = typeof t?.workspace_id === 'string' ? t.workspace_id : undefined;
    const info: TableInfo = { id, workspaceId, types: undefined, externalIds: new Map() };
    ctx.tables.set(item.index, info);
    if (!item.ok) return;
    ctx.checkWorkspace(`${path}.workspace_id`, t.workspace_id);
    const types = new Map<string, DatatableFieldType>();
    (t.fields ?? []).forEach((fd, fi) => {
      const fpath = `${path}.fields[${fi}].name`;
      if (RESERVED_FIELDS.has(fd.name)) {
        ctx.problems.add(fpath, `"${fd.name}" is reserved (row_id, created_at and updated_at are row metadata)`);
      } else if (types.has(fd.name)) {
        ctx.problems.add(fpath, `duplicate field "${fd.name}"`);
      } else {
        types.set(fd.name, fd.type);
        fields.push({ workspace_id: t.workspace_id, datatable_id: id, name: fd.name, type: fd.type, position: fi });
      }
    });
    info.types = types;
    const created = ctx.iso(t.created_at);
    datatables.push({ workspace_id: t.workspace_id, id, name: t.name, created_at: created, updated_at: ctx.iso(t.updated_at, created) });
  });
  return { datatables, fields };
}

/** The value of `data.id` as the generated `external_id` column holds it (`data ->> 'id'`). */
function externalId(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  return typeof v === 'string' ? v : JSON.stringify(v);
}

function checkRow(ctx: ImportContext, e: RowEntry, table: TableInfo & { types: Map<string, DatatableFieldType> }, rowId: string): Rec {
  const r = e.value as FixtureRow;
  const path = rowPath(e);
  for (const [col, v] of Object.entries(r.data)) {
    const cpath = prop(`${path}.data`, col);
    const type = table.types.get(col);
    if (type === undefined) ctx.problems.add(cpath, `unknown column "${col}": not a field of datatable "${table.id}"`);
    else if (columnTypeProblem(type, v) !== undefined) {
      ctx.problems.add(cpath, `must be ${FIELD_TYPE_TEXT[type]} (field type ${type}); got ${JSON.stringify(v)}`);
    }
  }
  const ext = externalId(r.data.id);
  if (ext !== undefined) {
    const prev = table.externalIds.get(ext);
    if (prev !== undefined) {
      ctx.problems.add(
        `${path}.data.id`,
        `duplicate data.id ${JSON.stringify(ext)} in datatable "${table.id}" (first at datatables[${e.index}].rows[${prev}])`,
      );
    } else {
      table.externalIds.set(ext, e.row);
    }
  }
  const created = ctx.iso(r.created_at);
  const updated = ctx.iso(r.updated_at, created);
  if (updated < created) ctx.problems.add(`${path}.updated_at`, 'must not be before created_at');
  return { workspace_id: table.workspaceId, datatable_id: table.id, row_id: rowId, data: r.data, created_at: created, updated_at: updated };
}

/**
 * Checks a batch of rows (second reading, datatables registered): schema, row ids new to their
 * workspace, columns. Rows of a datatable with problems get their schema checked only.
 * @returns the `datatable_rows` records to write.
 */
export async function checkRowBatch(ctx: ImportContext, batch: RowEntry[]): Promise<Rec[]> {
  const given = (e: RowEntry) => (e.value && typeof e.value === 'object' ? (e.value as { row_id?: unknown }).row_id : undefined);
  const pairs: [string, string][] = [];
  for (const e of batch) {
    const id = given(e);
    const ws = ctx.tables.get(e.index)?.workspaceId;
    if (typeof id === 'string' && ws !== undefined && ctx.rows.get(id)?.path === rowPath(e)) pairs.push([ws, id]);
  }
  const exists = await ctx.existingIn('datatable_rows', 'row_id', pairs);
  const records: Rec[] = [];
  for (const e of batch) {
    const ok = checkItemSchema('rows', e.value, rowPath(e), ctx.problems);
    const table = ctx.tables.get(e.index);
    const id = given(e);
    if (typeof id === 'string' && table?.workspaceId !== undefined && exists.has(`${table.workspaceId}\u0000${id}`)) {
      ctx.problems.add(`${rowPath(e)}.row_id`, `row "${id}" already exists`);
    }
    if (!ok || table?.types === undefined) continue;
    records.push(checkRow(ctx, e, table as TableInfo & { types: Map<string, DatatableFieldType> }, typeof id === 'string' ? id : newId('row')));
  }
  return records;
}
