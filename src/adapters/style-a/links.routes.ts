/**
 * `POST {ws}/forms/{form_id}/links` (Style A, scope `forms:write`; docs/collecting.md, "Email links"): mints a signed,
 * expiring email link to the form's hosted page. The OpenAPI validator has checked the body shape.
 */
import { Router } from 'express';
import type { CoreDeps } from '../deps';
import { mintLink, type MintedLink } from '../../core/links/links';
import { single } from '../envelope';
import { bodyOf, param, workspaceOf } from '../query-values';
import type { EmailLink, EmailLinkCreateRequest } from '../../wire/types.gen';

/** The Style A shape of a minted link. */
export function presentLink(l: MintedLink): EmailLink {
  return {
    url: l.url,
    open_url: l.openUrl,
    email_id: l.emailId,
    form_id: l.formId,
    email: l.email,
    row_id: l.rowId,
    flow_id: l.flowId,
    expires_at: l.expiresAt.toISOString(),
    max_responses: l.maxResponses,
  };
}

/** Mounted at `/api/v1/workspaces`. @param publicUrl PUBLIC_URL, the base of the minted URLs. */
export function linksRouter({ db }: CoreDeps, publicUrl: string): Router {
  const r = Router();
  r.post('/:workspace_id/forms/:form_id/links', async (req, res) => {
    // The OpenAPI validator has checked the body against EmailLinkCreateRequest.
    const b = bodyOf<EmailLinkCreateRequest>(req);
    const link = await mintLink(
      db,
      workspaceOf(req),
      {
        formId: param(req, 'form_id'),
        email: b.email,
        emailId: b.email_id,
        rowId: b.row_id,
        flowId: b.flow_id,
        expiresInDays: b.expires_in_days,
        maxResponses: b.max_responses,
      },
      publicUrl,
    );
    res.status(201).json(single(req, presentLink(link)));
  });
  return r;
}
