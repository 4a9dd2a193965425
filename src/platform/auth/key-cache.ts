/**
 * In-process cache of authenticated API keys (issue 11): the key lookup is the one database query
 * every request would otherwise make. Entries are keyed by the secret's SHA-256 (the secret itself is
 * never held) and live at most KEY_CACHE_TTL_MS.
 *
 * Revocation stays immediate on every instance (docs/api-rules.md, "Keys and access"): every change to a key or its
 * workspaces sends `NOTIFY api_key_changed` in its own transaction (migration 007), and each instance
 * drops its whole cache when the notice arrives, i.e. when the change commits. While no notice can
 * arrive (before the LISTEN connection is first up, at start under load, and while it is lost), the
 * cache is bypassed: every request reads the key from the database, so a change made on another
 * instance is seen at once then too. The TTL bounds what a notice delayed in flight could leave.
 *
 * Unknown secrets are never cached: they go to the database each time and count against the
 * per-address budget of failed authentications.
 */
import { findApiKeyByHash, type ApiKeyMeta } from '../../core/api-keys/api-keys.store';
import { hashApiKeySecret } from '../../core/api-keys/secrets';
import type { Db } from '../../db';
import { listenToChannel } from '../../db/notifications';
import type { Logger } from '../logger';

/** How long a cached key may be used without asking the database again (milliseconds). */
export const KEY_CACHE_TTL_MS = 1_000;
/** The channel migration 007's triggers notify. */
export const KEY_CHANGE_CHANNEL = 'api_key_changed';
/** Above this many entries, expired ones are swept on the next insert (bounds memory under many keys). */
const SWEEP_ABOVE = 10_000;

export interface ApiKeyCache {
  /** The key whose secret this is (from the cache when fresh), or undefined for an unknown secret. */
  find(secret: string): Promise<ApiKeyMeta | undefined>;
  /** Drops every cached key on this instance (what a change notice does). */
  clear: () => void;
  /** Stops receiving change notices (the LISTEN connection closes with the database handle). */
  stop(): Promise<void>;
}

export function createApiKeyCache(opts: { db: Db; logger: Logger; ttlMs?: number }): ApiKeyCache {
  const ttlMs = opts.ttlMs ?? KEY_CACHE_TTL_MS;
  const entries = new Map<string, { key: ApiKeyMeta; until: number }>();
  // Lookups in flight, shared by concurrent requests with the same key (one query, not one each).
  const pending = new Map<string, Promise<ApiKeyMeta | undefined>>();
  // Bumped by every clear: a lookup that started before a change notice must not cache what it read.
  let generation = 0;

  const clear = () => {
    generation++;
    entries.clear();
    pending.clear();
  };
  const subscription = listenToChannel({
    db: opts.db,
    channel: KEY_CHANGE_CHANNEL,
    logger: opts.logger,
    onNotice: clear,
    onReset: clear,
  });

  const lookup = (hash: string): Promise<ApiKeyMeta | undefined> => {
    const started = generation;
    const p = findApiKeyByHash(opts.db, hash).then(
      (key) => {
        if (pending.get(hash) === p) pending.delete(hash);
        if (key && started === generation && subscription.listening()) {
          if (entries.size >= SWEEP_ABOVE) sweep(entries, Date.now());
          entries.set(hash, { key, until: Date.now() + ttlMs });
        }
        return key;
      },
      (err: unknown) => {
        if (pending.get(hash) === p) pending.delete(hash);
        throw err;
      },
    );
    pending.set(hash, p);
    return p;
  };

  return {
    async find(secret) {
      const hash = hashApiKeySecret(secret);
      // No notices now: a cached key could miss a revocation made elsewhere, so read through.
      if (!subscription.listening()) return findApiKeyByHash(opts.db, hash);
      const hit = entries.get(hash);
      if (hit && hit.until > Date.now()) return hit.key;
      return pending.get(hash) ?? lookup(hash);
    },
    clear,
    stop: async () => subscription.unsubscribe(),
  };
}

function sweep(entries: Map<string, { until: number }>, now: number): void {
  for (const [k, v] of entries) if (v.until <= now) entries.delete(k);
}
