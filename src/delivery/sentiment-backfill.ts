/**
 * The worker's sentiment backfill (docs/operations.md, "Sentiment"): scores the responses stored without sentiment,
 * one small batch per transaction (src/core/responses/sentiment-backfill.ts), with a pause between batches so the
 * work stays off the request path, and looks again every `idleMs` once nothing is pending. It logs its progress
 * (every `logEvery` rows and when a pass ends) and the `sentiment_backfill_pending` and `sentiment_backfill_filled`
 * gauges show it in /metrics. Stopped (the worker's shutdown), it finishes the batch in progress; started again, it
 * continues after the key that batch stored.
 */
import { backfillSentimentBatch, SENTIMENT_BACKFILL_JOB, type SentimentBatchResult } from '../core/responses/sentiment-backfill';
import { countPendingSentiments, readSentimentProgress } from '../core/responses/responses.store';
import { withTransaction, type Db } from '../db';
import type { Logger } from '../platform/logger';
import { startBatchLoop, type BatchLoopTiming } from './batch-loop';

/** Defaults: 200 rows per batch, 50 ms between batches, 60 s between looks once nothing is pending, a first batch after 5 s, a log line every 10 000 rows. */
export interface SentimentBackfillOptions extends BatchLoopTiming {
  db: Db;
  logger: Logger;
  /** The progress row (default `responses`; tests use their own). */
  job?: string;
  /** Called after each batch (tests wait on it). */
  onBatch?(result: SentimentBatchResult): void;
}

/** Starts the backfill loop. `stop()` ends it and resolves once the batch in progress has committed. */
export function startSentimentBackfill(opts: SentimentBackfillOptions): { stop(): Promise<void> } {
  const { db, logger } = opts;
  const batchSize = opts.batchSize ?? 200;
  const logEvery = opts.logEvery ?? 10_000;
  let sinceLog = 0;
  let wasDone = false;

  const batch = async (): Promise<boolean> => {
    const result = await withTransaction(db, (trx) => backfillSentimentBatch(trx, batchSize, opts.job === undefined ? {} : { job: opts.job }));
    opts.onBatch?.(result);
    sinceLog += result.filled;
    if (result.filled > 0 && sinceLog >= logEvery) {
      logger.info({ filled: result.progress.filled, after: result.progress.after }, 'sentiment backfill progress');
      sinceLog = 0;
    }
    if (result.done && !wasDone) logger.info({ filled: result.progress.filled }, 'sentiment backfill: no response is pending');
    wasDone = result.done;
    return !result.done;
  };
  return startBatchLoop({
    batch,
    onError: (e) => logger.warn({ err: e }, 'sentiment backfill batch failed; it is tried again'),
    pauseMs: opts.pauseMs ?? 50,
    idleMs: opts.idleMs ?? 60_000,
    startDelayMs: opts.startDelayMs ?? 5_000,
  });
}

/**
 * The backfill's state for /metrics: responses still pending (a count over the partial index
 * `responses_sentiment_pending_idx`, which holds only them) and the rows the job has filled so far.
 */
export async function sentimentBackfillState(db: Db): Promise<{ pending: number; filled: number }> {
  const [pending, progress] = await Promise.all([countPendingSentiments(db), readSentimentProgress(db, SENTIMENT_BACKFILL_JOB)]);
  return { pending, filled: progress.filled };
}
