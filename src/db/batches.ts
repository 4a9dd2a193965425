/**
 * Deleting many rows without holding long locks or one huge transaction: a statement removes at most
 * `batchSize` rows, and the next one follows after a pause, until a statement removes fewer.
 */

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
