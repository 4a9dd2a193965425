/**
 * The public submission use case (docs/collecting.md, "Hosted pages", "Public JSON", "Email links"): the one way the
 * hosted page `POST /f/{form_id}` and the public JSON `POST /api/v1/forms/{form_id}/submissions` turn what a
 * visitor sent into a stored response. Each caller only parses its input (a form body, a JSON body) and presents
 * the outcome (HTML, JSON); what they share is decided here, once:
 *
 * checkPublicSubmission (reads, no writes): the email link's token, whose workspace decides the form when two
 * workspaces hold a form of that id → the language → a bot's post dropped → the page's one-time token (claimed:
 * a duplicate; expired: the page again) → the answers validated and checked (checkSubmission).
 * storePublicSubmission, in the transaction the caller opens (docs/decisions.md, "Who opens transactions"): the
 * response and its event (storeSubmission), the one-time token, the link's use; all commit, or none.
 */
import type { Knex } from 'knex';
import { errors, type AppError, type ErrorLocation } from '../errors';
import { formDefinitionFromDb } from '../forms/form-model';
import { chooseLanguage, type LanguageHints, type PublicForm } from '../forms/public-form';
import { claimLinkUse } from '../links/link-uses.store';
import { verifyLinkToken, type LinkClaims } from '../links/links';
import { validateAnswers, type AnswerProblem } from './answers';
import { answerProblemDetail, checkSubmission, storeSubmission, type CheckedSubmission } from './submit';
import { claimSubmissionToken, isSubmissionTokenClaimed, isSubmissionTokenExpired } from './submission-tokens.store';
import type { ResponseRecord } from './responses.types';

/** An answer as a public way sends it (before validation). */
export interface SentAnswer {
  question_id: string;
  value: unknown;
}

/** What a public way was sent, as its caller parsed it. */
export interface PublicSubmissionRequest {
  /** The form id of the path. */
  formId: string;
  /** `explicit` (JSON `language`: 400 when not a form language), or the page's `query` (`?lang=`, `_lang`) and `Accept-Language`. */
  hints: LanguageHints;
  /** An email link's token (`t` in JSON, `_t` on the page). */
  linkToken?: string | undefined;
  /** Where the link's token came from, for an error's `details` (default `body`). */
  linkLocation?: ErrorLocation;
  /** The answers sent, read with the form they are for (the page reads its fields by the questions' types). */
  answers(form: PublicForm['form']): SentAnswer[];
  /** The page's one-time submission token (at most 128 characters; the caller drops a longer one). */
  onceToken?: string | undefined;
  /** A post the caller knows to be a bot's (the page's honeypot): the link is still checked, nothing is stored. */
  discard?: boolean;
}

/** The form a submission goes to (the token's workspace's when there is a link) and its language. */
export interface SubmissionTarget {
  form: PublicForm;
  language: string;
}

/** What checkPublicSubmission found. Every kind but `ready` stores nothing. */
export type PublicSubmissionCheck = SubmissionTarget &
  (
    | { kind: 'discarded' }
    /** The one-time token was claimed by an earlier submission: answer as that one was answered. */
    | { kind: 'duplicate' }
    /** The one-time token is past its lifetime: the page again, answers kept, with a fresh token. */
    | { kind: 'expired'; answers: SentAnswer[] }
    /** `problems` per validateAnswers; `unstorable` the question ids whose values hold NUL, which PostgreSQL cannot store. */
    | { kind: 'invalid'; answers: SentAnswer[]; problems: AnswerProblem[]; unstorable: string[] }
    | { kind: 'ready'; submission: CheckedSubmission; link?: { claims: LinkClaims; token: string }; onceToken?: string }
  );

/** A checked submission ready for storePublicSubmission. */
export type ReadyPublicSubmission = Extract<PublicSubmissionCheck, { kind: 'ready' }>;

/**
 * The form an email link opens or submits to, with the link's claims. Form ids are unique in practice, but imports
 * may reuse one in two workspaces: the token's workspace then decides (its own copy of the form), whichever copy
 * loadPublicForm found first.
 * @param found the form loadPublicForm found for `formId`.
 * @throws AppError validation_error naming `t` (tampered, minted for another form, or its workspace no longer has
 *   the form); 410 link_expired (verifyLinkToken, src/core/links/links.ts).
 */
export async function linkTarget(
  db: Knex,
  found: PublicForm,
  formId: string,
  token: string,
  location: ErrorLocation,
): Promise<{ claims: LinkClaims; form: PublicForm }> {
  const claims = await verifyLinkToken(db, token, formId, new Date(), location);
  if (claims.workspaceId === found.workspaceId) return { claims, form: found };
  const own = await formDefinitionFromDb(db, claims.workspaceId, formId);
  if (!own) throw errors.invalid(location, 't', '`t` is an email link for another form.');
  const { workspaceId, name, ...form } = own;
  return { claims, form: { workspaceId, name, form } };
}

/** True when a sent value holds a NUL character (U+0000) in any of its texts. */
function holdsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (Array.isArray(value)) return value.some(holdsNul);
  if (value !== null && typeof value === 'object') return Object.entries(value).some(([k, v]) => k.includes('\u0000') || holdsNul(v));
  return false;
}

/**
 * Checks a public submission without writing (the preamble both public ways share): the link, the language, the
 * one-time token and the answers, in that order.
 * @param found the form of the path, as loadPublicForm found it (the caller answers an unknown form: 404).
 * @returns the outcome; `ready` holds what storePublicSubmission stores. Without a one-time token or `discard` (public
 *   JSON) it is `ready` or `invalid`. The form and language are the ones the
 *   submission goes to (the token's workspace's copy of the form for an email link).
 * @throws AppError validation_error naming `t`, 410 link_expired (linkTarget); validation_error naming `language`
 *   when `hints.explicit` is not a form language (chooseLanguage).
 */
export async function checkPublicSubmission(
  db: Knex,
  found: PublicForm,
  request: PublicSubmissionRequest & { onceToken?: undefined; discard?: false },
): Promise<Extract<PublicSubmissionCheck, { kind: 'invalid' | 'ready' }>>;
export async function checkPublicSubmission(db: Knex, found: PublicForm, request: PublicSubmissionRequest): Promise<PublicSubmissionCheck>;
export async function checkPublicSubmission(db: Knex, found: PublicForm, request: PublicSubmissionRequest): Promise<PublicSubmissionCheck> {
  const { formId, linkToken, onceToken } = request;
  const link = linkToken === undefined ? undefined : await linkTarget(db, found, formId, linkToken, request.linkLocation ?? 'body');
  const form = link?.form ?? found;
  const language = chooseLanguage(form.form, request.hints);
  const target = { form, language };
  if (request.discard) return { ...target, kind: 'discarded' };
  if (onceToken !== undefined && (await isSubmissionTokenClaimed(db, form.workspaceId, onceToken))) return { ...target, kind: 'duplicate' };

  const answers = request.answers(form.form);
  // Claimed tokens are kept only a day past their expiry (docs/operations.md), so an expired page cannot be sent.
  if (onceToken !== undefined && isSubmissionTokenExpired(onceToken)) return { ...target, kind: 'expired', answers };
  const checked = validateAnswers(form.form, answers, { language, enforceRequired: true });
  // PostgreSQL cannot store NUL (\u0000): a problem beside the answer instead of a failed insert.
  const unstorable = answers.filter((a) => holdsNul(a.value)).map((a) => a.question_id);
  if (checked.problems.length > 0 || unstorable.length > 0) return { ...target, kind: 'invalid', answers, problems: checked.problems, unstorable };

  const submission = checkSubmission(
    { ...form.form, name: form.name },
    { formId, answers, ...(link ? { respondentEmail: link.claims.email, emailId: link.claims.emailId, rowId: link.claims.rowId } : {}) },
    { language, checked },
  );
  return {
    ...target,
    kind: 'ready',
    submission,
    ...(link && linkToken !== undefined ? { link: { claims: link.claims, token: linkToken } } : {}),
    ...(onceToken !== undefined ? { onceToken } : {}),
  };
}

/**
 * Stores a checked public submission in the caller's transaction: the response and its `response.created` event,
 * then the one-time token (claimed first: a double submit of one page is a duplicate, not a second use of its
 * link), then the link's use.
 * @returns the stored record (storeSubmission).
 * @throws DuplicateSubmission (submission-tokens.store.ts) when the one-time token was claimed meanwhile; AppError
 *   409 link_already_used when the link has taken its responses; validation_error naming `row_id` when the link's
 *   row is gone. The caller's transaction then rolls back: nothing is stored.
 */
export async function storePublicSubmission(trx: Knex.Transaction, ready: ReadyPublicSubmission): Promise<ResponseRecord> {
  const workspaceId = ready.form.workspaceId;
  const record = await storeSubmission(trx, workspaceId, ready.submission);
  if (ready.onceToken !== undefined) await claimSubmissionToken(trx, workspaceId, ready.submission.input.formId, ready.onceToken, record.id);
  if (ready.link) await claimLinkUse(trx, ready.link.claims, ready.link.token);
  return record;
}

/**
 * The API error of a check that stored nothing, for a way that answers errors as JSON (public JSON): the answers'
 * problems as checkSubmission names them (`answers[2].value`, `answers`), else the NUL the database cannot store.
 */
export function invalidSubmissionError(check: Extract<PublicSubmissionCheck, { kind: 'invalid' }>): AppError {
  if (check.problems.length > 0) return errors.validation(check.problems.map((p) => answerProblemDetail(p)));
  return errors.invalid('body', 'body', 'The request holds a character that cannot be stored (NUL, \\u0000).');
}
