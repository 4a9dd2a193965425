/**
 * Dashboard links in Style B (docs/analytics.md, "Dashboard links"): body fields `expiresAt`, `includeAddresses`,
 * camelCase answers; the handlers are shared (adapters/dashboard-links.handlers.ts), the selector is
 * adapters/shared-responses.ts.
 */
import type { DashboardLink } from '../../core/dashboards/dashboard-links.store';
import { dashboardLinkHandlers } from '../dashboard-links.handlers';
import type { CoreDeps } from '../deps';
import { wholeListB } from '../envelope';
import type { DashboardLinkB } from '../../wire/types.gen';

/** The Style B shape of a dashboard link (the mint's answer adds `url`). */
export function presentDashboardLinkB(l: DashboardLink): DashboardLinkB {
  return {
    id: l.id,
    formId: l.formId,
    expiresAt: l.expiresAt.toISOString(),
    createdAt: l.createdAt.toISOString(),
    createdBy: l.createdBy,
    includeAddresses: l.includeAddresses,
  };
}

/** The create, list and revoke handlers in Style B. */
export const dashboardLinksB = (deps: CoreDeps) =>
  dashboardLinkHandlers(deps, {
    style: 'B',
    expiresField: { own: 'expiresAt', other: 'expires_at' },
    addressesField: { own: 'includeAddresses', other: 'include_addresses' },
    present: presentDashboardLinkB,
    wholeList: wholeListB,
  });
