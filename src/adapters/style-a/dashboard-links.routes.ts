/**
 * Dashboard links in Style A (docs/analytics.md, "Dashboard links"): body field `expires_at`, snake_case answers;
 * the handlers are shared (adapters/dashboard-links.routes.ts), the selector is adapters/shared-responses.ts.
 */
import type { DashboardLink } from '../../core/dashboards/dashboard-links';
import { dashboardLinkHandlers } from '../dashboard-links.routes';
import type { CoreDeps } from '../deps';
import { wholeListA } from '../envelope';

/** The Style A shape of a dashboard link. */
export function presentDashboardLinkA(l: DashboardLink): Record<string, unknown> {
  return { id: l.id, form_id: l.formId, url: l.url, expires_at: l.expiresAt.toISOString(), created_at: l.createdAt.toISOString() };
}

/** The create, list and revoke handlers in Style A. */
export const dashboardLinksA = (deps: CoreDeps) =>
  dashboardLinkHandlers(deps, { style: 'A', expiresField: 'expires_at', otherField: 'expiresAt', present: presentDashboardLinkA, wholeList: wholeListA });
