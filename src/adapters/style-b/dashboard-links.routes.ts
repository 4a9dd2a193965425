/**
 * Dashboard links in Style B (docs/analytics.md, "Dashboard links"; shared paths chosen by adapters/shared-responses.ts):
 * `POST|GET {ws}/forms/{form_id}/dashboard-links` and `DELETE …/dashboard-links/{link_id}`, body field `expiresAt`.
 */
import type { RequestHandler } from 'express';
import {
  linkExpiry,
  listDashboardLinks,
  mintDashboardLink,
  revokeDashboardLink,
  type DashboardLink,
} from '../../core/dashboards/dashboard-links';
import { errors } from '../../core/errors';
import type { CoreDeps } from '../deps';
import { single, wholeListB } from '../envelope';
import { param, workspaceOf } from '../query-values';

/** The Style B shape of a dashboard link. */
export function presentDashboardLinkB(l: DashboardLink): Record<string, unknown> {
  return { id: l.id, formId: l.formId, url: l.url, expiresAt: l.expiresAt.toISOString(), createdAt: l.createdAt.toISOString() };
}

/** The three handlers of the resource in Style B. */
export function dashboardLinksB({ db, publicUrl = '' }: CoreDeps): { create: RequestHandler; list: RequestHandler; revoke: RequestHandler } {
  return {
    create: async (req, res) => {
      const b = (req.body ?? {}) as Record<string, unknown>;
      if (b.expires_at !== undefined) throw errors.invalid('body', 'expires_at', '`expires_at` is the other style\'s name; Style B takes `expiresAt`.');
      const expiresAt = linkExpiry(b.expiresAt as string | undefined, 'expiresAt');
      const link = await mintDashboardLink(db, workspaceOf(req), param(req, 'form_id'), expiresAt, publicUrl);
      res.status(201).json(single(req, presentDashboardLinkB(link)));
    },
    list: async (req, res) => {
      const links = await listDashboardLinks(db, workspaceOf(req), param(req, 'form_id'), publicUrl);
      res.json(wholeListB(req, links.map(presentDashboardLinkB)));
    },
    revoke: async (req, res) => {
      await revokeDashboardLink(db, workspaceOf(req), param(req, 'form_id'), param(req, 'link_id'));
      res.status(204).end();
    },
  };
}
