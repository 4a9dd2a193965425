/**
 * The dashboard-link handlers both styles share (docs/analytics.md, "Dashboard links"): each style brings the
 * name of its body field (`expires_at`, `expiresAt`), its list envelope and its presenter; the selector in
 * shared-responses.ts picks the style. `POST|GET {ws}/forms/{form_id}/dashboard-links`, `DELETE …/{link_id}`.
 */
import type { Request, RequestHandler } from 'express';
import { linkExpiry, listDashboardLinks, mintDashboardLink, revokeDashboardLink, type DashboardLink } from '../core/dashboards/dashboard-links';
import { errors } from '../core/errors';
import type { CoreDeps } from './deps';
import { single, type Envelope } from './envelope';
import { param, workspaceOf } from './query-values';

/** What differs between the styles. */
export interface DashboardLinkStyle {
  style: 'A' | 'B';
  /** The body field of the expiry in this style, and its name in the other (refused with a 400). */
  expiresField: string;
  otherField: string;
  present(l: DashboardLink): Record<string, unknown>;
  wholeList<T>(req: Request, items: T[]): Envelope<T[]>;
}

/** The three handlers of the resource in one style. */
export function dashboardLinkHandlers(
  { db, publicUrl = '' }: Pick<CoreDeps, 'db' | 'publicUrl'>,
  s: DashboardLinkStyle,
): { create: RequestHandler; list: RequestHandler; revoke: RequestHandler } {
  return {
    create: async (req, res) => {
      const b = (req.body ?? {}) as Record<string, unknown>;
      if (b[s.otherField] !== undefined) {
        throw errors.invalid('body', s.otherField, `\`${s.otherField}\` is the other style's name; Style ${s.style} takes \`${s.expiresField}\`.`);
      }
      const expiresAt = linkExpiry(b[s.expiresField] as string | undefined, s.expiresField);
      const link = await mintDashboardLink(db, workspaceOf(req), param(req, 'form_id'), expiresAt, publicUrl);
      res.status(201).json(single(req, s.present(link)));
    },
    list: async (req, res) => {
      const links = await listDashboardLinks(db, workspaceOf(req), param(req, 'form_id'), publicUrl);
      res.json(s.wholeList(req, links.map((l) => s.present(l))));
    },
    revoke: async (req, res) => {
      await revokeDashboardLink(db, workspaceOf(req), param(req, 'form_id'), param(req, 'link_id'));
      res.status(204).end();
    },
  };
}
