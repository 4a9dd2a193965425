/**
 * The webhook delivery worker (docs/webhooks.md, "Running the worker"): pg-boss 10 on our knex connection
 * (src/db/pg-boss.ts), so it runs the same on PostgreSQL and on the embedded PGlite database
 * (one connection, inside the `serve` process). Several workers, in one process or many, share the
 * `webhook-delivery` queue: pg-boss hands each job to one of them (`FOR UPDATE SKIP LOCKED`) and the
 * attempt claim (delivery/attempt.ts) makes each attempt once.
 */
import type { Config } from '../config';
import { DELIVERY_QUEUE, type AttemptJob } from '../core/webhooks/queue';
import { countPendingDeliveries } from '../core/webhooks/webhooks.store';
import { sealAllAudit } from '../core/audit/audit.store';
import type { Db } from '../db';
import { knexExecutor, PgBoss, type PgBossInstance } from '../db/pg-boss';
import type { Logger } from '../platform/logger';
import { resolveHost } from '../platform/resolve-host';
import { DEFAULT_RETRY_SCHEDULE } from '../core/webhooks/retry-schedule';
import { DeliveryBusyError, makeAttempt, requeueStuckDeliveries, type AttemptContext, type Outcome } from './attempt';
import type { Resolve } from '../core/webhooks/address-policy';
import { startRetention, type PruneResult } from './prune';
import { DELETION_QUEUE, type DeletionJob } from '../core/responses/deletions';
import { runDeletionJob } from './deletions';
import { RECOVERY_QUEUE, type RecoveryJob } from '../core/webhooks/recovery';
import { runRecoveryJob } from './recovery';
import { startSentimentBackfill, type SentimentBackfillOptions } from './sentiment-backfill';
import { startTopicTagging, type TopicTaggingOptions } from './topic-tagging';

/** Hooks for metrics (the ops branch connects them to `webhook_deliveries_total{outcome}`). */
export interface WorkerObserver {
  /** Called once per attempt made: `retried` when another attempt is queued. */
  onOutcome?(outcome: Outcome): void;
}

export interface DeliveryWorkerOptions {
  db: Db;
  config: Config;
  logger: Logger;
  observer?: WorkerObserver;
  /** Deadline of one POST in ms (default 10 000; tests shorten it). */
  timeoutMs?: number;
  /** How often an idle worker looks for due jobs, in seconds (pg-boss minimum 0.5; default 1). */
  pollingIntervalSeconds?: number;
  /** Jobs fetched at once by each of the two fetch loops, attempted in parallel (default 5). */
  batchSize?: number;
  /** Host resolution (tests may point names at loopback). */
  resolve?: Resolve;
  /** Time between passes of the periodic prune in ms (delivery/prune.ts; default 1 h). */
  pruneIntervalMs?: number;
  /** Called after each prune pass (tests). */
  onPrune?: (result: PruneResult) => void;
  /** The sentiment backfill's timing and hooks (delivery/sentiment-backfill.ts); it runs unless `SENTIMENT=off`. */
  sentimentBackfill?: Omit<SentimentBackfillOptions, 'db' | 'logger'>;
  /** The topic tagging's timing and hooks (delivery/topic-tagging.ts). */
  topicTagging?: Omit<TopicTaggingOptions, 'db' | 'logger'>;
}

/**
 * pg-boss's own bookkeeping, set explicitly (pg-boss 10 constructor options): every 60 s one instance
 * (pg-boss takes a turn through `pgboss.version.maintained_on`) moves jobs completed more than an hour
 * ago, and failed ones after a day, from `pgboss.job` to `pgboss.archive`, and deletes archived jobs
 * after 7 days. The delivery log (`webhook_deliveries`) is the record of attempts; a finished job is
 * only kept for debugging. docs/operations.md "What grows, and what bounds it".
 */
export const PGBOSS_RETENTION = {
  maintenanceIntervalSeconds: 60,
  archiveCompletedAfterSeconds: 3600,
  archiveFailedAfterSeconds: 86_400,
  deleteAfterDays: 7,
} as const;

export interface DeliveryWorker {
  start(): Promise<void>;
  /** Stops fetching jobs and resolves once the attempts in progress have finished (at most ~15 s). */
  stop(): Promise<void>;
}

/**
 * Builds the worker; `start()` begins polling the queue.
 * Spec: docs/webhooks.md, "Retries"; docs/operations.md, "Shutdown and drain" (stop after the current attempt).
 */
export function createDeliveryWorker(opts: DeliveryWorkerOptions): DeliveryWorker {
  const { db, config, logger } = opts;
  const ctx: AttemptContext = {
    db,
    policy: { allowHttp: config.webhookAllowHttp, allowPrivate: config.webhookAllowPrivate },
    resolve: opts.resolve ?? resolveHost,
    timeoutMs: opts.timeoutMs ?? 10_000,
    schedule: config.webhookRetrySchedule ?? DEFAULT_RETRY_SCHEDULE,
    // Inside the attempt's span: with traces on, the line carries its trace_id and span_id.
    onOutcome: (outcome, job) => {
      logger.info({ deliveryId: job.deliveryId, workspaceId: job.workspaceId, outcome }, 'webhook attempt');
      try {
        opts.observer?.onOutcome?.(outcome);
      } catch (e) {
        logger.warn({ err: e }, 'webhook observer failed');
      }
    },
  };
  let boss: PgBossInstance | undefined;
  const executor = closableExecutor(knexExecutor(db));
  let stopping: Promise<void> | undefined;
  let sweeper: NodeJS.Timeout | undefined;
  let retention: { stop(): Promise<void> } | undefined;
  const longJobs = new AbortController(); // bulk deletes and recoveries stop between batches
  const loops: Array<{ stop(): Promise<void> }> = [];

  // The outcome is logged and counted by ctx.onOutcome.
  const attempt = async (job: { id: string; data: AttemptJob }) => {
    try {
      await makeAttempt(ctx, job.data);
    } catch (e) {
      if (!(e instanceof DeliveryBusyError))
        logger.warn({ err: e, deliveryId: job.data.deliveryId }, 'webhook attempt could not be recorded; pg-boss retries the job');
      throw e;
    }
  };
  // A batch's attempts run side by side. pg-boss completes or fails a batch as a whole: a job of a
  // failed batch that did make its attempt finds its token used when it comes back, and does nothing.
  const handle = async (jobs: Array<{ id: string; data: AttemptJob }>) => {
    const results = await Promise.allSettled(jobs.map(attempt));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  };

  return {
    async start() {
      boss = new PgBoss({
        db: executor,
        migrate: false,
        schedule: false,
        supervise: true,
        ...PGBOSS_RETENTION,
      } as never);
      boss.on('error', (e: unknown) => logger.warn({ err: e }, 'webhook queue error'));
      await boss.start();
      // pg-boss waits a polling interval between fetches of one loop: two loops of batches keep the
      // queue moving while one batch waits on slow receivers.
      const workOptions = { pollingIntervalSeconds: opts.pollingIntervalSeconds ?? 1, batchSize: opts.batchSize ?? 5 };
      for (let i = 0; i < 2; i++) await boss.work<AttemptJob>(DELIVERY_QUEUE, workOptions, handle as never);
      await workLongJobs(boss, ctx, config, workOptions.pollingIntervalSeconds, longJobs.signal);
      sweeper = startSweeper(db, logger);
      retention = startRetention({
        db,
        logger,
        retentionDays: config.webhookLogRetentionDays,
        auditRetentionDays: config.auditRetentionDays,
        eventRetentionDays: config.eventRetentionDays,
        batch: { responseBatchSize: config.responseDeleteBatchSize },
        ...(opts.pruneIntervalMs !== undefined ? { intervalMs: opts.pruneIntervalMs } : {}),
        ...(opts.onPrune ? { onPass: opts.onPrune } : {}),
      });
      if (config.sentimentEnabled) loops.push(startSentimentBackfill({ db, logger, ...opts.sentimentBackfill }));
      loops.push(startTopicTagging({ db, logger, ...opts.topicTagging }));
      logger.info('webhook delivery worker started');
    },
    stop() {
      stopping ??= (async () => {
        if (!boss) return;
        clearInterval(sweeper);
        longJobs.abort();
        await retention?.stop();
        for (const loop of loops) await loop.stop();
        await boss.stop({ graceful: true, wait: true, timeout: 15_000, close: false });
        await executor.close();
        logger.info('webhook delivery worker stopped');
      })();
      return stopping;
    },
  };
}

/**
 * Every minute: deliveries overdue by 15 min are queued again, and audit records a stopped process or a failed seal
 * left unsealed are sealed (docs/security.md, "The audit trail").
 */
function startSweeper(db: Db, logger: Logger): NodeJS.Timeout {
  const sweeper = setInterval(() => {
    requeueStuckDeliveries(db).then(
      (n) => n > 0 && logger.warn({ deliveries: n }, 'webhook deliveries overdue by 15 min were queued again'),
      (e: unknown) => logger.warn({ err: e }, 'webhook sweep failed'),
    );
    sealAllAudit(db).then(
      (ws) => ws.length > 0 && logger.info({ workspaces: ws.length }, 'unsealed audit records were sealed'),
      (e: unknown) => logger.warn({ err: e }, 'audit seal sweep failed'),
    );
  }, 60_000);
  sweeper.unref();
  return sweeper;
}

/**
 * The queues of long jobs, one job at a time per worker, batch after batch, each stopping between batches once `signal`
 * aborts: bulk deletes (docs/api-rules.md, "Deleting responses") and webhook recoveries (docs/webhooks.md, "Recovering
 * missed events"; their first attempts made in log order through `ctx`).
 */
async function workLongJobs(boss: PgBossInstance, ctx: AttemptContext, config: Config, pollingIntervalSeconds: number, signal: AbortSignal): Promise<void> {
  const one = { pollingIntervalSeconds, batchSize: 1 };
  await boss.work<DeletionJob>(DELETION_QUEUE, one, (async (jobs: Array<{ data: DeletionJob }>) => {
    for (const job of jobs) await runDeletionJob(ctx.db, job.data, config.responseDeleteBatchSize, signal);
  }) as never);
  await boss.work<RecoveryJob>(RECOVERY_QUEUE, one, (async (jobs: Array<{ data: RecoveryJob }>) => {
    for (const job of jobs) await runRecoveryJob(ctx, job.data, signal);
  }) as never);
}

/**
 * Deliveries waiting for an attempt (status `pending`), across workspaces: the `webhook_queue_depth`
 * gauge of docs/operations.md, "Metrics".
 */
export function queueDepth(db: Db): Promise<number> {
  return countPendingDeliveries(db);
}

/**
 * The executor the worker's pg-boss uses, closable: pg-boss completes a finished job without awaiting
 * it, and its fetch loops wind down on a 1 s timer after `stop()` resolves. `close()` waits for both,
 * then parks any later query, so nothing touches the database once the caller destroys it.
 */
function closableExecutor(inner: ReturnType<typeof knexExecutor>) {
  const inFlight = new Set<Promise<unknown>>();
  let closed = false;
  return {
    executeSql(text: string, values?: unknown[]) {
      if (closed) return new Promise<never>(() => undefined);
      const p = inner.executeSql(text, values);
      inFlight.add(p);
      void p.then(
        () => inFlight.delete(p),
        () => inFlight.delete(p),
      );
      return p;
    },
    async close() {
      await new Promise((r) => setTimeout(r, 1100));
      await Promise.allSettled([...inFlight]);
      closed = true;
    },
  };
}
