"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.createApiKey = createApiKey;
const ids_1 = require("../ids");
const scopes_1 = require("../scopes");
const secrets_1 = require("./secrets");
/**
 * Inserts a key into `api_keys` (hash of the secret only) and its workspaces into
 * `api_key_workspaces`. Run it inside the caller's transaction to make it part of a larger write.
 * @throws Error when the secret does not start with `fa_`, a scope is unknown, `workspaceIds` is
 * empty or `rateLimitPerMinute` is not a positive integer; the database rejects unknown workspaces
 * (foreign key, 23503) and an id or secret already in use (unique, 23505).
 * Spec: CONTRACT sections 3 (secrets, scopes) and 9 (fixture keys).
 */
async function createApiKey(db, input) {
    const secret = input.secret ?? (0, secrets_1.generateApiKeySecret)();
    if (!secret.startsWith(secrets_1.API_KEY_PREFIX) || secret.length <= secrets_1.API_KEY_PREFIX.length) {
        throw new Error(`an API key secret must start with "${secrets_1.API_KEY_PREFIX}"`);
    }
    const scopes = input.scopes === undefined ? [...scopes_1.ALL_SCOPES] : [...new Set(input.scopes)];
    const unknown = scopes.filter((s) => !(0, scopes_1.isScope)(s));
    if (unknown.length > 0)
        throw new Error(`unknown scope "${unknown[0]}"`);
    const workspaceIds = [...new Set(input.workspaceIds)];
    if (workspaceIds.length === 0)
        throw new Error('an API key needs at least one workspace');
    const rateLimit = input.rateLimitPerMinute ?? null;
    if (rateLimit !== null && (!Number.isInteger(rateLimit) || rateLimit < 1)) {
        throw new Error(`rate limit per minute must be a positive integer; got ${rateLimit}`);
    }
    const key = {
        id: input.id ?? (0, ids_1.newId)('apiKey'),
        name: input.name,
        secret,
        prefix: (0, secrets_1.secretDisplayPrefix)(secret),
        scopes,
        workspaceIds,
        style: input.style ?? 'A',
        rateLimitPerMinute: rateLimit,
        createdAt: input.createdAt ?? new Date(),
        expiresAt: input.expiresAt ?? null,
        revokedAt: input.revokedAt ?? null,
    };
    await db('api_keys').insert({
        id: key.id,
        name: key.name,
        key_hash: (0, secrets_1.hashApiKeySecret)(secret),
        prefix: key.prefix,
        scopes: key.scopes,
        style: key.style,
        rate_limit_per_minute: key.rateLimitPerMinute,
        created_at: key.createdAt,
        expires_at: key.expiresAt,
        revoked_at: key.revokedAt,
    });
    await db('api_key_workspaces').insert(workspaceIds.map((w) => ({ workspace_id: w, api_key_id: key.id })));
    return key;
}
//# sourceMappingURL=create-api-key.js.map