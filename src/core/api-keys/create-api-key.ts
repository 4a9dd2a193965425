/**
 * Creating an API key row (docs/api-rules.md, "Keys and access"): the secret is returned once and only its SHA-256
 * hash is stored. Used by the fixture importer, `keys create` and the demo seed; the HTTP endpoint
 * applies its own subset rules (docs/writes-keys-limits.md, "API keys and scopes") before calling it.
 */
import type { DbHandle } from '../../db';
import { newId } from '../ids';
import { ALL_SCOPES, isScope, type Scope } from '../scopes';
import { insertApiKey } from './api-keys.store';
import { API_KEY_PREFIX, generateApiKeySecret, hashApiKeySecret, secretDisplayPrefix } from './secrets';

export type ApiKeyStyle = 'A' | 'B';

export interface CreateApiKeyInput {
  /** Default: a new `key_…` id. */
  id?: string;
  name: string;
  /** Default: a new random secret. A given one must start with `fa_`. */
  secret?: string;
  /** At least one; each must exist (the foreign key rejects others). */
  workspaceIds: string[];
  /** Absent: every scope (docs/api-rules.md, "Keys and access"). `[]` means none. */
  scopes?: Scope[] | undefined;
  expiresAt?: Date | null;
  revokedAt?: Date | null;
  /** Default style of shared paths for this key; default `A`. */
  style?: ApiKeyStyle;
  /** Requests per minute; null or absent: the service default (`RATE_LIMIT_PER_MINUTE`). */
  rateLimitPerMinute?: number | null;
  /** Default: now. */
  createdAt?: Date;
  /** The key creating this one through the API; absent or null: a root key (docs/writes-keys-limits.md, "Key lineage"). */
  createdBy?: string | null;
}

export interface CreatedApiKey {
  id: string;
  name: string;
  /** The clear secret: shown once, never stored. */
  secret: string;
  /** First 8 characters of the secret (display only). */
  prefix: string;
  scopes: Scope[];
  workspaceIds: string[];
  style: ApiKeyStyle;
  rateLimitPerMinute: number | null;
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
  createdBy: string | null;
}

/**
 * Inserts a key into `api_keys` (hash of the secret only) and its workspaces into
 * `api_key_workspaces`: two inserts, so the caller runs it in its transaction (alone or as part of a
 * larger write).
 * @throws Error when the secret does not start with `fa_`, a scope is unknown, `workspaceIds` is
 * empty or `rateLimitPerMinute` is not a positive integer; the database rejects unknown workspaces
 * (foreign key, 23503) and an id or secret already in use (unique, 23505).
 * Spec: docs/api-rules.md, "Keys and access" (secrets, scopes); docs/import.md, "The fixture document" (fixture keys).
 */
export async function createApiKey(db: DbHandle, input: CreateApiKeyInput): Promise<CreatedApiKey> {
  const secret = input.secret ?? generateApiKeySecret();
  if (!secret.startsWith(API_KEY_PREFIX) || secret.length <= API_KEY_PREFIX.length) {
    throw new Error(`an API key secret must start with "${API_KEY_PREFIX}"`);
  }
  const scopes = input.scopes === undefined ? [...ALL_SCOPES] : [...new Set(input.scopes)];
  const unknown = scopes.filter((s) => !isScope(s));
  if (unknown.length > 0) throw new Error(`unknown scope "${String(unknown[0])}"`);
  const workspaceIds = [...new Set(input.workspaceIds)];
  if (workspaceIds.length === 0) throw new Error('an API key needs at least one workspace');
  const rateLimit = input.rateLimitPerMinute ?? null;
  if (rateLimit !== null && (!Number.isInteger(rateLimit) || rateLimit < 1)) {
    throw new Error(`rate limit per minute must be a positive integer; got ${rateLimit}`);
  }

  const key: CreatedApiKey = {
    id: input.id ?? newId('apiKey'),
    name: input.name,
    secret,
    prefix: secretDisplayPrefix(secret),
    scopes,
    workspaceIds,
    style: input.style ?? 'A',
    rateLimitPerMinute: rateLimit,
    createdAt: input.createdAt ?? new Date(),
    expiresAt: input.expiresAt ?? null,
    revokedAt: input.revokedAt ?? null,
    createdBy: input.createdBy ?? null,
  };
  await insertApiKey(db, key, hashApiKeySecret(secret));
  return key;
}
