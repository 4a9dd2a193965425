/**
 * What the checks of one import share (docs/import.md, "What is checked"): the problems found so far, the document's
 * ids (to find duplicates and resolve references), what the document defines (workspaces, forms,
 * datatables and their rows) and what the database already holds, looked up in batches and cached.
 * Only small per-record state is kept: ids and the positions that name them, never whole responses.
 */
import type { DbHandle } from '../../db';
import { newId, type IdKind } from '../ids';
import { formDefinitionsFromDb, type FormDefinition } from '../forms/form-model';
import type { DatatableFieldType } from './fixture-schema';
import type { Collection } from './fixture-source';
import { IdTable } from './id-table';
import { idx } from './json-paths';
import { ProblemList } from './problems';

/** A record as written: snake_case columns, jsonb as nested JSON, timestamps as ISO strings. */
export type Rec = Record<string, unknown>;

/** An element of a collection as read, with whether it fits its schema. */
export interface Item<T> {
  index: number;
  value: T;
  /** False when the item has schema problems: its id still counts, its content is not checked. */
  ok: boolean;
}

export interface FormInfo {
  workspaceId: string;
  /** Undefined when the form itself has problems (responses to it are not checked further). */
  def: FormDefinition | undefined;
}

export interface TableInfo {
  id: string;
  /** Undefined when the datatable has no usable workspace_id. */
  workspaceId: string | undefined;
  /** Column types by field name; undefined when the datatable has problems (its rows are not checked). */
  types: Map<string, DatatableFieldType> | undefined;
  /** The first row index of each `data.id` seen so far (the upsert key is unique per datatable). */
  externalIds: Map<string, number>;
}

/** A row the document defines, by row id (its first occurrence). */
export interface RowInfo {
  /** Index of its datatable in `datatables`. */
  table: number;
  path: string;
}

const UTC_ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

export class ImportContext {
  readonly problems = new ProblemList();
  readonly nowIso: string;
  /** The document's top-level keys in order (problems are sorted by them). */
  readonly keys: string[] = [];
  /** Workspaces the document defines (ids, including those with problems). */
  readonly docWorkspaces = new Set<string>();
  /** Of those, the ones the database does not hold yet: nothing can be in them before the import. */
  readonly newWorkspaces = new Set<string>();
  readonly forms = new Map<string, FormInfo>();
  /** Datatables by their index in `datatables`. */
  readonly tables = new Map<number, TableInfo>();
  readonly rows = new Map<string, RowInfo>();
  /** Per collection, the index of the first item with each given id (compact: a million response ids). */
  private readonly firstIds = new Map<Collection, IdTable>();
  private readonly dbWorkspaces = new Map<string, boolean>();
  private readonly dbForms = new Map<string, { workspaceId: string; def: FormDefinition }[]>();

  constructor(
    /** The import's transaction: every lookup sees the database as the import does. */
    readonly db: DbHandle,
    now: Date,
  ) {
    this.nowIso = now.toISOString();
  }

  /** A (schema-checked) timestamp as UTC ISO text, or `fallback` (default: the import's now) when absent. */
  iso(v: string | undefined, fallback = this.nowIso): string {
    if (v === undefined) return fallback;
    // Already in the form toISOString gives (the usual case): no Date round trip.
    return UTC_ISO.test(v) ? v : new Date(v).toISOString();
  }

  /** Sizes the id table of a big collection for `expected` ids before its first claim (IdTable's constructor). */
  expectIds(collection: Collection, expected: number): void {
    if (!this.firstIds.has(collection)) this.firstIds.set(collection, new IdTable(expected));
  }

  /**
   * The id of `collection[index]`: the given one (a duplicate of an earlier item is reported at
   * `.id`), or a new one when absent or not a string.
   */
  claimId(collection: Collection, kind: IdKind, label: string, index: number, given: unknown): string {
    if (typeof given !== 'string') return newId(kind);
    let first = this.firstIds.get(collection);
    if (!first) this.firstIds.set(collection, (first = new IdTable()));
    const prev = first.add(given, index);
    if (prev !== undefined) {
      this.problems.add(`${idx(collection, index)}.id`, `duplicate ${label} id "${given}" (first at ${idx(collection, prev)})`);
    }
    return given;
  }

  /**
   * Claims the ids of a small collection's items (claimId) and reports those that exist already in
   * the table of the same name, in any workspace (responses find forms by id alone).
   * @returns the items' ids, given or new.
   */
  async claimIds(collection: Collection, kind: IdKind, label: string, items: Item<unknown>[]): Promise<string[]> {
    const given = (item: Item<unknown>) => (item.value && typeof item.value === 'object' ? (item.value as { id?: unknown }).id : undefined);
    const ids = items.map((item) => this.claimId(collection, kind, label, item.index, given(item)));
    const exists = await this.existing(
      collection,
      'id',
      items.flatMap((item) => {
        const id = given(item);
        return typeof id === 'string' ? [id] : [];
      }),
    );
    items.forEach((item, i) => {
      if (typeof given(item) === 'string' && exists.has(ids[i]!)) this.problems.add(`${idx(collection, item.index)}.id`, `${label} "${ids[i]}" already exists`);
    });
    return ids;
  }

  /** True when `collection[index]` is the first item with id `id` (duplicates are reported already). */
  isFirst(collection: Collection, id: string, index: number): boolean {
    return this.firstIds.get(collection)?.get(id) === index;
  }

  /** The values of `column` among `values` that `table` already holds, in any workspace. */
  async existing(table: string, column: string, values: Iterable<string>): Promise<Set<string>> {
    const list = [...new Set(values)];
    if (list.length === 0) return new Set();
    // A join on unnest() (hash join) rather than `= any(array)`: linear whatever the sizes, on every
    // PostgreSQL version, even where the column has no index of its own.
    const { rows } = await this.db.raw<{ rows: { v: string }[] }>('select distinct t.?? as v from ?? t join unnest(?::text[]) as x(v) on t.?? = x.v', [
      column,
      table,
      list,
      column,
    ]);
    return new Set(rows.map((r) => r.v));
  }

  /**
   * The `(workspace_id, column)` pairs among `pairs` that `table` already holds: primary-key lookups,
   * for the big collections (rows, responses, email events) whose ids are unique per workspace.
   * Pairs in workspaces the document creates are skipped (nothing can be there yet).
   * @returns keys `${workspaceId}\u0000${value}` of the pairs found.
   */
  async existingIn(table: string, column: string, pairs: Iterable<[string, string]>): Promise<Set<string>> {
    const ws: string[] = [];
    const values: string[] = [];
    for (const [w, v] of pairs) {
      if (this.newWorkspaces.has(w)) continue;
      ws.push(w);
      values.push(v);
    }
    if (ws.length === 0) return new Set();
    const { rows } = await this.db.raw<{ rows: { w: string; v: string }[] }>(
      'select t.workspace_id as w, t.?? as v from ?? t join unnest(?::text[], ?::text[]) as x(w, v) on t.workspace_id = x.w and t.?? = x.v',
      [column, table, ws, values, column],
    );
    return new Set(rows.map((r) => `${r.w}\u0000${r.v}`));
  }

  /** Looks up, once each, the workspaces among `ids` the document does not create. */
  async resolveWorkspaces(ids: Iterable<string>): Promise<void> {
    const missing = [...new Set(ids)].filter((id) => !this.docWorkspaces.has(id) && !this.dbWorkspaces.has(id));
    const found = await this.existing('workspaces', 'id', missing);
    for (const id of missing) this.dbWorkspaces.set(id, found.has(id));
  }

  /** Reports `unknown workspace` at `path` unless `id` is in the document or (resolved) in the database. */
  checkWorkspace(path: string, id: string): boolean {
    if (this.docWorkspaces.has(id) || this.dbWorkspaces.get(id) === true) return true;
    this.problems.add(path, `unknown workspace "${id}"`);
    return false;
  }

  /** Looks up, once each, the forms among `ids` the document does not define. */
  async resolveForms(ids: Iterable<string>): Promise<void> {
    const missing = [...new Set(ids)].filter((id) => !this.forms.has(id) && !this.dbForms.has(id));
    if (missing.length === 0) return;
    for (const id of missing) this.dbForms.set(id, []);
    for (const f of await formDefinitionsFromDb(this.db, missing)) {
      const { workspaceId, ...def } = f;
      this.dbForms.get(f.id)!.push({ workspaceId, def });
    }
  }

  /** The database's forms with id `id` (resolved before), one per workspace that has one. */
  formsInDb(id: string): { workspaceId: string; def: FormDefinition }[] {
    return this.dbForms.get(id) ?? [];
  }

  /** The workspace of a row the document defines, when its datatable names one. */
  rowWorkspace(row: RowInfo): string | undefined {
    return this.tables.get(row.table)?.workspaceId;
  }
}
