"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.createApiKeyFor = createApiKeyFor;
exports.revokeApiKey = revokeApiKey;
const errors_1 = require("../errors");
const db_1 = require("../../db");
const api_keys_service_1 = require("./api-keys.service");
const create_api_key_1 = require("./create-api-key");
/**
 * Creates a key on behalf of `creator`: its workspaces and scopes must be a subset of the creator's.
 * @param pathWorkspaceId the workspace in the path (default of `workspace_ids`).
 * @returns the new key with its clear `secret` (shown only in this answer).
 * @throws AppError workspace_access_denied for a workspace the creator lacks; insufficient_scope
 * for a scope it lacks; validation_error naming `expires_at` when it is not in the future.
 * Spec: POST {ws}/api-keys; CONTRACT section 10 (subset rule, defaults).
 */
async function createApiKeyFor(db, creator, pathWorkspaceId, input) {
    const workspaceIds = [...new Set(input.workspaceIds ?? [pathWorkspaceId])];
    if (workspaceIds.some((w) => !creator.workspaceIds.includes(w)))
        throw errors_1.errors.workspaceAccessDenied();
    const scopes = [...new Set(input.scopes ?? creator.scopes)];
    const missing = scopes.find((s) => !creator.scopes.includes(s));
    if (missing !== undefined)
        throw errors_1.errors.insufficientScope(missing);
    let expiresAt = null;
    if (input.expiresAt !== undefined && input.expiresAt !== null) {
        expiresAt = new Date(input.expiresAt);
        if (Number.isNaN(expiresAt.getTime()))
            throw errors_1.errors.invalid('body', 'expires_at', '`expires_at` must be an ISO 8601 date-time.');
        if (expiresAt.getTime() <= Date.now()) {
            throw errors_1.errors.invalid('body', 'expires_at', `\`expires_at\` must be in the future; got "${input.expiresAt}".`);
        }
    }
    return db.transaction((trx) => (0, create_api_key_1.createApiKey)(trx, {
        name: input.name,
        workspaceIds,
        scopes,
        expiresAt,
        style: input.style ?? 'A',
        rateLimitPerMinute: input.rateLimitPerMinute ?? null,
    }));
}
/**
 * Revokes a key on behalf of `revoker` (CONTRACT section 3, revocation rule): sets `revoked_at` (kept
 * when already set). A key may revoke itself, or a key whose workspaces and scopes are a subset of
 * its own, so a key of one workspace never cuts off a key that also opens others. The revoked key is
 * refused with 401 api_key_expired from its next request on, on every instance (authentication
 * reads the key on each request; there is no cache to invalidate).
 * @throws AppError resource_not_found when no key with this id has access to the workspace;
 * workspace_access_denied when the key opens a workspace the revoker lacks; insufficient_scope
 * naming a scope the key has and the revoker lacks.
 * Spec: DELETE {ws}/api-keys/{key_id}.
 */
async function revokeApiKey(db, revoker, workspaceId, keyId) {
    const target = await (0, api_keys_service_1.findApiKeyById)(db, keyId);
    if (!target || !target.workspaceIds.includes(workspaceId))
        throw errors_1.errors.notFound('API key', keyId);
    if (target.id !== revoker.id) {
        if (target.workspaceIds.some((w) => !revoker.workspaceIds.includes(w)))
            throw errors_1.errors.workspaceAccessDenied();
        const missing = target.scopes.find((s) => !revoker.scopes.includes(s));
        if (missing !== undefined)
            throw errors_1.errors.insufficientScope(missing);
    }
    const n = await (0, db_1.affectedRows)(db('api_keys').where('id', keyId).update({ revoked_at: db.raw('COALESCE(revoked_at, now())') }));
    if (n === 0)
        throw errors_1.errors.notFound('API key', keyId);
}
//# sourceMappingURL=api-keys.write.js.map