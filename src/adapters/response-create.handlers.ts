/**
 * `POST {ws}/responses`, the part both styles share (docs/migrating-between-styles.md, "How the style is chosen";
 * docs/collecting.md, "Server to server"): the style selector in shared-responses.ts picks a style's handler
 * (style-a/ or style-b/responses.routes.ts), which calls `responseCreate` with its spelling rules and presenter.
 * The OpenAPI validator has checked the style-neutral body shape (unknown members are a 400 there); this
 * adds the style's spelling rules, parses the submission time, calls the one core submission path and
 * presents the stored response with an absolute `Location` on PUBLIC_URL.
 */
import type { Request, Response } from 'express';
import { errors, type ErrorDetail } from '../core/errors';
import { parseDateValue, responseTimeProblem } from '../core/query/dates';
import type { ResponseRecord } from '../core/responses/responses.types';
import { submitResponse, type SubmissionInput } from '../core/responses/submit';
import { withTransaction } from '../db';
import type { Style } from '../platform/style';
import type { CoreDeps } from './deps';
import { single } from './envelope';
import { bodyOf, workspaceOf } from './query-values';
import type { ResponseA, ResponseB, ResponseCreateRequest } from '../wire/types.gen';

type Body = Record<string, unknown>;

/** How a style spells the question of an answer (`own`) and the other style's spelling it refuses (`foreign`). */
export interface AnswerSpelling {
  style: Style;
  own: string;
  foreign: string;
}

/**
 * Reads the JSON body of a submission in a style's spelling into core answers.
 * @throws AppError validation_error naming each answer member spelled the other style's way.
 */
export function answersSpelled(answers: unknown, { style, own, foreign }: AnswerSpelling): SubmissionInput['answers'] {
  if (!Array.isArray(answers)) return answers as SubmissionInput['answers'];
  const details: ErrorDetail[] = [];
  const out = answers.map((a: unknown, i) => {
    if (typeof a !== 'object' || a === null || Array.isArray(a)) return a;
    const item = a as Body;
    if (foreign in item) {
      details.push({
        location: 'body',
        field: `answers[${i}].${foreign}`,
        message: `\`answers[${i}].${foreign}\` is not a Style ${style} answer member; Style ${style} names the question \`${own}\`.`,
      });
    }
    return { question_id: item[own], value: item.value };
  });
  if (details.length > 0) throw errors.validation(details);
  return out as SubmissionInput['answers'];
}

/**
 * The submission time given as `field` (`created_at` or `createdAt`); undefined when absent.
 * @throws AppError validation_error unless an ISO 8601 date-time with an offset, from 1970-01-01T00:00:00Z
 *   (EARLIEST_RESPONSE_TIME) and not in the future.
 */
export function createdAtValue(raw: unknown, field: string): Date | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string') throw errors.invalid('body', field, `\`${field}\` must be an ISO 8601 date-time with an offset.`);
  const parsed = parseDateValue(raw, field, 'body');
  if (parsed.kind !== 'date-time') {
    throw errors.invalid('body', field, `\`${field}\` must be an ISO 8601 date-time with an offset, e.g. 2026-11-01T09:30:00Z; got "${raw}".`);
  }
  const at = new Date(parsed.value);
  const problem = responseTimeProblem(at, field, new Date());
  if (problem !== undefined) throw errors.invalid('body', field, `${problem}; got "${raw}".`);
  return at;
}

/** What one style's `POST {ws}/responses` handler brings: its spelling rules and its presenter. */
export interface SubmissionStyle {
  /** Reads the body's answers (answersSpelled with the style's spelling). */
  answers(answers: unknown): SubmissionInput['answers'];
  /** Reads the body's submission time. */
  createdAt(body: ResponseCreateRequest): Date | undefined;
  /** Rewrites an error of the core into the style's spelling (the error itself when nothing differs). */
  spellError(err: unknown): unknown;
  present(record: ResponseRecord): ResponseA | ResponseB;
}

/** `POST {ws}/responses` handler of the style that `style` describes. */
export function responseCreate({ db, publicUrl }: CoreDeps, style: SubmissionStyle) {
  return async (req: Request, res: Response) => {
    const ws = workspaceOf(req);
    // The OpenAPI validator has checked the body against ResponseCreateRequest.
    const body = bodyOf<ResponseCreateRequest>(req);
    const answers = style.answers(body.answers);
    let record;
    try {
      const input: SubmissionInput = {
        formId: body.form_id,
        answers,
        language: body.language,
        createdAt: style.createdAt(body),
        respondentEmail: body.respondent_email,
        emailId: body.email_id,
        rowId: body.row_id,
        version: body.version,
      };
      record = await withTransaction(db, (trx) => submitResponse(trx, ws, input));
    } catch (err) {
      throw style.spellError(err);
    }
    const base = publicUrl ?? `${req.protocol}://${req.get('host') ?? 'localhost'}`;
    res.setHeader('Location', `${base}/api/v1/workspaces/${encodeURIComponent(ws)}/responses/${encodeURIComponent(record.id)}`);
    res.status(201).json(single(req, style.present(record)));
  };
}
