/**
 * The store of API keys (`api_keys`, `api_key_workspaces`; API document "Authentication", "API key";
 * docs/writes-keys-limits.md, "API keys and scopes"; docs/decisions.md, "Resource shapes"): lookup for
 * authentication and metadata lists; writes through the API: create with the subset rule, and revoke.
 * Secrets are shown once by the caller and never stored or returned here; only their SHA-256
 * (create-api-key.ts).
 */
import type { Knex } from 'knex';
import { affectedRows, type DbHandle } from '../../db';
import type { Scope } from '../scopes';
import { errors } from '../errors';
import { futureDateTime } from '../query/dates';
import { expiryWithinCreator, rateLimitWithinCreator } from './lineage';
import { type ApiKeyStyle, createApiKey, type CreatedApiKey } from './create-api-key';

export interface ApiKeyMeta {
  id: string;
  name: string;
  prefix: string;
  scopes: Scope[];
  workspaceIds: string[];
  style: 'A' | 'B';
  rateLimitPerMinute: number | null;
  createdAt: Date;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  /** The key that created this one through the API; null for a root (CLI, seed, import; docs/writes-keys-limits.md, "Key lineage"). */
  createdBy: string | null;
}

interface KeyRow {
  id: string;
  name: string;
  prefix: string;
  scopes: Scope[];
  workspace_ids: string[] | null;
  style: 'A' | 'B';
  rate_limit_per_minute: number | null;
  created_at: Date;
  expires_at: Date | null;
  last_used_at: Date | null;
  revoked_at: Date | null;
  created_by: string | null;
}

const toMeta = (r: KeyRow): ApiKeyMeta => ({
  id: r.id,
  name: r.name,
  prefix: r.prefix,
  scopes: r.scopes,
  workspaceIds: (r.workspace_ids ?? []).slice().sort(),
  style: r.style,
  rateLimitPerMinute: r.rate_limit_per_minute,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  lastUsedAt: r.last_used_at,
  revokedAt: r.revoked_at,
  createdBy: r.created_by,
});

function keyQuery(db: DbHandle): Knex.QueryBuilder {
  return db('api_keys as k').select(
    'k.id',
    'k.name',
    'k.prefix',
    'k.scopes',
    'k.style',
    'k.rate_limit_per_minute',
    'k.created_at',
    'k.expires_at',
    'k.last_used_at',
    'k.revoked_at',
    'k.created_by',
    db.raw('ARRAY(SELECT w.workspace_id FROM api_key_workspaces w WHERE w.api_key_id = k.id ORDER BY 1) AS workspace_ids'),
  );
}

/** The key whose secret has this SHA-256 (hex, as hashApiKeySecret gives), or undefined (one indexed lookup). */
export async function findApiKeyByHash(db: DbHandle, hash: string): Promise<ApiKeyMeta | undefined> {
  const row = (await keyQuery(db).where('k.key_hash', hash).first()) as KeyRow | undefined;
  return row && toMeta(row);
}

/** A key by id, or undefined. */
export async function findApiKeyById(db: DbHandle, id: string): Promise<ApiKeyMeta | undefined> {
  const row = (await keyQuery(db).where('k.id', id).first()) as KeyRow | undefined;
  return row && toMeta(row);
}

/**
 * Keys with access to the workspace (revoked ones included, with `revokedAt`), newest first, as `viewer`
 * may see them: each key's `workspaceIds` holds only the workspaces `viewer` opens too, so a key of one
 * workspace learns nothing of the others a key spanning several opens (docs/writes-keys-limits.md,
 * "API keys and scopes"). Spec: GET {ws}/api-keys.
 */
export async function listApiKeys(db: DbHandle, workspaceId: string, viewer: Pick<ApiKeyMeta, 'workspaceIds'>): Promise<ApiKeyMeta[]> {
  const rows = (await keyQuery(db)
    .whereExists(db('api_key_workspaces as w').select(db.raw('1')).whereRaw('w.api_key_id = k.id').where('w.workspace_id', workspaceId))
    .orderBy([
      { column: 'k.created_at', order: 'desc' },
      { column: 'k.id', order: 'desc' },
    ])) as KeyRow[];
  const visible = new Set(viewer.workspaceIds);
  return rows.map(toMeta).map((k) => ({ ...k, workspaceIds: k.workspaceIds.filter((w) => visible.has(w)) }));
}

/**
 * When a key of the workspace was last used (the latest `last_used_at`, ISO, or '' when none was): moves once a
 * minute at most per key (touchLastUsed), which marks no change (migration 027), so the key list's ETag folds it in
 * (docs/api-rules.md, "Conditional requests").
 */
export async function keysLastUsed(db: DbHandle, workspaceId: string): Promise<string> {
  const row = (await db('api_keys as k')
    .join('api_key_workspaces as w', 'w.api_key_id', 'k.id')
    .where('w.workspace_id', workspaceId)
    .max({ at: 'k.last_used_at' })
    .first()) as { at: Date | string | null } | undefined;
  const at = row?.at;
  return at == null ? '' : new Date(at).toISOString();
}

/** True when the key can no longer be used. */
export function isKeyInactive(key: ApiKeyMeta, now = new Date()): boolean {
  return key.revokedAt !== null || (key.expiresAt !== null && key.expiresAt.getTime() <= now.getTime());
}

/**
 * Records use without a write per request: at most one UPDATE per key per minute (the WHERE clause
 * also makes concurrent instances skip a fresh value).
 */
export async function touchLastUsed(db: DbHandle, keyId: string): Promise<void> {
  await db('api_keys')
    .where('id', keyId)
    .andWhere((q) => {
      q.whereNull('last_used_at').orWhereRaw("last_used_at < now() - interval '1 minute'");
    })
    .update({ last_used_at: db.fn.now() });
}

// Writes through the API: create with the subset rule, and revoke.

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
    input.rateLimitPerMinute === undefined
      ? creator.rateLimitPerMinute
      : rateLimitWithinCreator(input.rateLimitPerMinute, creator.rateLimitPerMinute, serviceRateLimit);
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
 * @returns the key as it was before (its workspaces: where the revocation is audited).
 * Spec: DELETE {ws}/api-keys/{key_id}.
 */
export async function revokeApiKey(db: DbHandle, revoker: ApiKeyMeta, workspaceId: string, keyId: string): Promise<ApiKeyMeta> {
  const target = await findApiKeyById(db, keyId);
  if (!target || !target.workspaceIds.includes(workspaceId)) throw errors.notFound('API key', keyId);
  if (target.id !== revoker.id) {
    if (target.workspaceIds.some((w) => !revoker.workspaceIds.includes(w))) throw errors.workspaceAccessDenied();
    const missing = target.scopes.find((s) => !revoker.scopes.includes(s));
    if (missing !== undefined) throw errors.insufficientScope(missing);
  }
  const n = await affectedRows(
    db('api_keys')
      .where('id', keyId)
      .update({ revoked_at: db.raw('COALESCE(revoked_at, now())') }),
  );
  if (n === 0) throw errors.notFound('API key', keyId);
  return target;
}

/** Inserts a new key (`api_keys`, hash only) and its workspaces (`api_key_workspaces`) with the caller's handle (createApiKey). */
export async function insertApiKey(db: DbHandle, key: CreatedApiKey, keyHash: string): Promise<void> {
  await db('api_keys').insert({
    id: key.id,
    name: key.name,
    key_hash: keyHash,
    prefix: key.prefix,
    scopes: key.scopes,
    style: key.style,
    rate_limit_per_minute: key.rateLimitPerMinute,
    created_at: key.createdAt,
    expires_at: key.expiresAt,
    revoked_at: key.revokedAt,
    created_by: key.createdBy,
  });
  await db('api_key_workspaces').insert(key.workspaceIds.map((w) => ({ workspace_id: w, api_key_id: key.id })));
}

/** A key's style, undefined when no key has this id (the migration report). */
export async function apiKeyStyle(db: DbHandle, keyId: string): Promise<{ style: 'A' | 'B' } | undefined> {
  return (await db('api_keys').where('id', keyId).first('style')) as { style: 'A' | 'B' } | undefined;
}

/** The workspaces a key opens (`api_key_workspaces` rows), in no order (who may see a key's usage). */
export async function keyWorkspaceRows(db: DbHandle, keyId: string): Promise<Array<{ workspace_id: string }>> {
  return (await db('api_key_workspaces').where('api_key_id', keyId).select('workspace_id')) as Array<{ workspace_id: string }>;
}
