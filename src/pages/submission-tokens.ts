/**
 * One-time submission tokens of the hosted page (docs/collecting.md, "Double submits and the honeypot"): each page
 * carries a random token; the submission claims it in the transaction that stores the response, opened by
 * the page handler (`submission_tokens`, migration 003, primary key on the workspace and the token). A second submit with the same token, also one racing the
 * first, finds it claimed: its transaction rolls back and it answers with the same thank-you page.
 */
import type { Knex } from 'knex';
import type { DbHandle } from '../db';

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
export async function claimSubmissionToken(
  trx: Knex.Transaction,
  workspaceId: string,
  formId: string,
  token: string,
  responseId: string,
): Promise<void> {
  const claimed = await trx('submission_tokens')
    .insert({ token, workspace_id: workspaceId, form_id: formId, response_id: responseId })
    .onConflict(['workspace_id', 'token'])
    .ignore()
    .returning('token');
  if (claimed.length === 0) throw new DuplicateSubmission();
}
