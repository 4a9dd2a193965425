/**
 * The import's one transaction (docs/import.md, "Running an import") with the writer that fits the database.
 * The one core module that opens a transaction itself: on PostgreSQL COPY must run on the very
 * connection the transaction holds, which src/db/copy-writer.ts takes (docs/decisions.md, "Who opens
 * transactions").
 */
import type { Knex } from 'knex';
import { isEmbedded, type Db } from '../../db';
import { withCopyTransaction } from '../../db/copy-writer';
import { insertWriter } from './insert-writer';
import { IMPORT_TABLES, type ImportTable, type ImportWriter } from './writer';

/** Tables written through a staging table, with the order of their main keyset index (src/db/copy-writer.ts). */
const STAGED: Partial<Record<ImportTable, string>> = {
  responses: 'workspace_id, created_at DESC, id DESC',
  email_events: 'workspace_id, created_at DESC, id DESC',
};

/**
 * Runs `fn` in one transaction with the writer that fits the database: COPY on PostgreSQL, INSERT on
 * PGlite. Committed when `fn` resolves, rolled back when it throws.
 */
export async function withImportWriter<T>(db: Db, fn: (trx: Knex.Transaction, writer: ImportWriter) => Promise<T>): Promise<T> {
  if (isEmbedded(db)) return db.transaction((trx) => fn(trx, insertWriter(trx)));
  return withCopyTransaction(db, { columns: IMPORT_TABLES, staged: STAGED }, fn);
}
