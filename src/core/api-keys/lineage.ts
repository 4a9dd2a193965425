/**
 * Key lineage (docs/writes-keys-limits.md, "Key lineage"): what a key makes (a key, a dashboard link) never
 * outgrows nor outlives it. The checks at creation live here; the database keeps the expiry and revocation
 * rules afterwards (migration 011's triggers: a revoke or a shorter expiry of a key reaches everything below it).
 */
import { errors } from '../errors';

/** The part of a key that bounds what it makes. */
export interface Creator {
  id: string;
  /** null: the key never expires. */
  expiresAt: Date | null;
}

const iso = (d: Date) => d.toISOString();

/**
 * Checks that an expiry asked for something `creator` makes is not later than the creator's own.
 * @param asked the asked expiry; null means "never expires".
 * @param field the body field's name in the caller's style (`expires_at`, `expiresAt`) for the 400.
 * @returns `asked` unchanged.
 * @throws AppError validation_error naming `field` when the creator expires and `asked` is null or later.
 */
export function expiryWithinCreator(asked: Date | null, creator: Creator, field: string): Date | null {
  const cap = creator.expiresAt;
  if (cap === null) return asked;
  if (asked === null) {
    throw errors.invalid('body', field, `\`${field}\` must not be later than the creating key's expiry (${iso(cap)}); null means never.`);
  }
  if (asked.getTime() > cap.getTime()) {
    throw errors.invalid('body', field, `\`${field}\` must not be later than the creating key's expiry (${iso(cap)}); got "${iso(asked)}".`);
  }
  return asked;
}

/**
 * Checks that a rate limit asked for a new key is not above the creator's (its own, else the service default).
 * @param creatorLimit the creator's `rate_limit_per_minute`, null for the service default `serviceDefault`.
 * @throws AppError validation_error naming `rate_limit_per_minute` when `asked` is higher.
 */
export function rateLimitWithinCreator(asked: number, creatorLimit: number | null, serviceDefault: number): number {
  const cap = creatorLimit ?? serviceDefault;
  if (asked > cap) {
    throw errors.invalid('body', 'rate_limit_per_minute', `\`rate_limit_per_minute\` must be at most the creating key's limit, ${cap}; got ${asked}.`);
  }
  return asked;
}
