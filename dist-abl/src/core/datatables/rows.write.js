"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.columnTypeProblem = columnTypeProblem;
exports.upsertRows = upsertRows;
exports.patchRow = patchRow;
exports.deleteRow = deleteRow;
const db_1 = require("../../db");
const errors_1 = require("../errors");
const ids_1 = require("../ids");
const dates_1 = require("../query/dates");
const outbox_1 = require("../webhooks/outbox");
const datatables_service_1 = require("./datatables.service");
const RETURNING = 'row_id, datatable_id, data, created_at, updated_at, external_id';
/** `data` minus its top-level `null` members (a null removes a column; nested json values keep theirs). */
const STRIP_NULLS = (expr) => `COALESCE((SELECT jsonb_object_agg(e.key, e.value) FROM jsonb_each(${expr}) e WHERE e.value <> 'null'::jsonb), '{}'::jsonb)`;
/**
 * Why a column value does not fit its field type (CONTRACT section 10), or undefined when it fits.
 * The one check for row writes and fixture rows (the importer).
 */
function columnTypeProblem(type, value) {
    switch (type) {
        case 'string':
            return typeof value === 'string' ? undefined : 'must be a string';
        case 'number':
            return typeof value === 'number' && Number.isFinite(value) ? undefined : 'must be a number';
        case 'boolean':
            return typeof value === 'boolean' ? undefined : 'must be true or false';
        case 'date':
            if (typeof value !== 'string')
                return 'must be a date (YYYY-MM-DD) or an ISO 8601 date-time with offset';
            try {
                (0, dates_1.parseDateValue)(value, 'value', 'body');
                return undefined;
            }
            catch {
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
function checkColumns(data, fields, prefix, out, opts) {
    for (const [name, value] of Object.entries(data)) {
        const field = `${prefix}.${name}`;
        if (name === 'id') {
            if (value === null && opts.idMayBeNull)
                continue;
            const ok = (typeof value === 'string' && value !== '') || (typeof value === 'number' && Number.isFinite(value));
            if (!ok)
                out.push({ location: 'body', field, message: `\`${field}\` must be a non-empty string or a number.` });
            else if (fields.has('id')) {
                const why = columnTypeProblem(fields.get('id'), value);
                if (why)
                    out.push({ location: 'body', field, message: `\`${field}\` ${why}.` });
            }
            continue;
        }
        const type = fields.get(name);
        if (type === undefined) {
            const known = [...fields.keys()].join(', ') || 'none';
            out.push({ location: 'body', field, message: `\`${field}\` is not a column of this table (columns: ${known}).` });
            continue;
        }
        if (value === null)
            continue;
        const why = columnTypeProblem(type, value);
        if (why)
            out.push({ location: 'body', field, message: `\`${field}\` ${why} (column type ${type}).` });
    }
}
/**
 * What a row write needs to know, in ONE query: the table's fields (404 when the table does not exist)
 * and the workspace's enabled webhook endpoints.
 * @throws AppError resource_not_found for the datatable.
 */
async function writeContext(db, workspaceId, datatableId) {
    const { rows } = (await db.raw(`SELECT COALESCE((SELECT json_agg(json_build_object('name', f.name, 'type', f.type) ORDER BY f.position, f.name)
                        FROM datatable_fields f WHERE f.workspace_id = d.workspace_id AND f.datatable_id = d.id), '[]') AS fields,
            COALESCE((SELECT json_agg(json_build_object('id', e.id, 'events', e.events) ORDER BY e.id)
                        FROM webhook_endpoints e WHERE e.workspace_id = d.workspace_id AND e.enabled), '[]') AS endpoints
       FROM datatables d WHERE d.workspace_id = ? AND d.id = ?`, [workspaceId, datatableId]));
    const found = rows[0];
    if (!found)
        throw errors_1.errors.notFound('Datatable', datatableId);
    return { fields: new Map(found.fields.map((f) => [f.name, f.type])), endpoints: found.endpoints };
}
const isPlainObject = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);
/**
 * Creates or updates rows in ONE transaction (all or nothing). An item with `id` is an upsert on it
 * (`INSERT … ON CONFLICT (workspace_id, datatable_id, external_id) DO UPDATE`, race-free): the columns
 * sent overwrite, the others stay, `null` removes a column. An item without `id` always creates a
 * row with a new `row_…` id.
 * @returns the rows in request order, each with `created`; times are UTC Dates.
 * @throws AppError resource_not_found for the datatable; validation_error (details naming e.g.
 * `data[3].seats`) for an unknown column, a value of the wrong type, a missing `id` when required,
 * the same `id` twice, or too many items.
 * Spec: Style A POST {ws}/datatables/{id}/rows; Style B POST {ws}/tables/{id}/entries and bulk-entries.
 */
async function upsertRows(db, workspaceId, datatableId, items, opts) {
    if (opts.maxItems !== undefined && items.length > opts.maxItems) {
        throw errors_1.errors.invalid('body', 'data', `\`data\` holds at most ${opts.maxItems} rows; got ${items.length}.`);
    }
    if (items.length === 0)
        throw errors_1.errors.invalid('body', 'data', '`data` needs at least one row.');
    const { fields, endpoints } = await writeContext(db, workspaceId, datatableId);
    const prepared = prepareItems(items, fields, opts);
    // One INSERT statement is atomic by itself: a transaction is needed only to add webhook events or to
    // drop the nulls of created rows in a second statement.
    if (!(0, outbox_1.anySubscribed)(endpoints, ['row.created', 'row.updated']) && !prepared.some((p) => p.hasNull)) {
        return upsertStatement(db, workspaceId, datatableId, prepared);
    }
    return db.transaction(async (trx) => {
        const result = await upsertStatement(trx, workspaceId, datatableId, prepared);
        await (0, outbox_1.recordEvents)(trx, workspaceId, result.map(({ created, ...row }) => ({ type: created ? 'row.created' : 'row.updated', resource: { kind: 'row', row } })), endpoints);
        return result;
    });
}
/**
 * Checks every item against the fields and gives each a new `row_id`.
 * @throws AppError validation_error naming every problem (`data[3].seats`, a repeated `id`, …).
 */
function prepareItems(items, fields, opts) {
    const problems = [];
    const seen = new Map();
    const prepared = items.map((item, i) => {
        const prefix = opts.single ? 'data' : `data[${i}]`;
        if (!isPlainObject(item)) {
            problems.push({ location: 'body', field: prefix, message: `\`${prefix}\` must be an object of columns.` });
            return { ord: i, row_id: '', data: {}, key: undefined, hasNull: false };
        }
        checkColumns(item, fields, prefix, problems, { idMayBeNull: false });
        const id = item.id;
        if ((id === undefined || id === null) && opts.requireId) {
            problems.push({ location: 'body', field: `${prefix}.id`, message: `\`${prefix}.id\` is required (the upsert key).` });
        }
        const key = id === undefined || id === null ? undefined : String(id);
        if (key !== undefined) {
            const first = seen.get(key);
            if (first !== undefined) {
                problems.push({ location: 'body', field: `${prefix}.id`, message: `\`${prefix}.id\` "${key}" repeats data[${first}].id; send each id once.` });
            }
            else
                seen.set(key, i);
        }
        const hasNull = Object.values(item).some((v) => v === null);
        return { ord: i, row_id: (0, ids_1.newId)('row'), data: item, key, hasNull };
    });
    if (problems.length > 0)
        throw errors_1.errors.validation(problems);
    return prepared;
}
/**
 * The upsert itself: one `INSERT … ON CONFLICT DO UPDATE` for every item (race-free: two clients
 * upserting the same `data.id` at once leave one row), then, for created rows that were sent with
 * a `null` column, one UPDATE that drops those columns. Rows come back in request order.
 */
async function upsertStatement(q, workspaceId, datatableId, prepared) {
    // Upserts in a stable key order, so two overlapping bulk writes lock rows in the same order.
    const ordered = [...prepared].sort((a, b) => (a.key ?? '\uffff' + a.row_id).localeCompare(b.key ?? '\uffff' + b.row_id));
    const { rows } = (await q.raw(`INSERT INTO datatable_rows AS r (workspace_id, datatable_id, row_id, data)
     SELECT ?, ?, x.row_id, x.data
       FROM jsonb_to_recordset(?::jsonb) AS x(row_id text, data jsonb)
     ON CONFLICT (workspace_id, datatable_id, external_id)
     DO UPDATE SET data = ${STRIP_NULLS('r.data || EXCLUDED.data')}, updated_at = now()
     RETURNING ${RETURNING}, (xmax = 0) AS inserted`, [workspaceId, datatableId, JSON.stringify(ordered.map((p) => ({ row_id: p.row_id, data: p.data })))]));
    // Created rows keep a null sent for a column out of their data.
    const createdWithNulls = rows.filter((r) => r.inserted && Object.values(r.data).some((v) => v === null)).map((r) => r.row_id);
    if (createdWithNulls.length > 0) {
        const { rows: fixed } = (await q.raw(`UPDATE datatable_rows SET data = ${STRIP_NULLS('data')}
        WHERE workspace_id = ? AND datatable_id = ? AND row_id = ANY(?)
        RETURNING ${RETURNING}`, [workspaceId, datatableId, createdWithNulls]));
        const byId = new Map(fixed.map((r) => [r.row_id, r]));
        for (const r of rows) {
            const f = byId.get(r.row_id);
            if (f)
                r.data = f.data;
        }
    }
    const byKey = new Map(rows.filter((r) => r.external_id !== null).map((r) => [r.external_id, r]));
    const byRowId = new Map(rows.map((r) => [r.row_id, r]));
    return prepared.map((p) => {
        const r = p.key !== undefined ? byKey.get(p.key) : byRowId.get(p.row_id);
        if (!r)
            throw new Error(`upsert returned no row for item ${p.ord}`);
        return { ...(0, datatables_service_1.toRow)(r), created: r.inserted === true };
    });
}
/**
 * Merges columns into one row: the columns sent overwrite, `null` removes a column, the others stay.
 * Changing `id` to the `id` of another row of the table violates the unique index (23505), which
 * the error handler answers as 409 conflict.
 * @throws AppError resource_not_found for the datatable or the row; validation_error naming
 * `data.<column>` for an unknown column or a wrong type.
 * Spec: Style A PATCH {ws}/datatables/{id}/rows/{row_id}; Style B PATCH {ws}/tables/{id}/entries/{row_id}.
 */
async function patchRow(db, workspaceId, datatableId, rowId, patch) {
    const { fields, endpoints } = await writeContext(db, workspaceId, datatableId);
    return db.transaction(async (trx) => {
        const problems = [];
        checkColumns(patch, fields, 'data', problems, { idMayBeNull: true });
        if (problems.length > 0)
            throw errors_1.errors.validation(problems);
        const remove = Object.keys(patch).filter((k) => patch[k] === null);
        const set = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== null));
        const { rows } = (await trx.raw(`UPDATE datatable_rows SET data = (data - ?::text[]) || ?::jsonb, updated_at = now()
        WHERE workspace_id = ? AND datatable_id = ? AND row_id = ?
        RETURNING ${RETURNING}`, [remove, JSON.stringify(set), workspaceId, datatableId, rowId]));
        if (!rows[0])
            throw errors_1.errors.notFound('Row', rowId);
        const row = (0, datatables_service_1.toRow)(rows[0]);
        await (0, outbox_1.recordEvents)(trx, workspaceId, [{ type: 'row.updated', resource: { kind: 'row', row } }], endpoints);
        return row;
    });
}
/**
 * Deletes one row (responses linked to it keep their captured `table_data`; their `row_id` is cleared).
 * @throws AppError resource_not_found for the datatable or the row.
 * Spec: Style A DELETE {ws}/datatables/{id}/rows/{row_id}; Style B DELETE {ws}/tables/{id}/entries/{row_id}.
 */
async function deleteRow(db, workspaceId, datatableId, rowId) {
    await db.transaction(async (trx) => {
        await (0, datatables_service_1.getDatatable)(trx, workspaceId, datatableId);
        const n = await (0, db_1.affectedRows)(trx('datatable_rows').where({ workspace_id: workspaceId, datatable_id: datatableId, row_id: rowId }).delete(), 'row_id');
        if (n === 0)
            throw errors_1.errors.notFound('Row', rowId);
        await (0, outbox_1.recordEvents)(trx, workspaceId, [{ type: 'row.deleted', resource: { kind: 'row_deleted', rowId, datatableId } }]);
    });
}
//# sourceMappingURL=rows.write.js.map