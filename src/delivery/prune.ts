/**
 * The worker's periodic prune (docs/operations.md "What grows, and what bounds it"): every hour, the
 * delivery log past `WEBHOOK_LOG_RETENTION_DAYS`, submission tokens a day past their expiry, API key
 * usage older than the usage window, per-operation usage older than 400 days, dashboard download claims a day past their tokens' hour and
 * email-link uses a day past their link's expiry, audit records past `AUDIT_RETENTION_DAYS` (src/core/audit/audit.store.ts),
 * the event log past `EVENT_RETENTION_DAYS` (src/core/events/event-log.store.ts),
 * and the responses and email events of workspaces past their response retention (delivery/deletions.ts), each in
 * small batches with pauses (src/db/batches.ts), off the
 * request path. Every instance's worker runs it; the deletes are idempotent (a row another instance
 * deleted first is simply not found), so several at once only repeat a little work.
 */
import { DEFAULT_AUDIT_RETENTION_DAYS, pruneAuditEvents } from '../core/audit/audit.store';
import { pruneDownloadClaims } from '../core/dashboards/dashboard-links.store';
import { DEFAULT_EVENT_RETENTION_DAYS, pruneEventLog } from '../core/events/event-log.store';
import { pruneKeyUsage, pruneOperationUsage } from '../core/api-keys/usage.store';
import { pruneLinkUses } from '../core/links/link-uses.store';
import { pruneSubmissionTokens } from '../core/responses/submission-tokens.store';
import { pruneWebhookLog } from '../core/webhooks/retention';
import type { Db } from '../db';
import type { BatchOptions } from '../db/batches';
import type { Logger } from '../platform/logger';
import { pruneExpiredResponses } from './deletions';

export interface PruneResult {
  webhookDeliveries: number;
  webhookEvents: number;
  submissionTokens: number;
  apiKeyUsage: number;
  apiKeyOperationUsage: number;
  dashboardDownloadClaims: number;
  emailLinkUses: number;
  auditEvents: number;
  /** Events of the event log past `EVENT_RETENTION_DAYS`. */
  eventLog: number;
  /** Responses past their workspace's retention (docs/data-rights.md, "Retention"). */
  responses: number;
  /** Email events past their workspace's retention. */
  emailEvents: number;
}

/**
 * Batch options of a pass; `responseBatchSize` (RESPONSE_DELETE_BATCH_SIZE) sizes the retention's response batches;
 * `auditRetentionDays` is `AUDIT_RETENTION_DAYS` (default 400), `eventRetentionDays` `EVENT_RETENTION_DAYS` (default 30).
 */
export type PruneOptions = BatchOptions & { responseBatchSize?: number; auditRetentionDays?: number; eventRetentionDays?: number };

/**
 * One pass over every table the service prunes, as of `now`.
 * @param retentionDays `WEBHOOK_LOG_RETENTION_DAYS`.
 * @returns rows deleted per table.
 */
export async function pruneAll(db: Db, retentionDays: number, now: Date, opts: PruneOptions = {}): Promise<PruneResult> {
  const log = await pruneWebhookLog(db, retentionDays, now, opts);
  const submissionTokens = await pruneSubmissionTokens(db, now, opts);
  const today = now.toISOString().slice(0, 10);
  const apiKeyUsage = await pruneKeyUsage(db, today, opts);
  const apiKeyOperationUsage = await pruneOperationUsage(db, today, opts);
  const dashboardDownloadClaims = await pruneDownloadClaims(db, now, opts);
  const emailLinkUses = await pruneLinkUses(db, now, opts);
  const auditEvents = await pruneAuditEvents(db, opts.auditRetentionDays ?? DEFAULT_AUDIT_RETENTION_DAYS, now, opts);
  const eventLog = await pruneEventLog(db, opts.eventRetentionDays ?? DEFAULT_EVENT_RETENTION_DAYS, now, opts);
  const expired = await pruneExpiredResponses(db, now, { ...opts, batchSize: opts.responseBatchSize ?? opts.batchSize });
  return {
    webhookDeliveries: log.deliveries,
    webhookEvents: log.events,
    submissionTokens,
    apiKeyUsage,
    apiKeyOperationUsage,
    dashboardDownloadClaims,
    emailLinkUses,
    auditEvents,
    eventLog,
    responses: expired.responses,
    emailEvents: expired.emailEvents,
  };
}

export interface RetentionOptions {
  db: Db;
  logger: Logger;
  retentionDays: number;
  /** `AUDIT_RETENTION_DAYS` (default 400). */
  auditRetentionDays?: number;
  /** `EVENT_RETENTION_DAYS` (default 30). */
  eventRetentionDays?: number;
  /** Time between passes in ms (default 1 h); the first pass runs after a minute, or this, if shorter. */
  intervalMs?: number;
  /** Rows per statement and pause between statements (`responseBatchSize`: responses per transaction of the retention). */
  batch?: Omit<PruneOptions, 'signal'>;
  /** Called after each pass (tests wait on it). */
  onPass?(result: PruneResult): void;
}

/**
 * Starts the periodic prune. `stop()` ends the schedule and resolves once a pass in progress has
 * finished its current statement.
 */
export function startRetention(opts: RetentionOptions): { stop(): Promise<void> } {
  const intervalMs = opts.intervalMs ?? 3_600_000;
  const abort = new AbortController();
  let running: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  const pass = async () => {
    try {
      const result = await pruneAll(opts.db, opts.retentionDays, new Date(), {
        ...opts.batch,
        signal: abort.signal,
        ...(opts.auditRetentionDays !== undefined ? { auditRetentionDays: opts.auditRetentionDays } : {}),
        ...(opts.eventRetentionDays !== undefined ? { eventRetentionDays: opts.eventRetentionDays } : {}),
      });
      if (Object.values(result).some((n) => n > 0)) opts.logger.info({ pruned: result }, 'old rows pruned');
      opts.onPass?.(result);
    } catch (e) {
      opts.logger.warn({ err: e }, 'pruning old rows failed; the next pass tries again');
    }
  };
  const schedule = (ms: number) => {
    timer = setTimeout(() => {
      running = pass().finally(() => {
        running = undefined;
        if (!abort.signal.aborted) schedule(intervalMs);
      });
    }, ms);
    timer.unref();
  };
  schedule(Math.min(60_000, intervalMs));
  return {
    async stop() {
      abort.abort();
      clearTimeout(timer);
      await running;
    },
  };
}
