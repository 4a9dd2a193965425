/**
 * Dashboard links in Style A (docs/analytics.md, "Dashboard links"; shared paths chosen by adapters/shared-responses.ts):
 * `POST|GET {ws}/forms/{form_id}/dashboard-links` and `DELETE …/dashboard-links/{link_id}`, body field `expires_at`.
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
import { single, wholeListA } from '../envelope';
import { param, workspaceOf } from '../query-values';

/** The Style A shape of a dashboard link. */
export function presentDashboardLinkA(l: DashboardLink): Record<string, unknown> {
  return { id: l.id, form_id: l.formId, url: l.url, expires_at: l.expiresAt.toISOString(), created_at: l.createdAt.toISOString() };
}

/** The three handlers of the resource in Style A. */
export function dashboardLinksA({ db, publicUrl = '' }: CoreDeps): { create: RequestHandler; list: RequestHandler; revoke: RequestHandler } {
  return {
    create: async (req, res) => {
      const b = (req.body ?? {}) as Record<string, unknown>;
      if (b.expiresAt !== undefined) throw errors.invalid('body', 'expiresAt', '`expiresAt` is the other style\'s name; Style A takes `expires_at`.');
      const expiresAt = linkExpiry(b.expires_at as string | undefined, 'expires_at');
      const link = await mintDashboardLink(db, workspaceOf(req), param(req, 'form_id'), expiresAt, publicUrl);
      res.status(201).json(single(req, presentDashboardLinkA(link)));
    },
    list: async (req, res) => {
      const links = await listDashboardLinks(db, workspaceOf(req), param(req, 'form_id'), publicUrl);
      res.json(wholeListA(req, links.map(presentDashboardLinkA)));
    },
    revoke: async (req, res) => {
      await revokeDashboardLink(db, workspaceOf(req), param(req, 'form_id'), param(req, 'link_id'));
      res.status(204).end();
    },
  };
}
