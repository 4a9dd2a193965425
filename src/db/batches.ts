/**
 * Deleting many rows without holding long locks or one huge transaction: a statement removes at most
 * `batchSize` rows, and the next one follows after a pause, until a statement removes fewer.
 */
import type { Knex } from 'knex';
import type { DbHandle, DbTransaction } from './index';
import { affectedRows } from './index';

export interface BatchOptions {
  /** Rows per statement (default 1000). */
  batchSize?: number;
  /** Pause between statements in ms (default 100), so the work stays off the hot path. */
  pauseMs?: number;
  /** Stops after the statement in progress once aborted (the worker's shutdown). */
  signal?: AbortSignal;
}

/**
 * Runs `deleteBatch(limit)` until it reports fewer than `limit` rows, or `signal` aborts.
 * @param deleteBatch one statement deleting at most `limit` rows; resolves to the rows it deleted.
 * @returns the rows deleted in all.
 */
export async function deleteInBatches(deleteBatch: (limit: number) => Promise<number>, opts: BatchOptions = {}): Promise<number> {
  const limit = opts.batchSize ?? 1000;
  const pauseMs = opts.pauseMs ?? 100;
  let total = 0;
  for (;;) {
    const n = await deleteBatch(limit);
    total += n;
    if (n < limit || opts.signal?.aborted) return total;
    await new Promise((r) => setTimeout(r, pauseMs));
  }
}

/** Which rows `deleteOlderInBatches` removes: those of `table` whose `column` is before `before`. */
export interface OlderRows {
  table: string;
  /** The primary key's columns (a batch is chosen by them). */
  key: string[];
  /** The time (or day) column compared with `before`. */
  column: string;
  before: Date | string;
}

/**
 * Deletes the rows of `rows.table` whose `rows.column` is before `rows.before`, at most `batchSize` per statement
 * (each statement picks its batch by the primary key, so an index on `column` serves it); safe on several
 * instances at once: a row deleted by one is not found by another. The stores' prune functions use it.
 * @returns the rows deleted in all.
 */
export function deleteOlderInBatches(db: DbHandle, rows: OlderRows, opts: BatchOptions = {}): Promise<number> {
  const { table, key, column, before } = rows;
  return deleteInBatches(
    (limit) =>
      affectedRows(
        db(table)
          .whereIn(key, db(table).select(key).where(column, '<', before).limit(limit))
          .where(column, '<', before)
          .delete(),
        key[key.length - 1],
      ),
    opts,
  );
}

/**
 * The rows of `query` in batches of `batchSize`, read through a server-side cursor (`DECLARE name NO SCROLL
 * CURSOR`, `FETCH batchSize`) in `trx`: the caller's read-only transaction, which it ends after the iteration
 * (an early `break` too); ending it closes the cursor and frees the connection. `name` must be unique among the
 * cursors open in `trx` at once. Memory holds one batch, whatever the number of rows.
 */
export async function* cursorBatches<Row>(trx: DbTransaction, name: string, query: Knex.QueryBuilder, batchSize = 500): AsyncGenerator<Row[], void, undefined> {
  const compiled = query.toSQL();
  await trx.raw(`DECLARE ${name} NO SCROLL CURSOR FOR ${compiled.sql}`, compiled.bindings as Knex.RawBinding[]);
  for (;;) {
    const result = (await trx.raw(`FETCH ${Math.floor(batchSize)} FROM ${name}`)) as { rows: Row[] };
    if (result.rows.length === 0) break;
    yield result.rows;
  }
  await trx.raw(`CLOSE ${name}`);
}
