/**
 * The delivery job queue (docs/webhooks.md, "Running the worker"): which jobs go in and with what
 * options. pg-boss itself, and the executor that runs it on our knex connection, are in src/db/pg-boss.ts.
 */
import { type DbHandle } from '../../db';
import { insertJobs } from '../../db/pg-boss';

/** The pg-boss queue of delivery attempts: one job per attempt (created by migration 20261123_004). */
export const DELIVERY_QUEUE = 'webhook-delivery';

/** Job data of one attempt: the delivery and the attempt token it may claim (see delivery/attempt.ts). */
export interface AttemptJob {
  workspaceId: string;
  deliveryId: string;
  token: string;
}

/** Options of the delivery jobs: a job lives at most a minute per fetch; a crashed worker's job comes back. */
export const ATTEMPT_JOB_OPTIONS = { retryLimit: 5, retryDelay: 30, expireInSeconds: 60 } as const;

/**
 * Inserts attempt jobs inside `trx` (the caller's transaction), each to start at its `startAfter`.
 * @param jobs `startAfter` undefined: at once.
 */
export async function enqueueAttempts(trx: DbHandle, jobs: ReadonlyArray<AttemptJob & { startAfter?: Date | undefined }>): Promise<void> {
  await insertJobs(
    trx,
    jobs.map(({ startAfter, ...data }) => ({ name: DELIVERY_QUEUE, data, startAfter, ...ATTEMPT_JOB_OPTIONS })),
  );
}
