/**
 * Dashboard links in Style A (docs/analytics.md, "Dashboard links"): body fields `expires_at`, `include_addresses`,
 * snake_case answers; the handlers are shared (adapters/dashboard-links.handlers.ts), the selector is
 * adapters/shared-responses.ts.
 */
import type { DashboardLink } from '../../core/dashboards/dashboard-links.store';
import { dashboardLinkHandlers } from '../dashboard-links.handlers';
import type { CoreDeps } from '../deps';
import { wholeListA } from '../envelope';
import type { DashboardLinkA } from '../../wire/types.gen';

/** The Style A shape of a dashboard link (the mint's answer adds `url`). */
export function presentDashboardLinkA(l: DashboardLink): DashboardLinkA {
  return {
    id: l.id,
    form_id: l.formId,
    expires_at: l.expiresAt.toISOString(),
    created_at: l.createdAt.toISOString(),
    created_by: l.createdBy,
    include_addresses: l.includeAddresses,
  };
}

/** The create, list and revoke handlers in Style A. */
export const dashboardLinksA = (deps: CoreDeps) =>
  dashboardLinkHandlers(deps, {
    style: 'A',
    expiresField: { own: 'expires_at', other: 'expiresAt' },
    addressesField: { own: 'include_addresses', other: 'includeAddresses' },
    present: presentDashboardLinkA,
    wholeList: wholeListA,
  });
