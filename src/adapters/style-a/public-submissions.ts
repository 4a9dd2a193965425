/**
 * Public JSON submissions (docs/collecting.md, "Public JSON"): `POST /api/v1/forms/{form_id}/submissions`, no key,
 * for widgets and scripts. The app mounts it before API-key authentication behind its own pipeline
 * (src/app.ts): the submission budget per client address and form (429, shared with page POSTs) → body
 * and OpenAPI checks (400) → Idempotency-Key scoped to address + form. This handler then answers: unknown
 * form 404 → the public submission use case the hosted page also runs (src/core/responses/public-submission.ts):
 * email-link token `t` (400 naming `t`, 410 link_expired; the token's workspace decides the form), language and
 * answers (400), then the store with the link's use claimed in the same transaction (409 link_already_used when it
 * has taken all it may) → 201 with a
 * receipt, `{id, created_at}` (Style A spelling, hence its place in style-a/): never the answers, the link's
 * address or its row, which whoever holds the link must not read back.
 */
import type { Request, RequestHandler } from 'express';
import { errors } from '../../core/errors';
import { loadPublicForm } from '../../core/forms/public-form';
import { checkPublicSubmission, invalidSubmissionError, storePublicSubmission, type SentAnswer } from '../../core/responses/public-submission';
import { withTransaction } from '../../db';
import type { CoreDeps } from '../deps';
import { single } from '../envelope';
import { presentReceiptA } from './present';

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

/** The handler of `POST /api/v1/forms/{form_id}/submissions`: parses the JSON body, runs the public submission use case, answers a receipt. */
export function publicSubmissionCreate({ db }: CoreDeps): RequestHandler {
  return async (req, res) => {
    const formId = submissionFormId(req) ?? '';
    const body = (req.body ?? {}) as Body;
    const found = await loadPublicForm(db, formId);
    if (!found) throw errors.notFound('Form', formId);
    // An email link: the response carries the link's email, email_id and row (docs/collecting.md, "Email links").
    const check = await checkPublicSubmission(db, found, {
      formId,
      hints: { explicit: body.language as string | undefined },
      linkToken: typeof body.t === 'string' ? body.t : undefined,
      answers: () => body.answers as SentAnswer[],
    });
    if (check.kind === 'invalid') throw invalidSubmissionError(check);
    const record = await withTransaction(db, (trx) => storePublicSubmission(trx, check));
    res.status(201).json(single(req, presentReceiptA(record)));
  };
}
