"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.fetchKeysetPage = fetchKeysetPage;
exports.fetchOffsetPage = fetchOffsetPage;
exports.countRows = countRows;
exports.sumColumn = sumColumn;
const errors_1 = require("../errors");
const keyset_1 = require("./keyset");
const sort_1 = require("./sort");
const KEY_ALIAS = '__k';
function cursorValue(v) {
    return v instanceof Date ? v.toISOString() : v;
}
/**
 * Fetches one keyset page: `limit + 1` rows to learn whether there is more, in the order of `keys`.
 * @param listId identity of the list (cursors from another list are rejected)
 * @returns rows (without the helper key columns) and the cursors of the neighbouring pages.
 * @throws AppError validation_error for a malformed or foreign cursor.
 */
async function fetchKeysetPage(db, query, keys, limit, cursor, listId) {
    const signature = (0, sort_1.sortSignature)(keys);
    const decoded = cursor === undefined ? undefined : (0, keyset_1.decodeCursor)(cursor, listId, signature, keys);
    const backward = decoded?.d === 'p';
    const q = query.clone();
    keys.forEach((k, i) => q.select(db.raw(`${k.field.expr.sql} AS ??`, [...k.field.expr.bindings, `${KEY_ALIAS}${i}`])));
    if (decoded) {
        const cond = (0, keyset_1.keysetCondition)(keys, decoded.k, backward ? 'before' : 'after');
        q.whereRaw(cond.sql, cond.bindings);
    }
    const order = (0, keyset_1.orderByClause)(keys, backward);
    q.orderByRaw(order.sql, order.bindings).limit(limit + 1);
    const fetched = (await q);
    const more = fetched.length > limit;
    const page = fetched.slice(0, limit);
    if (backward)
        page.reverse();
    const keyOf = (row) => keys.map((_, i) => cursorValue(row[`${KEY_ALIAS}${i}`]));
    const make = (row, d) => row === undefined ? null : (0, keyset_1.encodeCursor)({ l: listId, s: signature, k: keyOf(row), d });
    const first = page[0];
    const last = page[page.length - 1];
    const nextCursor = backward ? make(last, 'n') : more ? make(last, 'n') : null;
    const prevCursor = backward ? (more ? make(first, 'p') : null) : decoded ? make(first, 'p') : null;
    const rows = page.map((row) => {
        const clean = {};
        for (const [k, v] of Object.entries(row))
            if (!k.startsWith(KEY_ALIAS))
                clean[k] = v;
        return clean;
    });
    return { rows, nextCursor, prevCursor };
}
/**
 * Fetches one offset page (`page` is 1-based) in the order of `keys`.
 * With `primaryKey`, a deep page is a deferred join: the offset is skipped over the primary keys
 * alone (an index-only walk when an index covers the order and the narrowing), then only the page's
 * rows are read. Without it, PostgreSQL would read every skipped row in full.
 * With `seek`, a page past the first starts where the seek says and skips only the rest of the offset.
 */
async function fetchOffsetPage(query, keys, page, limit, primaryKey, seek) {
    const order = (0, keyset_1.orderByClause)(keys);
    let offset = (page - 1) * limit;
    if (!Number.isSafeInteger(offset))
        throw errors_1.errors.invalid('query', 'page', '`page` is too large.');
    let base = query;
    if (seek && offset > 0) {
        const start = await seek(offset);
        if (start === null)
            return [];
        base = query.clone().whereRaw(start.where.sql, start.where.bindings);
        offset -= start.skipped;
    }
    if (!primaryKey || offset === 0) {
        return (await base.clone().orderByRaw(order.sql, order.bindings).offset(offset).limit(limit));
    }
    const pageKeys = base.clone().clearSelect().select([...primaryKey]).orderByRaw(order.sql, order.bindings).offset(offset).limit(limit);
    return (await base.clone().whereIn([...primaryKey], pageKeys).orderByRaw(order.sql, order.bindings));
}
/** `SELECT count(*)` of a query (its selected columns and order dropped), as a number. */
async function countRows(query) {
    const row = (await query.clone().clearSelect().clearOrder().count({ n: '*' }).first());
    return Number(row?.n ?? 0);
}
/** `SELECT sum(column)` of a query, 0 when empty. */
async function sumColumn(query, column) {
    const row = (await query.clone().sum({ n: column }).first());
    return Number(row?.n ?? 0);
}
//# sourceMappingURL=list.js.map