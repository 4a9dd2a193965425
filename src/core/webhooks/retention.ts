/**
 * How long the webhook delivery log is kept (docs/operations.md "What grows, and what bounds it"):
 * `webhook_deliveries` that ended (`succeeded` or `failed`) and were last touched before the cutoff
 * go, then `webhook_events` older than the cutoff that no delivery refers to any more. A pending
 * delivery is never deleted, nor the event it sends. Deliveries go first: their foreign key on the
 * event would otherwise cascade a pending delivery away with its event.
 *
 * Each statement deletes at most `batchSize` rows (`DELETE … WHERE key IN (SELECT … LIMIT n)`, the same
 * on PostgreSQL and PGlite) and repeats the conditions outside the subquery, so a row changed meanwhile
 * (a delivery retried to `pending`) is checked again and kept. Running it on several instances at once
 * is safe: a row deleted by one is simply not found by the other.
 */
import type { DbHandle } from '../../db';
import type { BatchOptions } from '../../db/batches';
import { DAY_MS } from '../query/dates';
import { pruneWebhookDeliveries, pruneWebhookEvents } from './webhooks.store';

/** Default of `WEBHOOK_LOG_RETENTION_DAYS` (Stripe keeps 30 days of events). */
export const DEFAULT_WEBHOOK_LOG_RETENTION_DAYS = 30;

/**
 * The delivery log's whole prune: deliveries, then the events left without any.
 * @param retentionDays `WEBHOOK_LOG_RETENTION_DAYS`; rows last changed more than this many days before `now` go.
 * @returns the rows deleted from each table.
 */
export async function pruneWebhookLog(
  db: DbHandle,
  retentionDays: number,
  now: Date,
  opts: BatchOptions = {},
): Promise<{ deliveries: number; events: number }> {
  const before = new Date(now.getTime() - retentionDays * DAY_MS);
  const deliveries = await pruneWebhookDeliveries(db, before, opts);
  const events = await pruneWebhookEvents(db, before, opts);
  return { deliveries, events };
}
