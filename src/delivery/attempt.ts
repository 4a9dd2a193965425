/**
 * One delivery attempt (docs/webhooks.md, "Retries"), run by the worker for one pg-boss job.
 *
 * Exactly-once per attempt among live workers: a job carries the delivery's `attempt_token`; the
 * worker claims the delivery with one UPDATE that matches that token and no live claim (a lease of
 * 60 s, far above the 10 s timeout), so a second job or worker finds nothing to claim. A retry
 * through the API replaces the token, so a job queued earlier finds nothing either. A worker that
 * dies mid-attempt leaves the lease to expire; pg-boss then hands the job out again (at least once).
 *
 * After the POST, the outcome is recorded and the next attempt queued in ONE transaction.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { Webhook } from 'standardwebhooks';
import { checkWebhookUrl, type AddressPolicy, type Resolve } from '../core/webhooks/address-policy';
import { decodeResource, type EventType } from '../core/webhooks/outbox';
import { enqueueAttempts, type AttemptJob } from '../core/webhooks/queue';
import type { EndpointStyle } from '../core/webhooks/webhooks.service';
import { failPendingDeliveries } from '../core/webhooks/webhooks.write';
import { withTransaction } from '../db';
import { postTo, retryAfterSeconds } from './http-post';
import { renderPayload } from './payload';

/** A `Retry-After` longer than this is cut to it (a day, the span of the whole schedule). */
const MAX_RETRY_AFTER_SECONDS = 24 * 3600;
const CLAIM_LEASE_SECONDS = 60;

export type Outcome = 'succeeded' | 'retried' | 'failed';

export interface AttemptContext {
  db: Knex;
  policy: AddressPolicy;
  resolve: Resolve;
  /** Deadline of one POST (10 s by default). */
  timeoutMs: number;
  /** Seconds before each retry; its length + 1 is the number of attempts. */
  schedule: readonly number[];
  userAgent?: string;
}

/** Thrown when another worker holds a live claim on the delivery: pg-boss retries the job later. */
export class DeliveryBusyError extends Error {}

interface Claimed {
  attempts: number;
  endpoint_id: string;
  event_id: string;
}

interface Target {
  url: string;
  enabled: boolean;
  style: EndpointStyle;
  secret: string;
  previous_secret: string | null;
  previous_active: boolean;
  type: EventType;
  resource: unknown;
  event_created_at: Date;
}

/** The `webhook-signature` value: `v1,…` by the current secret, and by the previous one during 24 h after a rotation. */
export function signatures(secrets: readonly string[], msgId: string, at: Date, body: string): string {
  return secrets.map((s) => new Webhook(s).sign(msgId, at, body)).join(' ');
}

/**
 * Makes the attempt a job stands for, if it is still due.
 * @returns the outcome, or undefined when there was nothing to do (superseded, finished, deleted).
 * @throws DeliveryBusyError while another worker's claim is live; database errors (pg-boss retries).
 */
export async function makeAttempt(ctx: AttemptContext, job: AttemptJob): Promise<Outcome | undefined> {
  const { db } = ctx;
  const { workspaceId, deliveryId, token } = job;
  const claimed = (await db.raw(
    `UPDATE webhook_deliveries
        SET attempts = attempts + 1, claimed_until = now() + make_interval(secs => ?), updated_at = now()
      WHERE workspace_id = ? AND id = ? AND status = 'pending' AND attempt_token = ?
        AND (claimed_until IS NULL OR claimed_until < now())
      RETURNING attempts, endpoint_id, event_id`,
    [CLAIM_LEASE_SECONDS, workspaceId, deliveryId, token],
  )) as { rows: Claimed[] };
  const claim = claimed.rows[0];
  if (!claim) {
    const held = await db('webhook_deliveries')
      .where({ workspace_id: workspaceId, id: deliveryId, status: 'pending', attempt_token: token })
      .where('claimed_until', '>=', db.fn.now())
      .first<{ id: string } | undefined>('id');
    if (held) throw new DeliveryBusyError(`delivery ${deliveryId} is being attempted by another worker`);
    return undefined;
  }

  const target = (await db('webhook_deliveries as d')
    .join('webhook_endpoints as e', function on() {
      this.on('e.workspace_id', 'd.workspace_id').andOn('e.id', 'd.endpoint_id');
    })
    .join('webhook_events as v', function on() {
      this.on('v.workspace_id', 'd.workspace_id').andOn('v.id', 'd.event_id');
    })
    .where({ 'd.workspace_id': workspaceId, 'd.id': deliveryId })
    .first(
      'e.url',
      'e.enabled',
      'e.style',
      'e.secret',
      'e.previous_secret',
      db.raw('(e.previous_secret_until IS NOT NULL AND e.previous_secret_until > now()) AS previous_active'),
      'v.type',
      'v.resource',
      'v.created_at as event_created_at',
    )) as Target | undefined;
  if (!target) return undefined;

  let result: PostOutcome;
  try {
    result = target.enabled ? await post(ctx, job, claim, target) : { error: 'The endpoint is disabled.' };
  } catch (e) {
    // A payload or signature that cannot be made (e.g. an imported secret that is not base64) fails the attempt.
    result = { error: `The attempt could not be prepared: ${(e as Error).message}` };
  }
  return record(ctx, job, claim, result);
}

interface PostOutcome {
  status?: number;
  retryAfter?: string | undefined;
  error?: string;
}

async function post(ctx: AttemptContext, job: AttemptJob, claim: Claimed, target: Target): Promise<PostOutcome> {
  // One deadline for the attempt: name resolution, connection and answer.
  const started = Date.now();
  const resolve: Resolve = (host) =>
    Promise.race([
      ctx.resolve(host),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('DNS timeout')), ctx.timeoutMs).unref()),
    ]);
  const check = await checkWebhookUrl(target.url, ctx.policy, resolve);
  if (!check.ok) return { error: check.reason.replace(/^`url` /, 'The URL ') };
  // The payload id is the event id: the same on every attempt (webhook-id), so receivers can dedupe.
  const eventId = claim.event_id;
  const payload = renderPayload(
    { id: eventId, type: target.type, workspaceId: job.workspaceId, createdAt: new Date(target.event_created_at), resource: decodeResource(target.resource) },
    target.style,
  );
  const now = new Date();
  const secrets = target.previous_secret && target.previous_active ? [target.secret, target.previous_secret] : [target.secret];
  const headers = {
    'content-type': 'application/json',
    'user-agent': ctx.userAgent ?? 'feedback-service-webhooks/1',
    'webhook-id': eventId,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': signatures(secrets, eventId, now, payload),
  };
  try {
    const res = await postTo(check.url, check.address!, payload, headers, Math.max(1, ctx.timeoutMs - (Date.now() - started)));
    return { status: res.status, retryAfter: res.retryAfter };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

async function record(ctx: AttemptContext, job: AttemptJob, claim: Claimed, r: PostOutcome): Promise<Outcome> {
  const { workspaceId, deliveryId, token } = job;
  const ok = r.status !== undefined && r.status >= 200 && r.status < 300;
  const gone = r.status === 410;
  let lastError: string | null = r.error ?? null;
  if (r.status !== undefined && !ok) {
    lastError = r.status >= 300 && r.status < 400 ? `HTTP ${r.status}: redirects are not followed.` : `HTTP ${r.status}`;
    if (gone) lastError = 'HTTP 410: the endpoint is gone; it was disabled.';
  }
  const canRetry = !ok && !gone && claim.attempts <= ctx.schedule.length;
  const outcome: Outcome = ok ? 'succeeded' : canRetry ? 'retried' : 'failed';
  let delay = 0;
  if (canRetry) {
    delay = ctx.schedule[claim.attempts - 1]!;
    const asked = retryAfterSeconds(r.retryAfter);
    if (asked !== undefined && asked > delay) delay = Math.min(asked, MAX_RETRY_AFTER_SECONDS);
  }
  const nextToken = canRetry ? randomUUID() : null;
  await withTransaction(ctx.db, async (trx) => {
    // Endpoint row first, as PATCH does: a 410 ends the endpoint's other pending deliveries, and two
    // such transactions must not lock each other's delivery rows in opposite orders.
    await trx('webhook_endpoints').where({ workspace_id: workspaceId, id: claim.endpoint_id }).forNoKeyUpdate().first('id');
    const nextAt = canRetry ? new Date(Date.now() + delay * 1000) : null;
    const n = await trx('webhook_deliveries')
      .where({ workspace_id: workspaceId, id: deliveryId, attempt_token: token, attempts: claim.attempts, status: 'pending' })
      .update({
        status: ok ? 'succeeded' : canRetry ? 'pending' : 'failed',
        last_status_code: r.status ?? null,
        last_error: lastError,
        next_attempt_at: nextAt,
        attempt_token: nextToken,
        claimed_until: null,
        updated_at: trx.fn.now(),
      });
    if (n === 0) {
      // Retried through the API (or ended by disabling the endpoint) meanwhile: the newer state stays;
      // only the claim is freed.
      await trx('webhook_deliveries')
        .where({ workspace_id: workspaceId, id: deliveryId, attempts: claim.attempts })
        .update({ claimed_until: null });
      return;
    }
    if (gone) {
      await trx('webhook_endpoints')
        .where({ workspace_id: workspaceId, id: claim.endpoint_id })
        .update({ enabled: false, disabled_reason: `The endpoint answered 410 Gone at ${new Date().toISOString()}.`, updated_at: trx.fn.now() });
      await failPendingDeliveries(trx, workspaceId, claim.endpoint_id, 'The endpoint answered 410 Gone and was disabled.');
    }
    if (canRetry) await enqueueAttempts(trx, [{ workspaceId, deliveryId, token: nextToken!, startAfter: nextAt! }]);
  });
  return outcome;
}

/** A due delivery with no attempt for this long is queued again (its job was lost or gave up). */
const STUCK_AFTER_MINUTES = 15;

/**
 * Safety net of the outbox: pending deliveries whose next attempt is over 15 minutes late and that no
 * worker holds get a new token and a new job (the old job, if it still exists, then does nothing).
 * Safe to run from several workers at once (`FOR UPDATE SKIP LOCKED`).
 * @returns how many deliveries were queued again.
 */
export async function requeueStuckDeliveries(db: Knex): Promise<number> {
  return withTransaction(db, async (trx) => {
    const { rows } = (await trx.raw(
      `UPDATE webhook_deliveries d
          SET attempt_token = gen_random_uuid()::text, next_attempt_at = now(), updated_at = now()
        WHERE (d.workspace_id, d.id) IN (
                SELECT workspace_id, id FROM webhook_deliveries
                 WHERE status = 'pending'
                   AND next_attempt_at < now() - make_interval(mins => ?)
                   AND (claimed_until IS NULL OR claimed_until < now())
                 ORDER BY next_attempt_at
                 LIMIT 500
                   FOR UPDATE SKIP LOCKED)
        RETURNING d.workspace_id, d.id, d.attempt_token`,
      [STUCK_AFTER_MINUTES],
    )) as { rows: Array<{ workspace_id: string; id: string; attempt_token: string }> };
    await enqueueAttempts(trx, rows.map((r) => ({ workspaceId: r.workspace_id, deliveryId: r.id, token: r.attempt_token })));
    return rows.length;
  });
}