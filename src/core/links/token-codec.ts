/**
 * The one signed-token codec of the service's links (docs/collecting.md, "Email links"; docs/analytics.md,
 * "Dashboard links"): `base64url(JSON claims) "." base64url(HMAC-SHA256(secret, claims part))`, signed with
 * the database-kept secret of server-secrets.store.ts. Each kind of link validates its own claims after `openToken`.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

function sign(secret: Buffer, payload: string): Buffer {
  return createHmac('sha256', secret).update(payload).digest();
}

/** Seals `claims` (any JSON object) into a token. */
export function sealToken(secret: Buffer, claims: object): string {
  const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
  return `${payload}.${sign(secret, payload).toString('base64url')}`;
}

/**
 * The parsed claims of a well-signed token, or undefined for anything else (no detail: a forger learns nothing).
 * The caller checks the claims' shape.
 */
export function openToken(secret: Buffer, token: string): Record<string, unknown> | undefined {
  if (typeof token !== 'string' || token.length > 4096) return undefined;
  const dot = token.indexOf('.');
  if (dot <= 0 || dot !== token.lastIndexOf('.')) return undefined;
  const payload = token.slice(0, dot);
  // Compared as text: decoding first would accept other spellings of the same bytes (the last character's
  // unused low bits, stray characters), so a changed token could still open.
  const given = Buffer.from(token.slice(dot + 1));
  const expected = Buffer.from(sign(secret, payload).toString('base64url'));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
