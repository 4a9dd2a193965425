/**
 * The worker's side of deleting responses (docs/api-rules.md, "Deleting responses"; docs/data-rights.md): the bulk
 * delete jobs of the `response-deletion` queue and the retention pass. Both open one transaction per batch (the
 * worker is an edge: docs/decisions.md, "Who opens transactions") and call the core's one delete.
 */
import { AppError } from '../core/errors';
import { failDeletion, runDeletionBatch, type DeletionJob } from '../core/responses/deletions';
import { deleteExpiredEmailEvents, deleteExpiredResponses, retainingWorkspaces } from '../core/responses/retention';
import { type Db, withTransaction } from '../db';
import { deleteInBatches, type BatchOptions } from '../db/batches';

/**
 * Runs a bulk delete job to its end: batches of `batchSize`, one transaction each, until nothing its filters select
 * is left, or `signal` aborts (the job is then retried by pg-boss and goes on where it stopped). A job whose stored
 * filters no longer hold (validation_error) is marked `failed`; any other error is thrown, for pg-boss to retry.
 */
export async function runDeletionJob(db: Db, job: DeletionJob, batchSize: number, signal?: AbortSignal): Promise<void> {
  for (;;) {
    let step: 'done' | 'more';
    try {
      step = await withTransaction(db, (trx) => runDeletionBatch(trx, job, batchSize));
    } catch (e) {
      if (e instanceof AppError && e.status === 400) {
        await failDeletion(db, job, e.message);
        return;
      }
      throw e;
    }
    if (step === 'done') return;
    if (signal?.aborted) throw new Error('the worker is stopping; the deletion goes on when the job is retried');
  }
}

/** Rows the retention deleted in one pass. */
export interface RetentionResult {
  responses: number;
  emailEvents: number;
}

/**
 * One retention pass as of `now`: for each workspace with a retention set, its expired responses (a transaction per
 * batch of `opts.batchSize`) and then its expired email events, with pauses between batches (db/batches.ts).
 */
export async function pruneExpiredResponses(db: Db, now: Date, opts: BatchOptions = {}): Promise<RetentionResult> {
  const result: RetentionResult = { responses: 0, emailEvents: 0 };
  for (const w of await retainingWorkspaces(db)) {
    if (opts.signal?.aborted) break;
    result.responses += await deleteInBatches((limit) => withTransaction(db, (trx) => deleteExpiredResponses(trx, w, now, limit)), opts);
    result.emailEvents += await deleteInBatches((limit) => deleteExpiredEmailEvents(db, w, now, limit), opts);
  }
  return result;
}
