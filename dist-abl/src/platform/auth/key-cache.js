"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.KEY_CHANGE_CHANNEL = exports.KEY_CACHE_TTL_MS = void 0;
exports.createApiKeyCache = createApiKeyCache;
/**
 * In-process cache of authenticated API keys (issue 11): the key lookup is the one database query
 * every request would otherwise make. Entries are keyed by the secret's SHA-256 (the secret itself is
 * never held) and live at most KEY_CACHE_TTL_MS.
 *
 * Revocation stays immediate on every instance (CONTRACT section 3): every change to a key or its
 * workspaces sends `NOTIFY api_key_changed` in its own transaction (migration 007), and each instance
 * drops its whole cache when the notice arrives, i.e. when the change commits. The TTL is the safety
 * net for notices lost while the LISTEN connection was down (it is also cleared when that connection
 * drops and when it is back), so the contract's "within 1 s" holds in every case.
 *
 * Unknown secrets are never cached: they go to the database each time and count against the
 * per-address budget of failed authentications.
 */
const api_keys_service_1 = require("../../core/api-keys/api-keys.service");
const secrets_1 = require("../../core/api-keys/secrets");
const notifications_1 = require("../db/notifications");
/** How long a cached key may be used without asking the database again (milliseconds). */
exports.KEY_CACHE_TTL_MS = 1_000;
/** The channel migration 007's triggers notify. */
exports.KEY_CHANGE_CHANNEL = 'api_key_changed';
/** Above this many entries, expired ones are swept on the next insert (bounds memory under many keys). */
const SWEEP_ABOVE = 10_000;
function createApiKeyCache(opts) {
    const ttlMs = opts.ttlMs ?? exports.KEY_CACHE_TTL_MS;
    const entries = new Map();
    // Lookups in flight, shared by concurrent requests with the same key (one query, not one each).
    const pending = new Map();
    // Bumped by every clear: a lookup that started before a change notice must not cache what it read.
    let generation = 0;
    const clear = () => {
        generation++;
        entries.clear();
        pending.clear();
    };
    const subscription = (0, notifications_1.listenToChannel)({
        db: opts.db,
        channel: exports.KEY_CHANGE_CHANNEL,
        logger: opts.logger,
        onNotice: clear,
        onReset: clear,
    });
    const lookup = (hash) => {
        const started = generation;
        const p = (0, api_keys_service_1.findApiKeyByHash)(opts.db, hash).then((key) => {
            if (pending.get(hash) === p)
                pending.delete(hash);
            if (key && started === generation) {
                if (entries.size >= SWEEP_ABOVE)
                    sweep(entries, Date.now());
                entries.set(hash, { key, until: Date.now() + ttlMs });
            }
            return key;
        }, (err) => {
            if (pending.get(hash) === p)
                pending.delete(hash);
            throw err;
        });
        pending.set(hash, p);
        return p;
    };
    return {
        async find(secret) {
            const hash = (0, secrets_1.hashApiKeySecret)(secret);
            const hit = entries.get(hash);
            if (hit && hit.until > Date.now())
                return hit.key;
            return pending.get(hash) ?? lookup(hash);
        },
        clear,
        stop: async () => subscription.unsubscribe(),
    };
}
function sweep(entries, now) {
    for (const [k, v] of entries)
        if (v.until <= now)
            entries.delete(k);
}
//# sourceMappingURL=key-cache.js.map