/**
 * The import's one transaction (docs/import.md, "Running an import") with the writer that fits the database.
 * The one core module that opens a transaction itself: COPY must run on the very connection the
 * transaction holds (docs/decisions.md, "Who opens transactions").
 */
import type { Knex } from 'knex';
import type { ClientBase } from 'pg';
import { isEmbedded, type Db } from '../../db';
import { copyWriter } from './copy-writer';
import { insertWriter } from './insert-writer';
import type { ImportWriter } from './writer';

/**
 * Runs `fn` in one transaction with the writer that fits the database: COPY on PostgreSQL, INSERT on
 * PGlite. Committed when `fn` resolves, rolled back when it throws.
 */
export async function withImportWriter<T>(db: Db, fn: (trx: Knex.Transaction, writer: ImportWriter) => Promise<T>): Promise<T> {
  if (isEmbedded(db)) return db.transaction((trx) => fn(trx, insertWriter(trx)));
  // The transaction runs on a connection taken here, so COPY can use the same pg client knex uses.
  const client = db.client as Knex.Client;
  const connection = (await client.acquireConnection()) as ClientBase;
  try {
    return await db.transaction((trx) => fn(trx, copyWriter(connection)), { connection });
  } finally {
    await client.releaseConnection(connection);
  }
}
