/**
 * API keys: lookup for authentication and metadata lists (API document "Authentication", "API key";
 * docs/writes-keys-limits.md, "API keys and scopes"; docs/decisions.md, "Resource shapes"). Secrets are never stored or returned here; only their SHA-256.
 */
import type { Knex } from 'knex';
import type { DbHandle } from '../../db';
import type { Scope } from '../scopes';

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
