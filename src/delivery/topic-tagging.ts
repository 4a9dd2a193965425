/**
 * The worker's topic tagging (docs/analytics.md, "Topics"): when a topic is created or its query changes, the
 * responses that existed already are tagged a batch at a time (src/core/topics/topics.store.ts,
 * tagPendingTopicBatch), one transaction per batch, each storing the key it reached on the topic, so a restart
 * continues after it. It logs each finished pass and its progress (every `logEvery` responses looked at), and the
 * gauges `topic_tagging_pending` and `topic_tagging_tagged` show it in /metrics. Runs in every worker; two workers
 * take different topics (the batch locks its topic, SKIP LOCKED).
 */
import { tagPendingTopicBatch, topicTaggingState, type TopicTaggingBatch } from '../core/topics/topics.store';
import { withTransaction, type Db } from '../db';
import type { Logger } from '../platform/logger';
import { startBatchLoop, type BatchLoopTiming } from './batch-loop';

/**
 * Defaults: 500 responses per batch, 50 ms between batches, 5 s between looks once no topic has a pass to run (a new
 * topic is soon tagged), a first batch after 5 s, a log line every 50 000 responses looked at.
 */
export interface TopicTaggingOptions extends BatchLoopTiming {
  db: Db;
  logger: Logger;
  /** Called after each batch (tests wait on it). */
  onBatch?(result: TopicTaggingBatch): void;
}

/** Starts the tagging loop. `stop()` ends it and resolves once the batch in progress has committed. */
export function startTopicTagging(opts: TopicTaggingOptions): { stop(): Promise<void> } {
  const { db, logger } = opts;
  const batchSize = opts.batchSize ?? 500;
  const logEvery = opts.logEvery ?? 50_000;
  let sinceLog = 0;
  const batch = async (): Promise<boolean> => {
    const result = await withTransaction(db, (trx) => tagPendingTopicBatch(trx, batchSize));
    opts.onBatch?.(result);
    sinceLog += result.looked;
    if (result.finished) logger.info({ topicId: result.topicId, workspaceId: result.workspaceId }, 'topic tagging: pass finished');
    else if (sinceLog >= logEvery) {
      logger.info({ topicId: result.topicId, workspaceId: result.workspaceId, looked: sinceLog }, 'topic tagging progress');
      sinceLog = 0;
    }
    return result.topicId !== undefined;
  };
  return startBatchLoop({
    batch,
    onError: (e) => logger.warn({ err: e }, 'topic tagging batch failed; it is tried again'),
    pauseMs: opts.pauseMs ?? 50,
    idleMs: opts.idleMs ?? 5_000,
    startDelayMs: opts.startDelayMs ?? 5_000,
  });
}

/** The tagging's state for /metrics (topics with a pass to run; tags the job has written). */
export function topicTaggingMetrics(db: Db): Promise<{ pending: number; tagged: number }> {
  return topicTaggingState(db);
}
