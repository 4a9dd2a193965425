/**
 * Public JSON submissions (CONTRACT section 11): `POST /api/v1/forms/{form_id}/submissions`, no key,
 * for widgets and scripts. The app mounts it before API-key authentication behind its own pipeline
 * (src/app.ts): the submission budget per client address and form (429, shared with page POSTs) → body
 * and OpenAPI checks (400) → Idempotency-Key scoped to address + form. This handler then answers: unknown
 * form 404 → email-link token `t` (400 naming `t`, 410 link_expired) → the one core submission path →
 * 201 with the Style A response.
 */
import type { Request, RequestHandler } from 'express';
import { errors } from '../core/errors';
import { loadPublicForm } from '../core/forms/public-form';
import { verifyLinkToken } from '../core/links/links';
import { submitResponse } from '../core/responses/submit';
import type { CoreDeps } from './deps';
import { single } from './envelope';
import { presentResponseA } from './style-a/present';

type Body = Record<string, unknown>;

export const PUBLIC_SUBMISSIONS_PATH = '/api/v1/forms/:form_id/submissions';

/** The form id of a public submission path. */
export const submissionFormId = (req: Request): string => String(req.params.form_id ?? '');

/** The handler of `POST /api/v1/forms/{form_id}/submissions`. */
export function publicSubmissionCreate({ db }: CoreDeps): RequestHandler {
  return async (req, res) => {
    const formId = submissionFormId(req);
    const body = (req.body ?? {}) as Body;
    const found = await loadPublicForm(db, formId);
    if (!found) throw errors.notFound('Form', formId);
    // An email link: the response carries the link's email, email_id and row (CONTRACT section 12).
    const link = typeof body.t === 'string' ? await verifyLinkToken(db, body.t, formId, new Date(), 'body') : undefined;
    const record = await submitResponse(db, found.workspaceId, {
      formId,
      answers: body.answers as Array<{ question_id: string; value: unknown }>,
      language: body.language as string | undefined,
      respondentEmail: link?.email ?? null,
      emailId: link?.emailId ?? null,
      rowId: link?.rowId ?? null,
    });
    res.status(201).json(single(req, presentResponseA(record)));
  };
}
