/**
 * Public JSON submissions (docs/collecting.md, "Public JSON"): `POST /api/v1/forms/{form_id}/submissions`, no key,
 * for widgets and scripts. The app mounts it before API-key authentication behind its own pipeline
 * (src/app.ts): the submission budget per client address and form (429, shared with page POSTs) → body
 * and OpenAPI checks (400) → Idempotency-Key scoped to address + form. This handler then answers: unknown
 * form 404 → email-link token `t` (400 naming `t`, 410 link_expired) → the one core submission path →
 * 201 with the Style A response (hence its place in style-a/).
 */
import type { Request, RequestHandler } from 'express';
import { errors } from '../../core/errors';
import { loadPublicForm } from '../../core/forms/public-form';
import { verifyLinkToken } from '../../core/links/links';
import { checkSubmission, storeSubmission } from '../../core/responses/submit';
import { withTransaction } from '../../db';
import type { CoreDeps } from '../deps';
import { single } from '../envelope';
import { presentResponseA } from './present';

type Body = Record<string, unknown>;

export const PUBLIC_SUBMISSIONS_PATH = '/api/v1/forms/:form_id/submissions';

// Express's default routing: case-insensitive, an optional trailing slash.
const PUBLIC_SUBMISSIONS_MATCH = /^\/api\/v1\/forms\/([^/]+)\/submissions\/?$/i;

/**
 * The form id of a public submission request: the routed parameter, or, before routing, the path's segment
 * read directly (percent-decoded when it decodes, else raw). Undefined when the request is no public submission.
 * The submission budget runs before routing so that a path the router cannot decode (`%ED%A0%80`, a 400) still
 * counts against the budget and carries the documented `X-RateLimit-*` headers.
 */
export function submissionFormId(req: Request): string | undefined {
  if (req.params?.form_id !== undefined) return String(req.params.form_id);
  if (req.method !== 'POST') return undefined;
  const m = PUBLIC_SUBMISSIONS_MATCH.exec(req.path);
  if (!m) return undefined;
  try {
    return decodeURIComponent(m[1]!);
  } catch {
    return m[1]!;
  }
}

/** The handler of `POST /api/v1/forms/{form_id}/submissions`. */
export function publicSubmissionCreate({ db }: CoreDeps): RequestHandler {
  return async (req, res) => {
    const formId = submissionFormId(req) ?? '';
    const body = (req.body ?? {}) as Body;
    const found = await loadPublicForm(db, formId);
    if (!found) throw errors.notFound('Form', formId);
    // An email link: the response carries the link's email, email_id and row (docs/collecting.md, "Email links").
    const link = typeof body.t === 'string' ? await verifyLinkToken(db, body.t, formId, new Date(), 'body') : undefined;
    const submission = checkSubmission({ ...found.form, name: found.name }, {
      formId,
      answers: body.answers as Array<{ question_id: string; value: unknown }>,
      language: body.language as string | undefined,
      respondentEmail: link?.email ?? null,
      emailId: link?.emailId ?? null,
      rowId: link?.rowId ?? null,
    });
    const record = await withTransaction(db, (trx) => storeSubmission(trx, found.workspaceId, submission));
    res.status(201).json(single(req, presentResponseA(record)));
  };
}
