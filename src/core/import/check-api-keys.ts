/**
 * API keys of a fixture document (docs/import.md, "What is checked"; docs/api-rules.md, "Keys and access"): workspaces known, a given secret starts
 * with `fa_` and is used by no other key, in the document or in the database.
 */
import { API_KEY_PREFIX, hashApiKeySecret } from '../api-keys/secrets';
import type { CreateApiKeyInput } from '../api-keys/create-api-key';
import type { FixtureApiKey } from './fixture-schema';
import type { ImportContext, Item } from './context';

/**
 * Checks the keys (workspaces resolved before) against the document and the database.
 * @param ids the keys' ids (ImportContext.claimIds).
 * @returns the keys to create, in document order (written last, with createApiKey).
 */
export async function checkApiKeys(ctx: ImportContext, items: Item<FixtureApiKey>[], ids: string[]): Promise<CreateApiKeyInput[]> {
  const hashes = items.map((k) => (k.ok && k.value.secret !== undefined ? hashApiKeySecret(k.value.secret) : undefined));
  const usedHashes = await ctx.existing(
    'api_keys',
    'key_hash',
    hashes.filter((h): h is string => h !== undefined),
  );
  const firstSecret = new Map<string, number>();
  const keys: CreateApiKeyInput[] = [];
  items.forEach((item, i) => {
    if (!item.ok) return;
    const k = item.value;
    const path = `api_keys[${item.index}]`;
    k.workspace_ids.forEach((w, wi) => ctx.checkWorkspace(`${path}.workspace_ids[${wi}]`, w));
    if (k.secret !== undefined) {
      if (!k.secret.startsWith(API_KEY_PREFIX) || k.secret.length <= API_KEY_PREFIX.length) {
        ctx.problems.add(`${path}.secret`, `must start with "${API_KEY_PREFIX}" followed by the secret`);
      }
      const prev = firstSecret.get(k.secret);
      if (prev !== undefined) ctx.problems.add(`${path}.secret`, `same secret as api_keys[${prev}]`);
      else firstSecret.set(k.secret, item.index);
      if (usedHashes.has(hashes[i]!)) ctx.problems.add(`${path}.secret`, 'this secret is already used by another key');
    }
    keys.push({
      id: ids[i]!,
      name: k.name,
      secret: k.secret,
      workspaceIds: [...new Set(k.workspace_ids)],
      scopes: k.scopes,
      expiresAt: k.expires_at ? new Date(k.expires_at) : null,
      revokedAt: k.revoked_at ? new Date(k.revoked_at) : null,
      style: k.style ?? 'A',
      rateLimitPerMinute: k.rate_limit_per_minute ?? null,
      createdAt: new Date(k.created_at ?? ctx.nowIso),
    });
  });
  return keys;
}
