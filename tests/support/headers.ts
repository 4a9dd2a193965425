/**
 * Exact checks of the headers every answer carries, so tests pin their values instead of only their
 * presence.
 */
import type { Response } from 'supertest';

/**
 * Asserts the rate-limit headers of docs/writes-keys-limits.md, "Rate limits": `X-RateLimit-Limit` is
 * `limit`, `X-RateLimit-Remaining` a whole number below it (this request is counted), and
 * `X-RateLimit-Reset` Unix seconds when the 60 s window ends (so within the next minute).
 * @returns the remaining budget, to check that it decreases across requests.
 */
export function expectRateLimitHeaders(res: Response, limit: number): number {
  expect(res.headers['x-ratelimit-limit']).toBe(String(limit));
  expect(res.headers['x-ratelimit-remaining']).toMatch(/^\d+$/);
  const remaining = Number(res.headers['x-ratelimit-remaining']);
  expect(remaining).toBeLessThan(limit);
  expect(res.headers['x-ratelimit-reset']).toMatch(/^\d+$/);
  const now = Date.now() / 1000;
  expect(Number(res.headers['x-ratelimit-reset'])).toBeGreaterThanOrEqual(Math.floor(now));
  expect(Number(res.headers['x-ratelimit-reset'])).toBeLessThanOrEqual(Math.ceil(now) + 60);
  return remaining;
}

/** Asserts `X-Request-Id` is a `req_` id equal to the body's `request_id` (docs/api-rules.md, "Errors"). */
export function expectRequestId(res: Response): void {
  expect(res.headers['x-request-id']).toMatch(/^req_[A-Za-z0-9_-]+$/);
  expect(res.body.request_id).toBe(res.headers['x-request-id']);
}
