/**
 * The worker's side of a webhook recovery (docs/webhooks.md, "Recovering missed events"): the jobs of the
 * `webhook-recovery` queue. A batch per transaction (the worker is an edge: docs/decisions.md, "Who opens
 * transactions") adds the deliveries of the missed events (core/webhooks/recovery.ts `runRecoveryBatch`); then each
 * delivery's first attempt is made here, one after the other in log order, by the one attempt of every delivery
 * (attempt.ts `makeAttempt`), so a receiver gets the recovered events in the order they happened. A failed attempt
 * is retried on the delivery's schedule like any other.
 */
import { AppError } from '../core/errors';
import { failRecovery, runRecoveryBatch, type RecoveryJob } from '../core/webhooks/recovery';
import { withTransaction } from '../db';
import { DeliveryBusyError, makeAttempt, type AttemptContext } from './attempt';

/** Events looked at per batch (one transaction). */
export const RECOVERY_BATCH_SIZE = 100;

/**
 * Runs a recovery job to its end, or until `signal` aborts (pg-boss retries the job, which goes on from the
 * recovery's position; a delivery added but not attempted yet is attempted by its own job). A recovery the log was
 * pruned past (position_expired) is marked `failed`; any other error is thrown, for pg-boss to retry.
 */
export async function runRecoveryJob(ctx: AttemptContext, job: RecoveryJob, signal?: AbortSignal, batchSize = RECOVERY_BATCH_SIZE): Promise<void> {
  for (;;) {
    let batch;
    try {
      batch = await withTransaction(ctx.db, (trx) => runRecoveryBatch(trx, job, batchSize));
    } catch (e) {
      if (e instanceof AppError && (e.status === 400 || e.status === 410)) {
        await failRecovery(ctx.db, job, e.message);
        return;
      }
      throw e;
    }
    for (const key of batch.deliveries) {
      try {
        await makeAttempt(ctx, key);
      } catch (e) {
        // Another worker holds it (its backstop job): that attempt is the one.
        if (!(e instanceof DeliveryBusyError)) throw e;
      }
    }
    if (batch.state === 'done') return;
    if (signal?.aborted) throw new Error('the worker is stopping; the recovery goes on when the job is retried');
  }
}
