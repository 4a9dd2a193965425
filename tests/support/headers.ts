/**
 * Exact checks of the headers every answer carries, so tests pin their values instead of only their
 * presence.
 */
import { parseList, type Item } from 'structured-headers';
import type { Response } from 'supertest';

/** A structured-field list of exactly one item, as the RateLimit fields of this service are. */
function oneItem(field: unknown): Item {
  expect(typeof field).toBe('string');
  const list = parseList(field as string);
  expect(list).toHaveLength(1);
  const item = list[0]!;
  expect(Array.isArray(item[0])).toBe(false);
  return item as Item;
}

/**
 * Parses `RateLimit-Policy` and `RateLimit` (draft-ietf-httpapi-ratelimit-headers-11, structured fields) with a
 * structured-field parser and asserts they say what the X-RateLimit-* headers say: one policy named `policy`, `q` the
 * limit, `w` 60; the same name in `RateLimit`, `r` the remaining, `t` the seconds from the count to X-RateLimit-Reset.
 */
export function expectIetfRateLimitHeaders(headers: Record<string, unknown>, policy = 'key'): void {
  const [name, params] = oneItem(headers['ratelimit-policy']);
  expect(name).toBe(policy);
  expect(Object.fromEntries(params)).toEqual({ q: Number(headers['x-ratelimit-limit']), w: 60 });
  const [limitName, limitParams] = oneItem(headers['ratelimit']);
  expect(limitName).toBe(policy);
  expect([...limitParams.keys()]).toEqual(['r', 't']);
  expect(limitParams.get('r')).toBe(Number(headers['x-ratelimit-remaining']));
  const t = limitParams.get('t') as number;
  expect(Number.isInteger(t)).toBe(true);
  expect(t).toBeGreaterThanOrEqual(0);
  expect(t).toBeLessThanOrEqual(60);
  // Both are whole seconds rounded up from one count: X-RateLimit-Reset minus t is the server's clock when it counted,
  // within a second. That was before now, and not long before (a busy test machine can take seconds to answer).
  const countedAt = Number(headers['x-ratelimit-reset']) - t;
  const now = Date.now() / 1000;
  expect(countedAt).toBeLessThanOrEqual(Math.ceil(now) + 1);
  expect(countedAt).toBeGreaterThanOrEqual(Math.floor(now) - 15);
}

/**
 * Asserts the rate-limit headers of docs/writes-keys-limits.md, "Rate limits": `X-RateLimit-Limit` is
 * `limit`, `X-RateLimit-Remaining` a whole number below it (this request is counted), and
 * `X-RateLimit-Reset` Unix seconds when the 60 s window ends (so within the next minute); `RateLimit-Policy` and
 * `RateLimit` say the same of the budget `policy` (expectIetfRateLimitHeaders).
 * @returns the remaining budget, to check that it decreases across requests.
 */
export function expectRateLimitHeaders(res: Response, limit: number, policy: 'key' | 'address' | 'submission' = 'key'): number {
  expect(res.headers['x-ratelimit-limit']).toBe(String(limit));
  expect(res.headers['x-ratelimit-remaining']).toMatch(/^\d+$/);
  const remaining = Number(res.headers['x-ratelimit-remaining']);
  expect(remaining).toBeLessThan(limit);
  expect(res.headers['x-ratelimit-reset']).toMatch(/^\d+$/);
  const now = Date.now() / 1000;
  expect(Number(res.headers['x-ratelimit-reset'])).toBeGreaterThanOrEqual(Math.floor(now));
  expect(Number(res.headers['x-ratelimit-reset'])).toBeLessThanOrEqual(Math.ceil(now) + 60);
  expectIetfRateLimitHeaders(res.headers, policy);
  return remaining;
}

/** Asserts `X-Request-Id` is a `req_` id equal to the body's `request_id` (docs/api-rules.md, "Errors"). */
export function expectRequestId(res: Response): void {
  expect(res.headers['x-request-id']).toMatch(/^req_[A-Za-z0-9_-]+$/);
  expect(res.body.request_id).toBe(res.headers['x-request-id']);
}
