/**
 * `POST {ws}/responses` in both styles (CONTRACT sections 2 and 11): the style selector in
 * shared-responses.ts hands the request here with `req.style` decided. The OpenAPI validator has
 * checked the style-neutral body shape (unknown members are a 400 there); this adapter adds the
 * per-style spelling rules, parses `created_at`, calls the one core submission path and presents
 * the stored response in the chosen style with an absolute `Location` on PUBLIC_URL.
 */
import type { Request, Response } from 'express';
import { AppError, errors, type ErrorDetail } from '../core/errors';
import { parseDateValue } from '../core/query/dates';
import { submitResponse, type SubmissionInput } from '../core/responses/submit';
import type { Style } from '../platform/style';
import type { CoreDeps } from './deps';
import { single } from './envelope';
import { workspaceOf } from './query-values';
import { presentResponseA } from './style-a/present';
import { presentResponseB } from './style-b/present';

type Body = Record<string, unknown>;

/** Style B spells an answer `{id, value}`; Style A `{question_id, value}`. */
const ANSWER_ID: Record<Style, string> = { A: 'question_id', B: 'id' };

/**
 * Reads the JSON body of a submission in a style's spelling into core answers.
 * @throws AppError validation_error naming each answer member spelled the other style's way.
 */
export function answersInStyle(answers: unknown, style: Style): SubmissionInput['answers'] {
  if (!Array.isArray(answers)) return answers as SubmissionInput['answers'];
  const own = ANSWER_ID[style];
  const other = ANSWER_ID[style === 'A' ? 'B' : 'A'];
  const details: ErrorDetail[] = [];
  const out = answers.map((a: unknown, i) => {
    if (typeof a !== 'object' || a === null || Array.isArray(a)) return a;
    const item = a as Body;
    if (other in item) {
      details.push({
        location: 'body',
        field: `answers[${i}].${other}`,
        message: `\`answers[${i}].${other}\` is not a Style ${style} answer member; Style ${style} names the question \`${own}\`.`,
      });
    }
    return { question_id: item[own], value: item.value };
  });
  if (details.length > 0) throw errors.validation(details);
  return out as SubmissionInput['answers'];
}

/** Rewrites `answers[i].question_id` in details to the style's spelling (`answers[i].id` in Style B). */
export function detailsInStyle(err: unknown, style: Style): unknown {
  if (style === 'A' || !(err instanceof AppError) || !err.details) return err;
  const rename = (s: string) => s.replace(/(answers\[\d+\])\.question_id/g, '$1.id');
  return new AppError(
    err.code,
    err.status,
    rename(err.message),
    err.details.map((d) => ({ ...d, field: rename(d.field), message: rename(d.message) })),
    err.headers,
  );
}

function createdAtOf(body: Body, style: Style): Date | undefined {
  const field = style === 'B' && body.createdAt !== undefined ? 'createdAt' : 'created_at';
  if (style === 'A' && body.createdAt !== undefined) {
    throw errors.invalid('body', 'createdAt', '`createdAt` is the Style B spelling; Style A takes `created_at`.');
  }
  if (body.created_at !== undefined && body.createdAt !== undefined) {
    throw errors.invalid('body', 'createdAt', 'Give `created_at` or `createdAt`, not both.');
  }
  const raw = body[field];
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string') throw errors.invalid('body', field, `\`${field}\` must be an ISO 8601 date-time with an offset.`);
  const parsed = parseDateValue(raw, field, 'body');
  if (parsed.kind !== 'date-time') {
    throw errors.invalid('body', field, `\`${field}\` must be an ISO 8601 date-time with an offset, e.g. 2026-11-01T09:30:00Z; got "${raw}".`);
  }
  const at = new Date(parsed.value);
  if (at.getTime() > Date.now()) throw errors.invalid('body', field, `\`${field}\` must not be in the future; got "${raw}".`);
  return at;
}

/** `POST {ws}/responses` handler for one style. */
export function responseCreate({ db, publicUrl }: CoreDeps, style: Style) {
  return async (req: Request, res: Response) => {
    const ws = workspaceOf(req);
    const body = (req.body ?? {}) as Body;
    const answers = answersInStyle(body.answers, style);
    let record;
    try {
      record = await submitResponse(db, ws, {
        formId: body.form_id as string,
        answers,
        language: body.language as string | undefined,
        createdAt: createdAtOf(body, style),
        respondentEmail: body.respondent_email as string | null | undefined,
        emailId: body.email_id as string | null | undefined,
        rowId: body.row_id as string | null | undefined,
        version: body.version as number | undefined,
      });
    } catch (err) {
      throw detailsInStyle(err, style);
    }
    const base = publicUrl ?? `${req.protocol}://${req.get('host') ?? 'localhost'}`;
    res.setHeader('Location', `${base}/api/v1/workspaces/${encodeURIComponent(ws)}/responses/${encodeURIComponent(record.id)}`);
    res.status(201).json(single(req, style === 'B' ? presentResponseB(record) : presentResponseA(record)));
  };
}
