/**
 * API key secrets (docs/api-rules.md, "Keys and access"): `fa_` + 40 URL-safe random characters (240 bits).
 * Only the SHA-256 hex digest is stored; the display prefix is the secret's first 8 characters.
 * Webhook signing secrets are `whsec_` + standard padded base64 of 32 random bytes (docs/webhooks.md, "Verifying a signature"),
 * the format Standard Webhooks libraries expect.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { nanoid } from 'nanoid';

export const API_KEY_PREFIX = 'fa_';

export function generateApiKeySecret(): string {
  return API_KEY_PREFIX + nanoid(40);
}

/** `whsec_` + base64 (with padding) of 32 random bytes: the HMAC-SHA256 key is the decoded bytes. */
export function generateWebhookSecret(): string {
  return 'whsec_' + randomBytes(32).toString('base64');
}

/** SHA-256 hex of the secret: enough for a random 240-bit secret (no salt or slow hash needed). */
export function hashApiKeySecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Display prefix shown in key lists, e.g. `fa_x9Ab2`. */
export function secretDisplayPrefix(secret: string): string {
  return secret.slice(0, 8);
}

/** Constant-time comparison of two hex digests of equal length. */
export function digestsEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}
