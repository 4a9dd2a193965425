"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.findApiKeyBySecret = findApiKeyBySecret;
exports.findApiKeyByHash = findApiKeyByHash;
exports.findApiKeyById = findApiKeyById;
exports.listApiKeys = listApiKeys;
exports.isKeyInactive = isKeyInactive;
exports.touchLastUsed = touchLastUsed;
const secrets_1 = require("./secrets");
const toMeta = (r) => ({
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
});
function keyQuery(db) {
    return db('api_keys as k').select('k.id', 'k.name', 'k.prefix', 'k.scopes', 'k.style', 'k.rate_limit_per_minute', 'k.created_at', 'k.expires_at', 'k.last_used_at', 'k.revoked_at', db.raw('ARRAY(SELECT w.workspace_id FROM api_key_workspaces w WHERE w.api_key_id = k.id ORDER BY 1) AS workspace_ids'));
}
/** The key whose secret this is, or undefined (one indexed lookup on the hash). */
async function findApiKeyBySecret(db, secret) {
    return findApiKeyByHash(db, (0, secrets_1.hashApiKeySecret)(secret));
}
/** The key whose secret has this SHA-256 (hex, as hashApiKeySecret gives), or undefined. */
async function findApiKeyByHash(db, hash) {
    const row = (await keyQuery(db).where('k.key_hash', hash).first());
    return row && toMeta(row);
}
/** A key by id, or undefined. */
async function findApiKeyById(db, id) {
    const row = (await keyQuery(db).where('k.id', id).first());
    return row && toMeta(row);
}
/** Keys with access to the workspace (revoked ones included, with `revokedAt`), newest first. */
async function listApiKeys(db, workspaceId) {
    const rows = (await keyQuery(db)
        .whereExists(db('api_key_workspaces as w').select(db.raw('1')).whereRaw('w.api_key_id = k.id').where('w.workspace_id', workspaceId))
        .orderBy([
        { column: 'k.created_at', order: 'desc' },
        { column: 'k.id', order: 'desc' },
    ]));
    return rows.map(toMeta);
}
/** True when the key can no longer be used. */
function isKeyInactive(key, now = new Date()) {
    return key.revokedAt !== null || (key.expiresAt !== null && key.expiresAt.getTime() <= now.getTime());
}
/**
 * Records use without a write per request: at most one UPDATE per key per minute (the WHERE clause
 * also makes concurrent instances skip a fresh value).
 */
async function touchLastUsed(db, keyId) {
    await db('api_keys')
        .where('id', keyId)
        .andWhere((q) => q.whereNull('last_used_at').orWhereRaw("last_used_at < now() - interval '1 minute'"))
        .update({ last_used_at: db.fn.now() });
}
//# sourceMappingURL=api-keys.service.js.map