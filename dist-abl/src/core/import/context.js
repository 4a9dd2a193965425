"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.ImportContext = void 0;
const ids_1 = require("../ids");
const answers_1 = require("../responses/answers");
const paths_1 = require("./paths");
const problems_1 = require("./problems");
const UTC_ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
class ImportContext {
    db;
    problems = new problems_1.ProblemList();
    nowIso;
    /** The document's top-level keys in order (problems are sorted by them). */
    keys = [];
    /** Workspaces the document defines (ids, including those with problems). */
    docWorkspaces = new Set();
    /** Of those, the ones the database does not hold yet: nothing can be in them before the import. */
    newWorkspaces = new Set();
    forms = new Map();
    /** Datatables by their index in `datatables`. */
    tables = new Map();
    rows = new Map();
    firstIds = new Map();
    dbWorkspaces = new Map();
    dbForms = new Map();
    constructor(
    /** The import's transaction: every lookup sees the database as the import does. */
    db, now) {
        this.db = db;
        this.nowIso = now.toISOString();
    }
    /** A (schema-checked) timestamp as UTC ISO text, or `fallback` (default: the import's now) when absent. */
    iso(v, fallback = this.nowIso) {
        if (v === undefined)
            return fallback;
        // Already in the form toISOString gives (the usual case): no Date round trip.
        return UTC_ISO.test(v) ? v : new Date(v).toISOString();
    }
    /**
     * The id of `collection[index]`: the given one (a duplicate of an earlier item is reported at
     * `.id`), or a new one when absent or not a string.
     */
    claimId(collection, kind, label, index, given) {
        if (typeof given !== 'string')
            return (0, ids_1.newId)(kind);
        let first = this.firstIds.get(collection);
        if (!first)
            this.firstIds.set(collection, (first = new Map()));
        const prev = first.get(given);
        if (prev !== undefined) {
            this.problems.add(`${(0, paths_1.idx)(collection, index)}.id`, `duplicate ${label} id "${given}" (first at ${(0, paths_1.idx)(collection, prev)})`);
        }
        else {
            first.set(given, index);
        }
        return given;
    }
    /**
     * Claims the ids of a small collection's items (claimId) and reports those that exist already in
     * the table of the same name, in any workspace (responses find forms by id alone).
     * @returns the items' ids, given or new.
     */
    async claimIds(collection, kind, label, items) {
        const given = (item) => (item.value && typeof item.value === 'object' ? item.value.id : undefined);
        const ids = items.map((item) => this.claimId(collection, kind, label, item.index, given(item)));
        const exists = await this.existing(collection, 'id', items.flatMap((item) => { const id = given(item); return typeof id === 'string' ? [id] : []; }));
        items.forEach((item, i) => {
            if (typeof given(item) === 'string' && exists.has(ids[i]))
                this.problems.add(`${(0, paths_1.idx)(collection, item.index)}.id`, `${label} "${ids[i]}" already exists`);
        });
        return ids;
    }
    /** True when `collection[index]` is the first item with id `id` (duplicates are reported already). */
    isFirst(collection, id, index) {
        return this.firstIds.get(collection)?.get(id) === index;
    }
    /** The values of `column` among `values` that `table` already holds, in any workspace. */
    async existing(table, column, values) {
        const list = [...new Set(values)];
        if (list.length === 0)
            return new Set();
        // A join on unnest() (hash join) rather than `= any(array)`: linear whatever the sizes, on every
        // PostgreSQL version, even where the column has no index of its own.
        const { rows } = await this.db.raw('select distinct t.?? as v from ?? t join unnest(?::text[]) as x(v) on t.?? = x.v', [column, table, list, column]);
        return new Set(rows.map((r) => r.v));
    }
    /**
     * The `(workspace_id, column)` pairs among `pairs` that `table` already holds: primary-key lookups,
     * for the big collections (rows, responses, email events) whose ids are unique per workspace.
     * Pairs in workspaces the document creates are skipped (nothing can be there yet).
     * @returns keys `${workspaceId}\u0000${value}` of the pairs found.
     */
    async existingIn(table, column, pairs) {
        const ws = [];
        const values = [];
        for (const [w, v] of pairs) {
            if (this.newWorkspaces.has(w))
                continue;
            ws.push(w);
            values.push(v);
        }
        if (ws.length === 0)
            return new Set();
        const { rows } = await this.db.raw('select t.workspace_id as w, t.?? as v from ?? t join unnest(?::text[], ?::text[]) as x(w, v) on t.workspace_id = x.w and t.?? = x.v', [column, table, ws, values, column]);
        return new Set(rows.map((r) => `${r.w}\u0000${r.v}`));
    }
    /** Looks up, once each, the workspaces among `ids` the document does not create. */
    async resolveWorkspaces(ids) {
        const missing = [...new Set(ids)].filter((id) => !this.docWorkspaces.has(id) && !this.dbWorkspaces.has(id));
        const found = await this.existing('workspaces', 'id', missing);
        for (const id of missing)
            this.dbWorkspaces.set(id, found.has(id));
    }
    /** Reports `unknown workspace` at `path` unless `id` is in the document or (resolved) in the database. */
    checkWorkspace(path, id) {
        if (this.docWorkspaces.has(id) || this.dbWorkspaces.get(id) === true)
            return true;
        this.problems.add(path, `unknown workspace "${id}"`);
        return false;
    }
    /** Looks up, once each, the forms among `ids` the document does not define. */
    async resolveForms(ids) {
        const missing = [...new Set(ids)].filter((id) => !this.forms.has(id) && !this.dbForms.has(id));
        if (missing.length === 0)
            return;
        for (const id of missing)
            this.dbForms.set(id, []);
        for (const f of await (0, answers_1.formDefinitionsFromDb)(this.db, missing)) {
            const { workspaceId, ...def } = f;
            this.dbForms.get(f.id).push({ workspaceId, def });
        }
    }
    /** The database's forms with id `id` (resolved before), one per workspace that has one. */
    formsInDb(id) {
        return this.dbForms.get(id) ?? [];
    }
    /** The workspace of a row the document defines, when its datatable names one. */
    rowWorkspace(row) {
        return this.tables.get(row.table)?.workspaceId;
    }
}
exports.ImportContext = ImportContext;
//# sourceMappingURL=context.js.map