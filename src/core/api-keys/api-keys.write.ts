/**
 * API key writes through the API (API document "Authentication"; docs/writes-keys-limits.md, "API keys and scopes"):
 * create with the subset rule, and revoke. Secrets are shown once by the caller; only their
 * SHA-256 is stored (create-api-key.ts).
 */
import type { Knex } from 'knex';
import { errors } from '../errors';
import { futureDateTime } from '../query/dates';
import type { Scope } from '../scopes';
import { affectedRows, type DbHandle } from '../../db';
import { findApiKeyById, type ApiKeyMeta } from './api-keys.service';
import { expiryWithinCreator, rateLimitWithinCreator } from './lineage';
import { createApiKey, type ApiKeyStyle, type CreatedApiKey } from './create-api-key';

export interface ApiKeyCreateInput {
  name: string;
  /** Absent: the creator's scopes; `[]`: none. */
  scopes?: Scope[] | undefined;
  /** Absent: the workspace in the path. */
  workspaceIds?: string[] | undefined;
  /** Absent: the creator's expiry; null: never (only when the creator never expires). */
  expiresAt?: string | null | undefined;
  style?: ApiKeyStyle | undefined;
  /** Absent: the creator's limit. */
  rateLimitPerMinute?: number | undefined;
}

/**
 * Creates a key on behalf of `creator`, in the caller's transaction (the key and its workspaces are two
 * inserts). The new key never outgrows nor outlives its creator: its workspaces and scopes are a subset of the
 * creator's, its rate limit at most the creator's (its own, else `serviceRateLimit`), its expiry not later than
 * the creator's; it records `created_by`, so revoking or expiring the creator reaches it (migration 011).
 * @param pathWorkspaceId the workspace in the path (default of `workspace_ids`).
 * @param serviceRateLimit RATE_LIMIT_PER_MINUTE: the limit of a key whose own is null.
 * @returns the new key with its clear `secret` (shown only in this answer).
 * @throws AppError workspace_access_denied for a workspace the creator lacks; insufficient_scope
 * for a scope it lacks; validation_error naming `rate_limit_per_minute` above the creator's limit, or naming
 * `expires_at` when it is not a date-time with an offset in the range of query/dates.ts, not in the future,
 * null or later than the creator's expiry while the creator expires.
 * Spec: POST {ws}/api-keys; docs/writes-keys-limits.md, "API keys and scopes" (subset rule, defaults), "Key lineage".
 */
export async function createApiKeyFor(
  trx: Knex.Transaction,
  creator: ApiKeyMeta,
  pathWorkspaceId: string,
  input: ApiKeyCreateInput,
  serviceRateLimit: number,
): Promise<CreatedApiKey> {
  const workspaceIds = [...new Set(input.workspaceIds ?? [pathWorkspaceId])];
  if (workspaceIds.some((w) => !creator.workspaceIds.includes(w))) throw errors.workspaceAccessDenied();
  const scopes = [...new Set(input.scopes ?? creator.scopes)];
  const missing = scopes.find((s) => !creator.scopes.includes(s));
  if (missing !== undefined) throw errors.insufficientScope(missing);
  const rateLimitPerMinute =
    input.rateLimitPerMinute === undefined ? creator.rateLimitPerMinute : rateLimitWithinCreator(input.rateLimitPerMinute, creator.rateLimitPerMinute, serviceRateLimit);
  let expiresAt = creator.expiresAt;
  if (input.expiresAt !== undefined) {
    expiresAt = expiryWithinCreator(input.expiresAt === null ? null : futureDateTime(input.expiresAt, 'expires_at'), creator, 'expires_at');
  }
  return createApiKey(trx, {
    name: input.name,
    workspaceIds,
    scopes,
    expiresAt,
    style: input.style ?? 'A',
    rateLimitPerMinute,
    createdBy: creator.id,
  });
}

/**
 * Revokes a key on behalf of `revoker` (docs/writes-keys-limits.md, "API keys and scopes", revocation rule): sets `revoked_at` (kept
 * when already set). A key may revoke itself, or a key whose workspaces and scopes are a subset of
 * its own, so a key of one workspace never cuts off a key that also opens others. The same update revokes every
 * key and dashboard link the key made, transitively (migration 011's trigger; "Key lineage"). Every revoked key
 * is refused with 401 api_key_expired from its next request on, on every instance (the update notifies
 * `api_key_changed`, which empties every instance's key cache when it commits).
 * @throws AppError resource_not_found when no key with this id has access to the workspace;
 * workspace_access_denied when the key opens a workspace the revoker lacks; insufficient_scope
 * naming a scope the key has and the revoker lacks.
 * Spec: DELETE {ws}/api-keys/{key_id}.
 */
export async function revokeApiKey(db: DbHandle, revoker: ApiKeyMeta, workspaceId: string, keyId: string): Promise<void> {
  const target = await findApiKeyById(db, keyId);
  if (!target || !target.workspaceIds.includes(workspaceId)) throw errors.notFound('API key', keyId);
  if (target.id !== revoker.id) {
    if (target.workspaceIds.some((w) => !revoker.workspaceIds.includes(w))) throw errors.workspaceAccessDenied();
    const missing = target.scopes.find((s) => !revoker.scopes.includes(s));
    if (missing !== undefined) throw errors.insufficientScope(missing);
  }
  const n = await affectedRows(db('api_keys').where('id', keyId).update({ revoked_at: db.raw('COALESCE(revoked_at, now())') }));
  if (n === 0) throw errors.notFound('API key', keyId);
}
