/**
 * The sentiment backfill (docs/operations.md, "Sentiment"): responses stored without their sentiment (written
 * before migration 015, or while `SENTIMENT=off`) are scored a small batch at a time, in key order
 * (workspace_id, id), by the worker (src/delivery/sentiment-backfill.ts). The job stores the last key it finished in
 * `sentiment_backfill`, so a restart continues after it; a row is scored once, since storing its sentiment clears its
 * pending mark (`responses.sentiment_pending`) and the work list holds pending rows only. Nothing is recomputed.
 *
 * A pass ends when no pending row follows the stored key; the next batch then starts a new pass from the first key,
 * which finds the rows written while the switch was off behind the key (none, usually: the job is then done).
 */
import type { DbHandle } from '../../db';
import { pendingSentimentRows, readSentimentProgress, storeSentiments, writeSentimentProgress, type SentimentBackfillProgress } from './responses.store';
import { scoreAnswers } from './sentiment';

/** The job's name in `sentiment_backfill`. */
export const SENTIMENT_BACKFILL_JOB = 'responses';

/** What one batch did. */
export interface SentimentBatchResult {
  /** Rows scored and stored by this batch. */
  filled: number;
  /** True when no response is pending: nothing to do until one is written without sentiment. */
  done: boolean;
  /** The progress stored after the batch. */
  progress: SentimentBackfillProgress;
}

/**
 * Scores the next `batchSize` pending responses after the stored key, stores them and the new key, in the caller's
 * transaction (docs/decisions.md, "Who opens transactions": the worker opens one per batch, so a batch and its key
 * commit together).
 * @param batchSize rows per batch, 1 or more.
 * @param opts.job the progress row (default SENTIMENT_BACKFILL_JOB; tests use their own); `now` the time recorded as
 *   the start or end of a pass.
 */
export async function backfillSentimentBatch(db: DbHandle, batchSize: number, opts: { job?: string; now?: Date } = {}): Promise<SentimentBatchResult> {
  const job = opts.job ?? SENTIMENT_BACKFILL_JOB;
  const now = opts.now ?? new Date();
  const before = await readSentimentProgress(db, job);
  const rows = await pendingSentimentRows(db, before.after, batchSize);
  if (rows.length === 0) {
    // The end of a pass: the next batch starts from the first key (rows written behind the key while the switch
    // was off); a pass that started at the first key and found nothing means nothing is pending.
    const done = before.after === null;
    const progress: SentimentBackfillProgress = { ...before, after: null, passFinishedAt: before.passFinishedAt ?? now };
    if (!done || before.passFinishedAt === null) await writeSentimentProgress(db, job, progress);
    return { filled: 0, done, progress };
  }
  const updates = rows.map((r) => {
    const scored = scoreAnswers(r.answers, r.language);
    return {
      workspace_id: r.workspace_id,
      id: r.id,
      answers: scored.answers,
      sentiment_score: scored.overall?.score ?? null,
      sentiment_label: scored.overall?.label ?? null,
    };
  });
  const filled = await storeSentiments(db, updates);
  const last = rows[rows.length - 1]!;
  const progress: SentimentBackfillProgress = {
    after: { workspaceId: last.workspace_id, id: last.id },
    filled: before.filled + filled,
    passStartedAt: before.after === null ? now : before.passStartedAt,
    passFinishedAt: null,
  };
  await writeSentimentProgress(db, job, progress);
  return { filled, done: false, progress };
}
