"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.apiKeyAuth = apiKeyAuth;
const api_keys_service_1 = require("../../core/api-keys/api-keys.service");
const secrets_1 = require("../../core/api-keys/secrets");
const errors_1 = require("../../core/errors");
const rate_limit_1 = require("../rate-limit");
function apiKeyAuth(opts) {
    const lastTouched = new Map();
    return async (req, res, next) => {
        const secret = req.get('X-API-Key');
        const key = secret && secret.startsWith(secrets_1.API_KEY_PREFIX) ? await opts.keys.find(secret) : undefined;
        if (!key || (0, api_keys_service_1.isKeyInactive)(key)) {
            const d = await opts.limiter.consume('address', req.ip ?? 'unknown', opts.authFailuresPerMinute);
            if (key) {
                (0, rate_limit_1.applyDecision)(res, { ...d, retryAfter: undefined });
                throw errors_1.errors.apiKeyExpired();
            }
            (0, rate_limit_1.applyDecision)(res, d);
            throw errors_1.errors.invalidApiKey();
        }
        req.auth = key;
        const now = Date.now();
        if ((lastTouched.get(key.id) ?? 0) < now - 60_000) {
            lastTouched.set(key.id, now);
            (0, api_keys_service_1.touchLastUsed)(opts.db, key.id).catch((err) => opts.logger.warn({ err }, 'could not record last_used_at'));
        }
        (0, rate_limit_1.applyDecision)(res, await opts.limiter.consume('key', key.id, key.rateLimitPerMinute ?? opts.rateLimitPerMinute));
        next();
    };
}
//# sourceMappingURL=api-key-auth.js.map