"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.copyWriter = copyWriter;
/**
 * The import writer of PostgreSQL: each batch is one `COPY table (columns) FROM STDIN` in text format
 * (pg-copy-streams), streamed with back-pressure on the transaction's own connection. COPY fires the
 * same statement-level triggers (transition tables) as an INSERT, once per batch.
 */
const node_stream_1 = require("node:stream");
const promises_1 = require("node:stream/promises");
const pg_copy_streams_1 = require("pg-copy-streams");
const writer_1 = require("./writer");
/** Lines sent to the server per write on the stream. */
const LINES_PER_CHUNK = 500;
const SPECIAL = /[\\\n\r\t]/;
/** A text value escaped for COPY's text format (backslash, newline, carriage return, tab). */
function escapeText(s) {
    if (!SPECIAL.test(s))
        return s;
    return s.replace(/[\\\n\r\t]/g, (c) => (c === '\\' ? '\\\\' : c === '\n' ? '\\n' : c === '\r' ? '\\r' : '\\t'));
}
/** One field in COPY text format; `\N` is NULL. */
function field(c, v) {
    if (v === null || v === undefined)
        return '\\N';
    switch (c.type) {
        case 'jsonb':
            return escapeText(JSON.stringify(v));
        case 'boolean':
            return v ? 't' : 'f';
        case 'integer':
        case 'double precision':
            return String(v);
        case 'text[]':
            return escapeText(`{${v.map((s) => `"${s.replace(/[\\"]/g, '\\$&')}"`).join(',')}}`);
        default:
            return escapeText(String(v));
    }
}
function* lines(columns, records) {
    let chunk = '';
    let n = 0;
    for (const r of records) {
        let line = '';
        for (let i = 0; i < columns.length; i++) {
            const c = columns[i];
            line += (i === 0 ? '' : '\t') + field(c, r[c.name]);
        }
        chunk += `${line}\n`;
        if (++n === LINES_PER_CHUNK) {
            yield chunk;
            chunk = '';
            n = 0;
        }
    }
    if (chunk !== '')
        yield chunk;
}
/** A writer of COPY statements on `connection`, the pg client of the import's transaction. */
function copyWriter(connection) {
    return {
        async write(table, records) {
            if (records.length === 0)
                return;
            const columns = writer_1.IMPORT_TABLES[table];
            // Table and column names come from IMPORT_TABLES, never from the document.
            const sql = `COPY "${table}" (${columns.map((c) => `"${c.name}"`).join(', ')}) FROM STDIN`;
            await (0, promises_1.pipeline)(node_stream_1.Readable.from(lines(columns, records)), connection.query((0, pg_copy_streams_1.from)(sql)));
        },
    };
}
//# sourceMappingURL=copy-writer.js.map