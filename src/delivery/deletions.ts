/**
 * The worker's side of deleting responses (docs/api-rules.md, "Deleting responses"; docs/data-rights.md): the bulk
 * delete jobs of the `response-deletion` queue and the retention pass. Both open one transaction per batch (the
 * worker is an edge: docs/decisions.md, "Who opens transactions") and call the core's one delete.
 */
import { recordAudit, SYSTEM_ORIGIN } from '../core/audit/audit.store';
import { retentionDeleted } from '../core/audit/audit-events';
import { AppError } from '../core/errors';
import { failDeletion, runDeletionBatch, type DeletionJob } from '../core/responses/deletions';
import { deleteExpiredEmailEvents, deleteExpiredResponses, retainingWorkspaces, retentionCutoff, type RetainingWorkspace } from '../core/responses/retention';
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
 * One batch of the retention in its own transaction: the delete and, when it removed anything, its audit record
 * (actor "system"), so the trail holds exactly the batches that committed.
 */
function retentionBatch(db: Db, w: RetainingWorkspace, now: Date, kind: 'responses' | 'email_events', limit: number): Promise<number> {
  return withTransaction(db, async (trx) => {
    const n = kind === 'responses' ? await deleteExpiredResponses(trx, w, now, limit) : await deleteExpiredEmailEvents(trx, w, now, limit);
    if (n > 0) await recordAudit(trx, SYSTEM_ORIGIN, retentionDeleted(w.id, kind, n, retentionCutoff(w, now)));
    return n;
  });
}

/**
 * One retention pass as of `now`: for each workspace with a retention set, its expired responses and then its expired
 * email events, a transaction per batch of `opts.batchSize` (retentionBatch), with pauses between batches (db/batches.ts).
 */
export async function pruneExpiredResponses(db: Db, now: Date, opts: BatchOptions = {}): Promise<RetentionResult> {
  const result: RetentionResult = { responses: 0, emailEvents: 0 };
  for (const w of await retainingWorkspaces(db)) {
    if (opts.signal?.aborted) break;
    result.responses += await deleteInBatches((limit) => retentionBatch(db, w, now, 'responses', limit), opts);
    result.emailEvents += await deleteInBatches((limit) => retentionBatch(db, w, now, 'email_events', limit), opts);
  }
  return result;
}
