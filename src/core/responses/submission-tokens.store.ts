/**
 * The store of `submission_tokens` (migration 003, primary key on the workspace and the token): the hosted page's
 * one-time submission tokens, every reader and writer of the table (docs/collecting.md, "Double submits and the
 * honeypot"; docs/operations.md, "What grows, and what bounds it").
 *
 * Each page carries a random token; the submission claims it in the transaction that stores the response, opened
 * by the caller of the public submission use case (public-submission.ts). A second submit with the same token, also
 * one racing the first, finds it claimed: its transaction rolls back and it answers as the first did.
 *
 * A token is `{issued}.{random}`: the Unix second it was minted in base 36, a dot, 18 random bytes in
 * base64url. A page is good for `SUBMISSION_TOKEN_TTL_DAYS` after it was rendered; a later submission
 * gets the page again with a fresh token. `submission_tokens` holds the claimed ones, and a claim is
 * always made after its token was minted, so a row claimed more than the lifetime plus a day ago holds
 * a token that expired at least a day ago: nothing can be submitted with it again, and it is deleted.
 */
import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import type { DbHandle } from '../../db';
import { deleteOlderInBatches, type BatchOptions } from '../../db/batches';
import { DAY_MS } from '../query/dates';

/** How long a rendered page can be submitted, in days. */
export const SUBMISSION_TOKEN_TTL_DAYS = 7;
/** Claimed tokens are kept this long past their expiry, in days. */
export const SUBMISSION_TOKEN_GRACE_DAYS = 1;
/** Clocks of several instances may differ a little: a token minted up to 5 min "ahead" is still ours. */
const CLOCK_SKEW_MS = 5 * 60_000;

/** A new token minted at `now`. */
export function mintSubmissionToken(now: Date = new Date()): string {
  return `${Math.floor(now.getTime() / 1000).toString(36)}.${randomBytes(18).toString('base64url')}`;
}

/**
 * True when a page's token can no longer be submitted: minted more than SUBMISSION_TOKEN_TTL_DAYS
 * before `now`, or "minted" in the future (not one of ours). A token without an issue time (pages
 * rendered before tokens carried one, or a token of the customer's own HTML) counts as fresh: its claim
 * row guards it for the lifetime plus a day.
 */
export function isSubmissionTokenExpired(token: string, now: Date = new Date()): boolean {
  const m = /^([0-9a-z]{6,8})\.[A-Za-z0-9_-]{24}$/.exec(token);
  if (!m) return false;
  const issuedMs = parseInt(m[1]!, 36) * 1000;
  return issuedMs > now.getTime() + CLOCK_SKEW_MS || now.getTime() - issuedMs > SUBMISSION_TOKEN_TTL_DAYS * DAY_MS;
}

/**
 * Deletes claimed tokens whose claim is older than SUBMISSION_TOKEN_TTL_DAYS + SUBMISSION_TOKEN_GRACE_DAYS
 * before `now`, in batches (index `submission_tokens_created_idx`); safe on several instances at once.
 * @returns rows deleted.
 */
export function pruneSubmissionTokens(db: DbHandle, now: Date, opts: BatchOptions = {}): Promise<number> {
  const before = new Date(now.getTime() - (SUBMISSION_TOKEN_TTL_DAYS + SUBMISSION_TOKEN_GRACE_DAYS) * DAY_MS);
  return deleteOlderInBatches(db, { table: 'submission_tokens', key: ['workspace_id', 'token'], column: 'created_at', before }, opts);
}

/** Thrown inside the submission's transaction when the token was already claimed (rolls it back). */
export class DuplicateSubmission extends Error {
  constructor() {
    super('submission token already used');
    this.name = 'DuplicateSubmission';
  }
}

/** True when a response was already stored with this token (the quick check before validating). */
export async function isSubmissionTokenClaimed(db: DbHandle, workspaceId: string, token: string): Promise<boolean> {
  return (await db('submission_tokens').first('token').where({ workspace_id: workspaceId, token })) !== undefined;
}

/**
 * Claims `token` for a response inside the submission's transaction. A concurrent claim of the same
 * token waits on the unique index until this one commits, then inserts nothing.
 * @throws DuplicateSubmission when the token is already claimed.
 */
export async function claimSubmissionToken(trx: Knex.Transaction, workspaceId: string, formId: string, token: string, responseId: string): Promise<void> {
  const claimed = await trx('submission_tokens')
    .insert({ token, workspace_id: workspaceId, form_id: formId, response_id: responseId })
    .onConflict(['workspace_id', 'token'])
    .ignore()
    .returning('token');
  if (claimed.length === 0) throw new DuplicateSubmission();
}
