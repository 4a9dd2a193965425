/**
 * Webhook recovery on its shared paths (docs/webhooks.md, "Recovering missed events"):
 * `POST {ws}/webhook-endpoints/{endpoint_id}/recover` and `GET {ws}/webhook-endpoints/{endpoint_id}/recoveries/{recovery_id}`
 * in both styles. The body is `{since, until}` in both (the same names); the dates are read as each style reads its
 * own: Style A `since` like `created_after` (inclusive), `until` like `created_before` (exclusive); Style B `since`
 * like `start_date`, `until` like `end_date` (inclusive: a date takes its whole day). The edge opens the transaction;
 * the core stores the recovery and its job (core/webhooks/recovery.ts). The selector (shared-responses.ts) picks the style.
 */
import type { Request, RequestHandler } from 'express';
import { webhookRecoveryRequested } from '../core/audit/audit-events';
import { recordAudit } from '../core/audit/audit.store';
import { DEFAULT_EVENT_RETENTION_DAYS } from '../core/events/event-log.store';
import { beforeBound, endDateBound, fromBound, parseDateValue, type DateBound } from '../core/query/dates';
import { getRecovery, requestRecovery, type RecoveryWindow, type WebhookRecovery } from '../core/webhooks/recovery';
import { withTransaction } from '../db';
import { auditOrigin } from './audit-origin';
import type { CoreDeps } from './deps';
import { single } from './envelope';
import { bodyOf, callerOf, param, workspaceOf } from './query-values';
import type { WebhookRecoveryA, WebhookRecoveryB, WebhookRecoveryRequest } from '../wire/types.gen';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** A recovery in Style A (snake_case). */
export const presentRecoveryA = (r: WebhookRecovery): WebhookRecoveryA => ({
  id: r.id,
  endpoint_id: r.endpointId,
  status: r.status,
  since: r.since.toISOString(),
  until: iso(r.until),
  window_end: r.windowEnd.toISOString(),
  total: r.total,
  done: r.done,
  redelivered: r.redelivered,
  error: r.error,
  created_at: r.createdAt.toISOString(),
  finished_at: iso(r.finishedAt),
});

/** A recovery in Style B (camelCase). */
export const presentRecoveryB = (r: WebhookRecovery): WebhookRecoveryB => ({
  id: r.id,
  endpointId: r.endpointId,
  status: r.status,
  since: r.since.toISOString(),
  until: iso(r.until),
  windowEnd: r.windowEnd.toISOString(),
  total: r.total,
  done: r.done,
  redelivered: r.redelivered,
  error: r.error,
  createdAt: r.createdAt.toISOString(),
  finishedAt: iso(r.finishedAt),
});

/** A body date read by the style's bound (a 400 names the body field), as an instant. */
function bodyInstant(raw: string, field: string, bound: (raw: string, field: string) => DateBound): Date {
  parseDateValue(raw, field, 'body');
  const b = bound(raw, field);
  // An inclusive upper bound ends a millisecond later (times are kept to the millisecond).
  return new Date(Date.parse(b.value) + (b.op === '<=' ? 1 : 0));
}

/** The window of the body in the style of the request. */
function windowOf(req: Request, style: 'A' | 'B'): RecoveryWindow {
  const b = bodyOf<WebhookRecoveryRequest>(req);
  const until = b.until ?? undefined;
  return {
    since: bodyInstant(b.since, 'since', fromBound),
    until: until === undefined ? undefined : bodyInstant(until, 'until', style === 'A' ? beforeBound : endDateBound),
    fields: { since: 'since', until: 'until' },
  };
}

/** The recovery handlers, each one per style. */
export function webhookRecoveryHandlers({ db, eventRetentionDays = DEFAULT_EVENT_RETENTION_DAYS }: Pick<CoreDeps, 'db' | 'eventRetentionDays'>): {
  recover: { a: RequestHandler; b: RequestHandler };
  get: { a: RequestHandler; b: RequestHandler };
} {
  const recover =
    (style: 'A' | 'B'): RequestHandler =>
    async (req, res) => {
      const [ws, id] = [workspaceOf(req), param(req, 'endpoint_id')];
      const window = windowOf(req, style);
      const { recovery } = await withTransaction(db, async (trx) => {
        const asked = await requestRecovery(trx, ws, id, window, { retentionDays: eventRetentionDays, requestedBy: callerOf(req).id });
        if (asked.created)
          await recordAudit(trx, auditOrigin(req), webhookRecoveryRequested(ws, id, asked.recovery.id, asked.recovery.since, asked.recovery.until));
        return asked;
      });
      res.status(202).json(single(req, style === 'A' ? presentRecoveryA(recovery) : presentRecoveryB(recovery)));
    };
  const get =
    (style: 'A' | 'B'): RequestHandler =>
    async (req, res) => {
      const r = await getRecovery(db, workspaceOf(req), param(req, 'endpoint_id'), param(req, 'recovery_id'));
      res.json(single(req, style === 'A' ? presentRecoveryA(r) : presentRecoveryB(r)));
    };
  return { recover: { a: recover('A'), b: recover('B') }, get: { a: get('A'), b: get('B') } };
}
