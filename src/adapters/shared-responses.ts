/**
 * The one place that hands a shared path to a style (docs/migrating-between-styles.md, "How the style is chosen"): `{ws}/responses`,
 * `{ws}/responses/export` (docs/analytics.md, "Exports"), `{ws}/responses/stream` and `{ws}/events/stream` (docs/live.md, "Stream"), `{ws}/respondents/export` and `{ws}/erasure-requests…` (docs/data-rights.md), `{ws}/responses/{response_id}`
 * (GET, DELETE), `{ws}/response-deletions…` (docs/api-rules.md, "Deleting responses"), v2 `/responses`,
 * `{ws}/forms/{form_id}/dashboard-links…` (docs/analytics.md, "Dashboard links"), `{ws}/forms/{form_id}/analytics/keywords`
 * (docs/analytics.md, "Keywords"), `{ws}/audit-events` (docs/security.md, "The audit trail"), `{ws}/events` (docs/live.md,
 * "Event log"), `{ws}/topics…` (docs/analytics.md, "Topics") and `{ws}/webhook-endpoints/{id}/recover`, `…/recoveries/{id}`
 * (docs/webhooks.md, "Recovering missed events"). `req.style` was decided by platform/style-selection.
 * Each path has one handler per style, in style-a/ and style-b/ (responses.routes.ts, dashboard-links.routes.ts, keywords.routes.ts, topics.routes.ts); the only other shared adapter that
 * names the style folders is presenters.ts, for code that is not HTTP (the layer lint allows these two).
 */
import { Router, type RequestHandler } from 'express';
import type { CoreDeps } from './deps';
import { auditListA } from './style-a/audit.routes';
import { auditListB } from './style-b/audit.routes';
import { erasureHandlers } from './erasure.handlers';
import { eventsListHandlers, eventsStreamHandlers } from './events.handlers';
import { webhookRecoveryHandlers } from './webhook-recovery.handlers';
import { dashboardLinksA } from './style-a/dashboard-links.routes';
import { dashboardLinksB } from './style-b/dashboard-links.routes';
import { keywordsA } from './style-a/keywords.routes';
import { keywordsB } from './style-b/keywords.routes';
import { topicsA } from './style-a/topics.routes';
import { topicsB } from './style-b/topics.routes';
import {
  respondentExportA,
  responseCreateA,
  responseDeletionsA,
  responseGetA,
  responsesExportA,
  responsesListA,
  responsesStreamA,
} from './style-a/responses.routes';
import {
  respondentExportB,
  responseCreateB,
  responseDeletionsB,
  responseGetB,
  responsesExportB,
  responsesListB,
  responsesStreamB,
} from './style-b/responses.routes';

const byStyle =
  (a: RequestHandler, b: RequestHandler): RequestHandler =>
  (req, res, next) =>
    (req.style === 'B' ? b : a)(req, res, next);

/** Mounted at `/api/v1/workspaces` and `/api/v2/workspaces` (the dashboard links: v1 only). */
export function sharedResponsesRouter(deps: CoreDeps, version: 1 | 2): Router {
  const r = Router();
  const v2 = version === 2;
  r.get('/:workspace_id/responses', byStyle(responsesListA(deps, { v2 }), responsesListB(deps, { v2 })));
  // The export is matched before `/responses/:response_id` would take "export" for an id.
  if (!v2) r.get('/:workspace_id/responses/export', byStyle(responsesExportA(deps), responsesExportB(deps)));
  if (!v2) r.get('/:workspace_id/responses/stream', byStyle(responsesStreamA(deps), responsesStreamB(deps)));
  if (!v2) r.get('/:workspace_id/respondents/export', byStyle(respondentExportA(deps), respondentExportB(deps)));
  if (!v2) {
    const a = erasureHandlers(deps, 'A');
    const b = erasureHandlers(deps, 'B');
    r.post('/:workspace_id/erasure-requests', byStyle(a.create, b.create));
    r.get('/:workspace_id/erasure-requests/:erasure_id', byStyle(a.get, b.get));
    r.delete('/:workspace_id/erasure-requests/:erasure_id/suppression', byStyle(a.liftSuppression, b.liftSuppression));
  }
  if (!v2) r.post('/:workspace_id/responses', byStyle(responseCreateA(deps), responseCreateB(deps)));
  if (!v2) r.get('/:workspace_id/responses/:response_id', byStyle(responseGetA(deps), responseGetB(deps)));
  if (!v2) {
    const a = responseDeletionsA(deps);
    const b = responseDeletionsB(deps);
    r.delete('/:workspace_id/responses/:response_id', byStyle(a.deleteOne, b.deleteOne));
    r.post('/:workspace_id/response-deletions', byStyle(a.create, b.create));
    r.get('/:workspace_id/response-deletions/:deletion_id', byStyle(a.get, b.get));
  }
  if (!v2) {
    const a = dashboardLinksA(deps);
    const b = dashboardLinksB(deps);
    r.post('/:workspace_id/forms/:form_id/dashboard-links', byStyle(a.create, b.create));
    r.get('/:workspace_id/forms/:form_id/dashboard-links', byStyle(a.list, b.list));
    r.delete('/:workspace_id/forms/:form_id/dashboard-links/:link_id', byStyle(a.revoke, b.revoke));
    r.get('/:workspace_id/audit-events', byStyle(auditListA(deps), auditListB(deps)));
    const events = eventsListHandlers(deps);
    r.get('/:workspace_id/events', byStyle(events.a, events.b));
    const stream = eventsStreamHandlers(deps);
    r.get('/:workspace_id/events/stream', byStyle(stream.a, stream.b));
    const recovery = webhookRecoveryHandlers(deps);
    r.post('/:workspace_id/webhook-endpoints/:endpoint_id/recover', byStyle(recovery.a.recover, recovery.b.recover));
    r.get('/:workspace_id/webhook-endpoints/:endpoint_id/recoveries/:recovery_id', byStyle(recovery.a.get, recovery.b.get));
  }
  if (!v2) {
    const a = topicsA(deps);
    const b = topicsB(deps);
    r.get('/:workspace_id/topics', byStyle(a.list, b.list));
    r.post('/:workspace_id/topics', byStyle(a.create, b.create));
    r.get('/:workspace_id/topics/:topic_id', byStyle(a.get, b.get));
    r.patch('/:workspace_id/topics/:topic_id', byStyle(a.update, b.update));
    r.delete('/:workspace_id/topics/:topic_id', byStyle(a.remove, b.remove));
    r.get('/:workspace_id/forms/:form_id/analytics/keywords', byStyle(keywordsA(deps), keywordsB(deps)));
  }
  return r;
}
