"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.insertWriter = insertWriter;
const writer_1 = require("./writer");
/** Rows per INSERT statement. */
const ROWS_PER_STATEMENT = 1000;
/** A writer of INSERT statements in the transaction `trx`. */
function insertWriter(trx) {
    return {
        async write(table, records) {
            const columns = writer_1.IMPORT_TABLES[table];
            const names = columns.map((c) => c.name);
            const list = names.map(() => '??').join(', ');
            // Types come from IMPORT_TABLES, never from the document.
            const defs = columns.map((c) => `?? ${c.type}`).join(', ');
            const sql = `insert into ?? (${list}) select ${list} from jsonb_to_recordset(?::jsonb) as x(${defs})`;
            for (let start = 0; start < records.length; start += ROWS_PER_STATEMENT) {
                const batch = records.slice(start, start + ROWS_PER_STATEMENT);
                await trx.raw(sql, [table, ...names, ...names, JSON.stringify(batch), ...names]);
            }
        },
    };
}
//# sourceMappingURL=insert-writer.js.map