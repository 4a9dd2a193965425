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

/** What differs between the styles: how `until` reads, and the presenter. */
interface RecoveryStyle {
  untilBound: (raw: string, field: string) => DateBound;
  present: (r: WebhookRecovery) => WebhookRecoveryA | WebhookRecoveryB;
}

const STYLE_A: RecoveryStyle = { untilBound: beforeBound, present: presentRecoveryA };
const STYLE_B: RecoveryStyle = { untilBound: endDateBound, present: presentRecoveryB };

/** The window of the body, its dates read by the style's rules. */
function windowOf(req: Request, s: RecoveryStyle): RecoveryWindow {
  const b = bodyOf<WebhookRecoveryRequest>(req);
  return {
    since: bodyInstant(b.since, 'since', fromBound),
    until: b.until === undefined ? undefined : bodyInstant(b.until, 'until', s.untilBound),
    fields: { since: 'since', until: 'until' },
  };
}

type Deps = Pick<CoreDeps, 'db' | 'eventRetentionDays'>;

/** POST …/recover and GET …/recoveries/{recovery_id} in one style. */
function handlersOf({ db, eventRetentionDays = DEFAULT_EVENT_RETENTION_DAYS }: Deps, s: RecoveryStyle): { recover: RequestHandler; get: RequestHandler } {
  return {
    recover: async (req, res) => {
      const [ws, id] = [workspaceOf(req), param(req, 'endpoint_id')];
      const window = windowOf(req, s);
      const { recovery } = await withTransaction(db, async (trx) => {
        const asked = await requestRecovery(trx, ws, id, window, { retentionDays: eventRetentionDays, requestedBy: callerOf(req).id });
        if (asked.created)
          await recordAudit(trx, auditOrigin(req), webhookRecoveryRequested(ws, id, asked.recovery.id, asked.recovery.since, asked.recovery.until));
        return asked;
      });
      res.status(202).json(single(req, s.present(recovery)));
    },
    get: async (req, res) => {
      res.json(single(req, s.present(await getRecovery(db, workspaceOf(req), param(req, 'endpoint_id'), param(req, 'recovery_id')))));
    },
  };
}

/** The recovery handlers of each style; the selector (shared-responses.ts) picks one. */
export function webhookRecoveryHandlers(deps: Deps): Record<'a' | 'b', { recover: RequestHandler; get: RequestHandler }> {
  return { a: handlersOf(deps, STYLE_A), b: handlersOf(deps, STYLE_B) };
}
