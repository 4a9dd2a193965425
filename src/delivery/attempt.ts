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
import { Webhook } from 'standardwebhooks';
import { checkWebhookUrl, type AddressPolicy, type Resolve } from '../core/webhooks/address-policy';
import { inJobSpan } from '../core/trace-context';
import { decodeResource } from '../core/events/events.types';
import { enqueueAttempts, type AttemptJob } from '../core/webhooks/queue';
import {
  attemptTarget,
  claimDelivery,
  deliveryClaimHeld,
  disableGoneEndpoint,
  failPendingDeliveries,
  recordAttempt,
  renewStuckDeliveries,
  type AttemptTarget,
  type ClaimedAttempt,
} from '../core/webhooks/webhooks.store';
import { withTransaction, type Db } from '../db';
import { webhookEndpointDisabled } from '../core/audit/audit-events';
import { recordAudit, SYSTEM_ORIGIN } from '../core/audit/audit.store';
import { postTo, retryAfterSeconds } from './http-post';
import { renderPayload } from './payload';

/** A `Retry-After` longer than this is cut to it (a day, the span of the whole schedule). */
const MAX_RETRY_AFTER_SECONDS = 24 * 3600;
const CLAIM_LEASE_SECONDS = 60;

export type Outcome = 'succeeded' | 'retried' | 'failed';

export interface AttemptContext {
  db: Db;
  policy: AddressPolicy;
  resolve: Resolve;
  /** Deadline of one POST (10 s by default). */
  timeoutMs: number;
  /** Seconds before each retry; its length + 1 is the number of attempts. */
  schedule: readonly number[];
  userAgent?: string;
  /**
   * Called with each attempt's outcome inside the attempt's span (so its log line carries the trace's ids with traces
   * on): the worker logs and counts it there.
   */
  onOutcome?: (outcome: Outcome, job: AttemptJob) => void;
}

/** Thrown when another worker holds a live claim on the delivery: pg-boss retries the job later. */
export class DeliveryBusyError extends Error {}

/** The `webhook-signature` value: `v1,…` by the current secret, and by the previous one during 24 h after a rotation. */
export function signatures(secrets: readonly string[], msgId: string, at: Date, body: string): string {
  return secrets.map((s) => new Webhook(s).sign(msgId, at, body)).join(' ');
}

/** The name of an attempt's span (docs/operations.md, "Traces"). */
export const ATTEMPT_SPAN_NAME = 'webhook delivery';

/**
 * Makes the attempt a job stands for, if it is still due. With traces on, the claimed attempt runs in a span that
 * continues the trace of the write that made the event (its stored `traceparent`), so its queries and the POST (whose
 * `traceparent` header the HTTP instrumentation sets) join that trace (docs/operations.md, "Traces").
 * @returns the outcome, or undefined when there was nothing to do (superseded, finished, deleted).
 * @throws DeliveryBusyError while another worker's claim is live; database errors (pg-boss retries).
 */
export async function makeAttempt(ctx: AttemptContext, job: AttemptJob): Promise<Outcome | undefined> {
  const { db } = ctx;
  const { deliveryId } = job;
  const claim = await claimDelivery(db, job, CLAIM_LEASE_SECONDS);
  if (!claim) {
    if (await deliveryClaimHeld(db, job)) throw new DeliveryBusyError(`delivery ${deliveryId} is being attempted by another worker`);
    return undefined;
  }
  const attributes = {
    'webhook.delivery_id': deliveryId,
    'webhook.event_id': claim.event_id,
    'webhook.endpoint_id': claim.endpoint_id,
    'webhook.attempt': claim.attempts,
  };
  return inJobSpan(ATTEMPT_SPAN_NAME, claim.traceparent ?? undefined, attributes, async () => {
    const outcome = await attemptClaimed(ctx, job, claim);
    if (outcome) ctx.onOutcome?.(outcome, job);
    return outcome;
  });
}

/** The claimed attempt: its target, the POST and the record of its outcome. */
async function attemptClaimed(ctx: AttemptContext, job: AttemptJob, claim: ClaimedAttempt): Promise<Outcome | undefined> {
  const target = await attemptTarget(ctx.db, job.workspaceId, job.deliveryId);
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

async function post(ctx: AttemptContext, job: AttemptJob, claim: ClaimedAttempt, target: AttemptTarget): Promise<PostOutcome> {
  // One deadline for the attempt: name resolution, connection and answer.
  const started = Date.now();
  const resolve: Resolve = (host) =>
    Promise.race([ctx.resolve(host), new Promise<never>((_, reject) => setTimeout(() => reject(new Error('DNS timeout')), ctx.timeoutMs).unref())]);
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

async function record(ctx: AttemptContext, job: AttemptJob, claim: ClaimedAttempt, r: PostOutcome): Promise<Outcome> {
  const { workspaceId, deliveryId } = job;
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
    const nextAt = canRetry ? new Date(Date.now() + delay * 1000) : null;
    const recorded = await recordAttempt(trx, job, claim, {
      status: ok ? 'succeeded' : canRetry ? 'pending' : 'failed',
      lastStatusCode: r.status ?? null,
      lastError,
      nextAttemptAt: nextAt,
      nextToken,
    });
    if (!recorded) return;
    if (gone) {
      await disableGoneEndpoint(trx, workspaceId, claim.endpoint_id);
      await recordAudit(trx, SYSTEM_ORIGIN, webhookEndpointDisabled(workspaceId, claim.endpoint_id, 'The endpoint answered 410 Gone.'));
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
export async function requeueStuckDeliveries(db: Db): Promise<number> {
  return withTransaction(db, async (trx) => {
    const renewed = await renewStuckDeliveries(trx, STUCK_AFTER_MINUTES);
    await enqueueAttempts(trx, renewed);
    return renewed.length;
  });
}
