"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.withImportWriter = withImportWriter;
const db_1 = require("../../db");
const copy_writer_1 = require("./copy-writer");
const insert_writer_1 = require("./insert-writer");
/**
 * Runs `fn` in one transaction with the writer that fits the database: COPY on PostgreSQL, INSERT on
 * PGlite. Committed when `fn` resolves, rolled back when it throws.
 */
async function withImportWriter(db, fn) {
    if ((0, db_1.isEmbedded)(db))
        return db.transaction((trx) => fn(trx, (0, insert_writer_1.insertWriter)(trx)));
    // The transaction runs on a connection taken here, so COPY can use the same pg client knex uses.
    const connection = (await db.client.acquireConnection());
    try {
        return await db.transaction((trx) => fn(trx, (0, copy_writer_1.copyWriter)(connection)), { connection });
    }
    finally {
        await db.client.releaseConnection(connection);
    }
}
//# sourceMappingURL=import-transaction.js.map