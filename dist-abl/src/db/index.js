"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.isEmbedded = isEmbedded;
exports.withTransaction = withTransaction;
exports.affectedRows = affectedRows;
/** True when this knex instance runs on embedded PGlite (no COPY, one connection). */
function isEmbedded(db) {
    return db.client.config.client !== 'pg';
}
/** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. */
function withTransaction(db, fn) {
    return db.transaction(fn);
}
/**
 * Runs an UPDATE or DELETE builder and returns how many rows it touched, counted from `RETURNING`,
 * so PostgreSQL and the embedded PGlite answer alike (knex-pglite returns a result object instead of
 * a count for DELETE: CONTRACT section 7, "The embedded database and PostgreSQL answer alike").
 * @param query a builder already carrying `.update(…)` or `.delete()`.
 * @param column a column of the target table to return (default `id`).
 */
async function affectedRows(query, column = 'id') {
    const rows = (await query.returning(column));
    return rows.length;
}
//# sourceMappingURL=index.js.map