"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.API_KEY_PREFIX = void 0;
exports.generateApiKeySecret = generateApiKeySecret;
exports.generateWebhookSecret = generateWebhookSecret;
exports.hashApiKeySecret = hashApiKeySecret;
exports.secretDisplayPrefix = secretDisplayPrefix;
exports.digestsEqual = digestsEqual;
/**
 * API key secrets (CONTRACT section 3): `fa_` + 40 URL-safe random characters (240 bits).
 * Only the SHA-256 hex digest is stored; the display prefix is the secret's first 8 characters.
 * Webhook signing secrets are `whsec_` + standard padded base64 of 32 random bytes (CONTRACT section 13),
 * the format Standard Webhooks libraries expect.
 */
const node_crypto_1 = require("node:crypto");
const nanoid_1 = require("nanoid");
exports.API_KEY_PREFIX = 'fa_';
function generateApiKeySecret() {
    return exports.API_KEY_PREFIX + (0, nanoid_1.nanoid)(40);
}
/** `whsec_` + base64 (with padding) of 32 random bytes: the HMAC-SHA256 key is the decoded bytes. */
function generateWebhookSecret() {
    return 'whsec_' + (0, node_crypto_1.randomBytes)(32).toString('base64');
}
/** SHA-256 hex of the secret: enough for a random 240-bit secret (no salt or slow hash needed). */
function hashApiKeySecret(secret) {
    return (0, node_crypto_1.createHash)('sha256').update(secret, 'utf8').digest('hex');
}
/** Display prefix shown in key lists, e.g. `fa_x9Ab2`. */
function secretDisplayPrefix(secret) {
    return secret.slice(0, 8);
}
/** Constant-time comparison of two hex digests of equal length. */
function digestsEqual(a, b) {
    const x = Buffer.from(a, 'hex');
    const y = Buffer.from(b, 'hex');
    return x.length === y.length && (0, node_crypto_1.timingSafeEqual)(x, y);
}
//# sourceMappingURL=secrets.js.map