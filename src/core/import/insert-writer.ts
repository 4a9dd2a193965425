/**
 * The import writer of the embedded database (PGlite has no COPY from a client stream): multi-row
 * `INSERT … SELECT … FROM jsonb_to_recordset(?::jsonb)`, one bind parameter per statement (far from
 * the 65535-parameter limit), so jsonb columns receive real JSON (a JS array never becomes a
 * PostgreSQL array). Also correct on PostgreSQL, only slower than COPY.
 */
import type { Knex } from 'knex';
import type { Rec } from './context';
import { IMPORT_TABLES, type ImportTable, type ImportWriter } from './writer';

/** Rows per INSERT statement. */
const ROWS_PER_STATEMENT = 1000;

/** A writer of INSERT statements in the transaction `trx`. */
export function insertWriter(trx: Knex.Transaction): ImportWriter {
  return {
    async write(table: ImportTable, records: readonly Rec[]): Promise<void> {
      const columns = IMPORT_TABLES[table];
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

    finish: () => Promise.resolve(),
  };
}
