/**
 * Public JSON submissions (CONTRACT section 11): `POST /api/v1/forms/{form_id}/submissions`, no key,
 * for widgets and scripts. Mounted before API-key authentication. Order of checks: the submission
 * budget per client address and form (429, shared with page POSTs) → body and OpenAPI checks (400) →
 * Idempotency-Key (scoped to address + form) → unknown form 404 → email-link token `t` (400 naming
 * `t`, 410 link_expired) → the one core submission path. Answers 201 with the Style A response.
 */
import { Router, type Request, type RequestHandler } from 'express';
import type Redis from 'ioredis';
import { errors } from '../core/errors';
import { loadPublicForm } from '../core/forms/public-form';
import { verifyLinkToken } from '../core/links/links';
import { submitResponse } from '../core/responses/submit';
import type { Db } from '../platform/db/connection';
import { reportBodyError } from '../platform/error-handler';
import { idempotency } from '../platform/idempotency';
import type { Logger } from '../platform/logger';
import { consumeSubmissionBudget, type RateLimiter } from '../platform/rate-limit';
import { single } from './envelope';
import { presentResponseA } from './style-a/present';

export interface PublicSubmissionsDeps {
  db: Db;
  limiter: RateLimiter;
  /** config.submissionsPerMinute. */
  submissionsPerMinute: number;
  /** The app's OpenAPI validator (request checks and, in tests, response checks). */
  validator: RequestHandler[];
  redis?: Redis | undefined;
  logger: Logger;
}

type Body = Record<string, unknown>;

export const PUBLIC_SUBMISSIONS_PATH = '/api/v1/forms/:form_id/submissions';

/** Mounted on the app root, before apiKeyAuth. */
export function publicSubmissionsRouter(deps: PublicSubmissionsDeps): Router {
  const r = Router();
  const formIdOf = (req: Request) => String(req.params.form_id ?? '');
  const budget: RequestHandler = async (req, res, next) => {
    await consumeSubmissionBudget(deps.limiter, res, req.ip, formIdOf(req), deps.submissionsPerMinute);
    next();
  };
  const idem = idempotency({
    redis: deps.redis,
    logger: deps.logger,
    scope: (req) => JSON.stringify(['public-submission', req.ip ?? 'unknown', formIdOf(req)]),
  });
  r.post(PUBLIC_SUBMISSIONS_PATH, budget, reportBodyError(), ...deps.validator, idem, async (req, res) => {
    const formId = formIdOf(req);
    const body = (req.body ?? {}) as Body;
    const found = await loadPublicForm(deps.db, formId);
    if (!found) throw errors.notFound('Form', formId);
    // An email link: the response carries the link's email, email_id and row (CONTRACT section 12).
    const link = typeof body.t === 'string' ? await verifyLinkToken(deps.db, body.t, formId, new Date(), 'body') : undefined;
    const record = await submitResponse(deps.db, found.workspaceId, {
      formId,
      answers: body.answers as Array<{ question_id: string; value: unknown }>,
      language: body.language as string | undefined,
      respondentEmail: link?.email ?? null,
      emailId: link?.emailId ?? null,
      rowId: link?.rowId ?? null,
    });
    res.status(201).json(single(req, presentResponseA(record)));
  });
  return r;
}
