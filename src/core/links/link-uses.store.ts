/**
 * The responses an email link has taken (docs/collecting.md, "Email links"; `email_link_uses`, migration 012, the
 * one owner of that table). A link takes one response unless it was minted to take more (`max_responses`); both
 * ways in (the hosted page and the public JSON submission) claim a use in the transaction that stores the response.
 */
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type { DbHandle } from '../../db';
import { deleteOlderInBatches, type BatchOptions } from '../../db/batches';
import { errors } from '../errors';
import type { LinkClaims } from './links';
import { DAY_MS } from '../query/dates';

/** The name of a link's row: the SHA-256 of its token (hex); the token itself is a credential and is not stored. */
const tokenHash = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');

/**
 * Counts one response for the link `token` in the caller's transaction, only while it has taken fewer than
 * `claims.maxResponses`. A concurrent claim of the same link waits on the row until this transaction ends, then
 * counts against what this one committed.
 * @param trx the submission's transaction: the use rolls back with the response.
 * @throws AppError link_already_used (409) when the link has taken all the responses it may.
 */
export async function claimLinkUse(trx: Knex.Transaction, claims: LinkClaims, token: string): Promise<void> {
  const claimed: unknown[] = await trx('email_link_uses')
    .insert({
      workspace_id: claims.workspaceId,
      token_hash: tokenHash(token),
      form_id: claims.formId,
      email_id: claims.emailId,
      uses: 1,
      expires_at: claims.expiresAt,
    })
    .onConflict(['workspace_id', 'token_hash'])
    .merge({ uses: trx.raw('email_link_uses.uses + 1'), updated_at: trx.fn.now() })
    .where('email_link_uses.uses', '<', claims.maxResponses)
    .returning('uses');
  if (claimed.length === 0) throw errors.linkAlreadyUsed(claims.maxResponses);
}

/**
 * True when the link `token` has taken every response it may (the page shows its message instead of the form).
 */
export async function isLinkUsedUp(db: Knex, claims: LinkClaims, token: string): Promise<boolean> {
  const row = await db('email_link_uses')
    .first<{ uses: number } | undefined>('uses')
    .where({ workspace_id: claims.workspaceId, token_hash: tokenHash(token) });
  return row !== undefined && Number(row.uses) >= claims.maxResponses;
}

/**
 * Deletes the uses of links that expired more than a day before `now` (such a link is refused with 410 before its
 * uses are read), in batches (index `email_link_uses_expires_idx`); safe on several instances at once.
 * @returns rows deleted.
 */
export function pruneLinkUses(db: DbHandle, now: Date, opts: BatchOptions = {}): Promise<number> {
  const before = new Date(now.getTime() - DAY_MS);
  return deleteOlderInBatches(db, { table: 'email_link_uses', key: ['workspace_id', 'token_hash'], column: 'expires_at', before }, opts);
}

/** How many link-use rows belong to these emails (an erasure's dry run). */
export async function countLinkUsesOfEmails(db: DbHandle, workspaceId: string, emailIds: readonly string[]): Promise<number> {
  if (emailIds.length === 0) return 0;
  const row = (await db('email_link_uses')
    .count({ n: '*' })
    .where('workspace_id', workspaceId)
    .whereIn('email_id', [...emailIds])
    .first()) as { n: unknown } | undefined;
  return Number(row?.n ?? 0);
}

/**
 * Deletes the link-use rows of these emails in the caller's transaction (an erasure: the links themselves are refused
 * from then on by the suppression list, so their counts are no longer needed).
 * @returns how many went.
 */
export async function deleteLinkUsesOfEmails(trx: Knex.Transaction, workspaceId: string, emailIds: readonly string[]): Promise<number> {
  if (emailIds.length === 0) return 0;
  const rows = (await trx('email_link_uses')
    .where('workspace_id', workspaceId)
    .whereIn('email_id', [...emailIds])
    .delete()
    .returning('token_hash')) as unknown[];
  return rows.length;
}
