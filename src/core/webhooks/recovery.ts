/**
 * Webhook recovery by time (issue 31 item 3; docs/webhooks.md, "Recovering missed events"): the store of
 * `webhook_recoveries` (migration 025). `POST {ws}/webhook-endpoints/{id}/recover` asks for every event of a window
 * of the event log (core/events/event-log.store.ts) that the endpoint subscribes to, that happened once it existed,
 * and that it did not receive, to be sent again. The request stores a recovery and its pg-boss job (queue
 * `webhook-recovery`) in one transaction; the worker (delivery/recovery.ts) walks the window in log order, a batch per
 * transaction (`runRecoveryBatch`): it adds one delivery per missed event, marked with the recovery's id, through the
 * one delivery store (webhooks.store.ts `insertRecoveryDeliveries`), moves the recovery's position and counts in the
 * same transaction, and then makes each delivery's first attempt itself, in order, through the worker's one attempt
 * (delivery/attempt.ts `makeAttempt`): the same payload, signature, address policy and retries as any delivery.
 *
 * Received means a delivery of the event to the endpoint that `succeeded`; one still `pending` is left to its own
 * retries (sending it again would reach the receiver twice). An erased person's events are gone from the log
 * (docs/data-rights.md), so no recovery finds them.
 */
import type { Knex } from 'knex';
import type { DbHandle } from '../../db';
import { insertJobs } from '../../db/pg-boss';
import { countEvents, eventsAfter } from '../events/event-log.store';
import { errors } from '../errors';
import { newId } from '../ids';
import { DAY_MS, type DateBound } from '../query/dates';
import { eventsReceivedOrPending, getWebhookEndpoint, insertRecoveryDeliveries, lockWebhookEndpoint, type AttemptKey } from './webhooks.store';

/** The pg-boss queue of recovery jobs (created by migration 20261127_025). */
export const RECOVERY_QUEUE = 'webhook-recovery';

/** A job is retried after a crash or an error (each retry goes on from the recovery's position); 15 minutes per try. */
export const RECOVERY_JOB_OPTIONS = { retryLimit: 10, retryDelay: 30, expireInSeconds: 900 } as const;

export type RecoveryStatus = 'queued' | 'running' | 'succeeded' | 'failed';

/** A recovery as the API shows it (times are UTC Dates). */
export interface WebhookRecovery {
  id: string;
  endpointId: string;
  status: RecoveryStatus;
  /** The window's start (inclusive). */
  since: Date;
  /** The window's end as asked (exclusive); null when not given. */
  until: Date | null;
  /** The window's end as run (exclusive): `until`, or the request's time when absent or later. */
  windowEnd: Date;
  /** Events of the window the endpoint subscribes to (counted when asked; raised if more committed since). */
  total: number;
  /** Events handled so far (sent again or found received). */
  done: number;
  /** Events sent again (one delivery each, marked with this recovery's id). */
  redelivered: number;
  /** Why a `failed` recovery stopped; null otherwise. */
  error: string | null;
  createdAt: Date;
  finishedAt: Date | null;
}

/** The data of one job on RECOVERY_QUEUE. */
export interface RecoveryJob {
  workspaceId: string;
  recoveryId: string;
}

interface RecoveryRow {
  id: string;
  endpoint_id: string;
  status: RecoveryStatus;
  since: Date;
  until: Date | null;
  window_end: Date;
  event_types: string[];
  position: string | null;
  total: string | number;
  done: string | number;
  redelivered: string | number;
  error: string | null;
  created_at: Date;
  finished_at: Date | null;
}

const toRecovery = (r: RecoveryRow): WebhookRecovery => ({
  id: r.id,
  endpointId: r.endpoint_id,
  status: r.status,
  since: r.since,
  until: r.until,
  windowEnd: r.window_end,
  total: Number(r.total),
  done: Number(r.done),
  redelivered: Number(r.redelivered),
  error: r.error,
  createdAt: r.created_at,
  finishedAt: r.finished_at,
});

/** A window as the adapter read it: the instants and the body's names of the two fields (for the 400s). */
export interface RecoveryWindow {
  /** Inclusive. */
  since: Date;
  /** Exclusive; undefined: up to the request. */
  until?: Date | undefined;
  fields: { since: string; until: string };
}

/** The `created_at` bounds of the events a recovery looks at: in the window, and not before the endpoint existed. */
function windowBounds(since: Date, windowEnd: Date, endpointCreatedAt: Date): DateBound[] {
  const from = since.getTime() > endpointCreatedAt.getTime() ? since : endpointCreatedAt;
  return [
    { op: '>=', value: from.toISOString() },
    { op: '<', value: windowEnd.toISOString() },
  ];
}

/**
 * Checks a window against the log's retention and the clock.
 * @throws AppError validation_error naming `since` (in the future, or older than the log keeps) or `until` (not after `since`).
 */
function checkWindow(w: RecoveryWindow, retentionDays: number, now: Date): void {
  const { since: s, until: u } = w.fields;
  if (w.since.getTime() > now.getTime()) throw errors.invalid('body', s, `\`${s}\` must not be in the future; got "${w.since.toISOString()}".`);
  const oldest = new Date(now.getTime() - retentionDays * DAY_MS);
  if (w.since.getTime() < oldest.getTime()) {
    throw errors.invalid(
      'body',
      s,
      `\`${s}\` must be within the event log's retention (EVENT_RETENTION_DAYS, ${retentionDays} days): at the earliest ${oldest.toISOString()}; got "${w.since.toISOString()}".`,
    );
  }
  if (w.until !== undefined && w.until.getTime() <= w.since.getTime()) {
    throw errors.invalid('body', u, `\`${u}\` must be after \`${s}\`; got "${w.until.toISOString()}".`);
  }
}

/**
 * Asks for a recovery of the endpoint over the window, in the caller's transaction: stores it (`queued`, its `total`
 * counted) with its job, or, when a recovery of the same endpoint and the same window (`since`, and `until` or its
 * absence) is still `queued` or `running`, answers that one (the endpoint's row lock makes two requests take turns).
 * @param opts.retentionDays `EVENT_RETENTION_DAYS`; `requestedBy` the key (`key_…`), kept with the record.
 * @returns the recovery, and whether this call created it.
 * @throws AppError validation_error (checkWindow); resource_not_found for the endpoint; conflict when it is disabled.
 * Spec: POST {ws}/webhook-endpoints/{endpoint_id}/recover (openapi/, `recoverWebhookEndpoint`).
 */
export async function requestRecovery(
  trx: Knex.Transaction,
  workspaceId: string,
  endpointId: string,
  window: RecoveryWindow,
  opts: { retentionDays: number; requestedBy: string | null; now?: Date },
): Promise<{ recovery: WebhookRecovery; created: boolean }> {
  const now = opts.now ?? new Date();
  checkWindow(window, opts.retentionDays, now);
  const endpoint = await lockWebhookEndpoint(trx, workspaceId, endpointId);
  if (!endpoint.enabled) throw errors.conflict(`Webhook endpoint "${endpointId}" is disabled; enable it (PATCH enabled=true) first.`);
  const until = window.until ?? null;
  const running = (await trx('webhook_recoveries')
    .where({ workspace_id: workspaceId, endpoint_id: endpointId, since: window.since })
    .whereRaw('until IS NOT DISTINCT FROM ?::timestamptz', [until])
    .whereIn('status', ['queued', 'running'])
    .first()) as RecoveryRow | undefined;
  if (running) return { recovery: toRecovery(running), created: false };
  const windowEnd = until !== null && until.getTime() < now.getTime() ? until : now;
  const total = await countEvents(trx, workspaceId, { types: endpoint.events, created: windowBounds(window.since, windowEnd, endpoint.createdAt) });
  const [row] = (await trx('webhook_recoveries')
    .insert({
      workspace_id: workspaceId,
      id: newId('webhookRecovery'),
      endpoint_id: endpointId,
      since: window.since,
      until,
      window_end: windowEnd,
      event_types: endpoint.events,
      status: 'queued',
      total,
      requested_by: opts.requestedBy,
    })
    .returning('*')) as RecoveryRow[];
  const data: RecoveryJob = { workspaceId, recoveryId: row!.id };
  await insertJobs(trx, [{ name: RECOVERY_QUEUE, data, ...RECOVERY_JOB_OPTIONS }]);
  return { recovery: toRecovery(row!), created: true };
}

/**
 * One recovery of the endpoint.
 * @throws AppError resource_not_found for the endpoint or the recovery (also one of another endpoint).
 * Spec: GET {ws}/webhook-endpoints/{endpoint_id}/recoveries/{recovery_id} (openapi/, `getWebhookRecovery`).
 */
export async function getRecovery(db: DbHandle, workspaceId: string, endpointId: string, id: string): Promise<WebhookRecovery> {
  await getWebhookEndpoint(db, workspaceId, endpointId);
  const row = (await db('webhook_recoveries').where({ workspace_id: workspaceId, endpoint_id: endpointId, id }).first()) as RecoveryRow | undefined;
  if (!row) throw errors.notFound('Webhook recovery', id);
  return toRecovery(row);
}

/** What one batch did: whether the recovery is finished, and the deliveries it added, in log order. */
export interface RecoveryBatch {
  state: 'done' | 'more';
  deliveries: AttemptKey[];
}

/**
 * One batch of a recovery in the caller's transaction: the next `batchSize` events of the window after the recovery's
 * position (log order, the event log's visibility rule), then, holding the endpoint's row lock, a delivery marked with
 * the recovery for each one the endpoint has no `succeeded` or `pending` delivery of, and the recovery's position,
 * `done`, `redelivered` moved. When the window is exhausted the recovery becomes `succeeded`; when the endpoint was
 * disabled meanwhile, `failed`.
 * @throws AppError position_expired (410) when the log was pruned past the recovery's position (failRecovery then).
 */
export async function runRecoveryBatch(trx: Knex.Transaction, job: RecoveryJob, batchSize: number): Promise<RecoveryBatch> {
  const ws = job.workspaceId;
  const find = () => trx('webhook_recoveries').where({ workspace_id: ws, id: job.recoveryId });
  const row = (await find().first()) as RecoveryRow | undefined;
  if (!row || row.status === 'succeeded' || row.status === 'failed') return { state: 'done', deliveries: [] };
  const endpoint = await getWebhookEndpoint(trx, ws, row.endpoint_id);
  // Read before any lock: this transaction holds no id yet, so it holds back no reader, its own read included.
  const page = await eventsAfter(trx, ws, row.position ?? undefined, {
    types: row.event_types,
    created: windowBounds(row.since, row.window_end, endpoint.createdAt),
    limit: batchSize,
    field: 'position',
  });
  const locked = await lockWebhookEndpoint(trx, ws, row.endpoint_id);
  const now = (await find().forUpdate().first()) as RecoveryRow;
  if (now.position !== row.position || now.status === 'succeeded' || now.status === 'failed') return { state: 'more', deliveries: [] };
  if (!locked.enabled) {
    await finish(trx, job, 'failed', 'The endpoint was disabled.');
    return { state: 'done', deliveries: [] };
  }
  const received = await eventsReceivedOrPending(
    trx,
    ws,
    row.endpoint_id,
    page.events.map((e) => e.id),
  );
  const missed = page.events.filter((e) => !received.has(e.id));
  const deliveries = await insertRecoveryDeliveries(trx, ws, row.endpoint_id, job.recoveryId, missed);
  const done = !page.hasMore;
  const last = page.events[page.events.length - 1];
  await find().update({
    status: done ? 'succeeded' : 'running',
    position: last?.position ?? row.position,
    done: trx.raw('done + ?', [page.events.length]),
    total: trx.raw('GREATEST(total, done + ?)', [page.events.length]),
    redelivered: trx.raw('redelivered + ?', [deliveries.length]),
    updated_at: trx.fn.now(),
    finished_at: done ? trx.fn.now() : null,
  });
  return { state: done ? 'done' : 'more', deliveries };
}

async function finish(db: DbHandle, job: RecoveryJob, status: 'failed', error: string): Promise<void> {
  await db('webhook_recoveries')
    .where({ workspace_id: job.workspaceId, id: job.recoveryId })
    .whereIn('status', ['queued', 'running'])
    .update({ status, error, updated_at: db.fn.now(), finished_at: db.fn.now() });
}

/** Marks a recovery `failed` with the reason (the log was pruned past it); the deliveries it made stay. */
export function failRecovery(db: DbHandle, job: RecoveryJob, message: string): Promise<void> {
  return finish(db, job, 'failed', message);
}
