/**
 * The dashboard-link handlers both styles share (docs/analytics.md, "Dashboard links"): each style brings the
 * names of its body fields (`expires_at`/`expiresAt`, `include_addresses`/`includeAddresses`), its list envelope
 * and its presenter; the selector in shared-responses.ts picks the style.
 * `POST|GET {ws}/forms/{form_id}/dashboard-links`, `DELETE …/{link_id}`.
 */
import type { Request, RequestHandler } from 'express';
import { linkExpiry, listDashboardLinks, mintDashboardLink, revokeDashboardLink, type DashboardLink } from '../core/dashboards/dashboard-links.store';
import { dashboardLinkCreated, dashboardLinkRevoked } from '../core/audit/audit-events';
import { recordAudit } from '../core/audit/audit.store';
import { errors } from '../core/errors';
import { linkSecret } from '../core/links/server-secrets.store';
import { withTransaction } from '../db';
import { auditOrigin } from './audit-origin';
import type { CoreDeps } from './deps';
import { single, type Envelope } from './envelope';
import { bodyOf, param, workspaceOf } from './query-values';
import type { DashboardLinkA, DashboardLinkB, DashboardLinkCreateRequest } from '../wire/types.gen';

/** A body field's name in this style and in the other (sent to this style, the other's name is a 400). */
export interface FieldNames<K extends keyof DashboardLinkCreateRequest> {
  own: K;
  other: K;
}

/** What differs between the styles. */
export interface DashboardLinkStyle {
  style: 'A' | 'B';
  expiresField: FieldNames<'expires_at' | 'expiresAt'>;
  addressesField: FieldNames<'include_addresses' | 'includeAddresses'>;
  /** A link without its URL (the list); `url` is added by the mint's answer only. */
  present(l: DashboardLink): DashboardLinkA | DashboardLinkB;
  wholeList<T>(req: Request, items: T[]): Envelope<T[]>;
}

/** The three handlers of the resource in one style. */
export function dashboardLinkHandlers(
  { db, publicUrl = '' }: Pick<CoreDeps, 'db' | 'publicUrl'>,
  s: DashboardLinkStyle,
): { create: RequestHandler; list: RequestHandler; revoke: RequestHandler } {
  return {
    create: async (req, res) => {
      if (!req.auth) throw errors.invalidApiKey();
      // The OpenAPI validator has checked the body against DashboardLinkCreateRequest (both styles' names allowed).
      const b = bodyOf<DashboardLinkCreateRequest>(req);
      for (const f of [s.expiresField, s.addressesField]) {
        if (b[f.other] !== undefined) throw errors.invalid('body', f.other, `\`${f.other}\` is the other style's name; Style ${s.style} takes \`${f.own}\`.`);
      }
      const minter = req.auth;
      const expiresAt = linkExpiry(b[s.expiresField.own], s.expiresField.own, minter);
      const includeAddresses = b[s.addressesField.own] === true;
      const input = { workspaceId: workspaceOf(req), formId: param(req, 'form_id'), expiresAt, includeAddresses, minter };
      // The server secret is read (or made) on the root handle, never inside the transaction (links/server-secrets.store.ts).
      const secret = await linkSecret(db);
      const link = await withTransaction(db, async (trx) => {
        const minted = await mintDashboardLink(trx, input, publicUrl, secret);
        await recordAudit(trx, auditOrigin(req), dashboardLinkCreated(input.workspaceId, minted));
        return minted;
      });
      res.status(201).json(single(req, { ...s.present(link), url: link.url }));
    },
    list: async (req, res) => {
      const links = await listDashboardLinks(db, workspaceOf(req), param(req, 'form_id'));
      res.json(
        s.wholeList(
          req,
          links.map((l) => s.present(l)),
        ),
      );
    },
    revoke: async (req, res) => {
      const [ws, formId, linkId] = [workspaceOf(req), param(req, 'form_id'), param(req, 'link_id')];
      await withTransaction(db, async (trx) => {
        await revokeDashboardLink(trx, ws, formId, linkId);
        await recordAudit(trx, auditOrigin(req), dashboardLinkRevoked(ws, formId, linkId));
      });
      res.status(204).end();
    },
  };
}
