"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.toRow = exports.RESERVED_FIELD_NAMES = void 0;
exports.listDatatables = listDatatables;
exports.listAllDatatables = listAllDatatables;
exports.getDatatable = getDatatable;
exports.listFields = listFields;
exports.columnField = columnField;
exports.listRows = listRows;
exports.getRow = getRow;
const errors_1 = require("../errors");
const fields_1 = require("../query/fields");
const filter_1 = require("../query/filter");
const list_1 = require("../query/list");
const simple_list_1 = require("../query/simple-list");
const sort_1 = require("../query/sort");
const sql_1 = require("../query/sql");
/** Column names a datatable may not use: they would collide with the Style A row shape. */
exports.RESERVED_FIELD_NAMES = new Set(['row_id', 'created_at', 'updated_at']);
const toDatatable = (r) => ({
    id: r.id,
    name: r.name,
    rowCount: Number(r.row_count),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
});
async function listDatatables(db, workspaceId, params) {
    const query = db('datatables').select('id', 'name', 'row_count', 'created_at', 'updated_at').where('workspace_id', workspaceId);
    const page = await (0, simple_list_1.listByCreatedOrName)(db, query, `datatables:${workspaceId}`, params);
    return { ...page, items: page.items.map(toDatatable) };
}
/** Every datatable of the workspace by name (Style B `/tables` has no pagination). */
async function listAllDatatables(db, workspaceId) {
    const rows = (await db('datatables')
        .select('id', 'name', 'row_count', 'created_at', 'updated_at')
        .where('workspace_id', workspaceId)
        .orderBy([{ column: 'name' }, { column: 'id' }]));
    return rows.map(toDatatable);
}
/** @throws AppError resource_not_found */
async function getDatatable(db, workspaceId, id, opts = {}) {
    const row = (await db('datatables')
        .select('id', 'name', 'row_count', 'created_at', 'updated_at')
        .where({ workspace_id: workspaceId, id })
        .first());
    if (!row)
        throw errors_1.errors.notFound('Datatable', id);
    const table = toDatatable(row);
    if (opts.fields)
        table.fields = await listFields(db, workspaceId, id);
    return table;
}
async function listFields(db, workspaceId, datatableId) {
    return (await db('datatable_fields')
        .select('name', 'type')
        .where({ workspace_id: workspaceId, datatable_id: datatableId })
        .orderBy([{ column: 'position' }, { column: 'name' }]));
}
const builtin = (name, type) => ({ name, expr: (0, sql_1.sql)('??', name), type, nullable: false });
const ROW_ID = builtin('row_id', 'text');
/** A column's expression, typed by its field: numbers sort and compare as numbers. */
function columnField(f) {
    const cast = f.type === 'number' ? '::numeric' : f.type === 'boolean' ? '::boolean' : '';
    return { name: f.name, expr: (0, sql_1.sql)(`(data ->> ?)${cast}`, f.name), type: f.type === 'number' ? 'number' : f.type === 'boolean' ? 'boolean' : 'text', nullable: true };
}
const toRow = (r) => ({
    rowId: r.row_id,
    datatableId: r.datatable_id,
    data: r.data,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
});
exports.toRow = toRow;
/**
 * Lists a datatable's rows: sort by `created_at`, `updated_at`, `row_id` or any column; `filter` on
 * any column and `row_id`; date bounds on `created_at`.
 * @throws AppError resource_not_found for the datatable; validation_error for sort/filter/cursor.
 */
async function listRows(db, workspaceId, datatableId, q) {
    const table = await getDatatable(db, workspaceId, datatableId, { fields: true });
    const columns = (table.fields ?? []).map(columnField);
    const sortFields = (0, fields_1.fieldMap)([builtin('created_at', 'timestamp'), builtin('updated_at', 'timestamp'), ROW_ID, ...columns]);
    const keys = (0, sort_1.parseSort)(q.sort, {
        fields: sortFields,
        tieBreaker: ROW_ID,
        defaultSort: [{ field: sortFields.get('created_at'), dir: 'desc' }],
        multi: q.multiSort ?? false,
    });
    const base = db('datatable_rows')
        .select('row_id', 'datatable_id', 'data', 'created_at', 'updated_at')
        .where({ workspace_id: workspaceId, datatable_id: datatableId });
    const narrowed = q.filter !== undefined || (q.created?.length ?? 0) > 0;
    if (q.filter !== undefined) {
        const { where } = (0, filter_1.compileFilter)(q.filter, { fields: (0, fields_1.fieldMap)([ROW_ID, ...columns]) });
        base.whereRaw(where.sql, where.bindings);
    }
    for (const b of q.created ?? [])
        base.where('created_at', b.op, b.value);
    if (q.pagination.kind === 'keyset') {
        const page = await (0, list_1.fetchKeysetPage)(db, base, keys, q.pagination.limit, q.pagination.cursor, `rows:${workspaceId}:${datatableId}`);
        return { kind: 'keyset', items: page.rows.map(exports.toRow), limit: q.pagination.limit, nextCursor: page.nextCursor, prevCursor: page.prevCursor };
    }
    const { page, limit } = q.pagination;
    const [rows, filteredTotal] = await Promise.all([
        (0, list_1.fetchOffsetPage)(base, keys, page, limit, ['workspace_id', 'row_id']),
        narrowed ? (0, list_1.countRows)(base) : Promise.resolve(table.rowCount),
    ]);
    return { kind: 'page', items: rows.map(exports.toRow), page, limit, total: table.rowCount, filteredTotal };
}
/** @throws AppError resource_not_found for the datatable or the row */
async function getRow(db, workspaceId, datatableId, rowId) {
    await getDatatable(db, workspaceId, datatableId);
    const row = (await db('datatable_rows')
        .select('row_id', 'datatable_id', 'data', 'created_at', 'updated_at')
        .where({ workspace_id: workspaceId, datatable_id: datatableId, row_id: rowId })
        .first());
    if (!row)
        throw errors_1.errors.notFound('Row', rowId);
    return (0, exports.toRow)(row);
}
//# sourceMappingURL=datatables.service.js.map