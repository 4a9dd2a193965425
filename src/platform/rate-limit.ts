/**
 * Rate limits (API document "Limits"; docs/writes-keys-limits.md, "Rate limits") with rate-limiter-flexible: a fixed 60 s
 * window per API key (the key's own limit or RATE_LIMIT_PER_MINUTE), and per client address for
 * requests with a missing or unknown key. Counters live in Redis when it is configured, so every
 * instance shares one budget; if Redis fails, an in-process insurance limiter answers (logged) and
 * the API keeps working. Without Redis the in-process limiter is the store (one instance only). A new
 * Redis client is waited for (redisStarted) so that the budget is Redis's from the first request.
 */
import type { Response } from 'express';
import type { RedisClient } from './redis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { errors } from '../core/errors';
import type { Logger } from './logger';
import { redisStarted } from './redis';

const WINDOW_SECONDS = 60;

export interface RateLimitDecision {
  limit: number;
  remaining: number;
  /** Unix seconds when the window resets. */
  reset: number;
  /** Seconds to wait; set only when the request is refused. */
  retryAfter?: number;
}

export interface RateLimiter {
  /** Counts one request of `subject` against a budget of `points` per minute. */
  consume(bucket: 'key' | 'address' | 'submission', subject: string, points: number): Promise<RateLimitDecision>;
}

export function createRateLimiter(opts: { redis?: RedisClient | undefined; logger: Logger; prefix?: string }): RateLimiter {
  const limiters = new Map<string, RateLimiterAbstract>();
  const limiterFor = (bucket: string, points: number): RateLimiterAbstract => {
    const id = `${bucket}:${points}`;
    let limiter = limiters.get(id);
    if (!limiter) {
      const keyPrefix = `${opts.prefix ?? 'fs'}:rl:${bucket}`;
      const memory = new RateLimiterMemory({ points, duration: WINDOW_SECONDS, keyPrefix });
      limiter = opts.redis
        ? new RateLimiterRedis({
            storeClient: opts.redis,
            points,
            duration: WINDOW_SECONDS,
            keyPrefix,
            rejectIfRedisNotReady: true,
            insuranceLimiter: memory,
          })
        : memory;
      limiters.set(id, limiter);
    }
    return limiter;
  };
  const decision = (r: RateLimiterRes, points: number, refused: boolean): RateLimitDecision => {
    const msLeft = Math.max(0, r.msBeforeNext);
    const d: RateLimitDecision = {
      limit: points,
      remaining: Math.max(0, r.remainingPoints),
      reset: Math.ceil((Date.now() + msLeft) / 1000),
    };
    if (refused) d.retryAfter = Math.max(1, Math.ceil(msLeft / 1000));
    return d;
  };
  return {
    async consume(bucket, subject, points) {
      // A Redis outage is logged once by platform/redis.ts, not here per request.
      if (opts.redis) await redisStarted(opts.redis);
      try {
        return decision(await limiterFor(bucket, points).consume(subject, 1), points, false);
      } catch (e) {
        if (e instanceof RateLimiterRes) return decision(e, points, true);
        throw e;
      }
    },
  };
}

/** Writes the X-RateLimit-* headers (and Retry-After when refused); throws 429 when refused. */
export function applyDecision(res: Response, d: RateLimitDecision): void {
  res.setHeader('X-RateLimit-Limit', String(d.limit));
  res.setHeader('X-RateLimit-Remaining', String(d.remaining));
  res.setHeader('X-RateLimit-Reset', String(d.reset));
  if (d.retryAfter !== undefined) throw errors.rateLimited(d.retryAfter);
}

/**
 * Counts one public submission (page POST or public JSON; docs/collecting.md, "Public JSON") against the budget of
 * `perMinute` (config.submissionsPerMinute) per client address and form, shared by both ways. Writes
 * the X-RateLimit-* headers.
 * @param clientAddress `req.ip`: the socket's address unless TRUST_PROXY lets X-Forwarded-For speak.
 * @throws AppError rate_limit_exceeded (429, with Retry-After) past the budget.
 */
export async function consumeSubmissionBudget(
  limiter: RateLimiter,
  res: Response,
  clientAddress: string | undefined,
  formId: string,
  perMinute: number,
): Promise<void> {
  // JSON keeps the two parts apart whatever characters an address or a form id holds.
  applyDecision(res, await limiter.consume('submission', JSON.stringify([clientAddress ?? 'unknown', formId]), perMinute));
}

/**
 * Counts one request of the public budget per client address (`AUTH_FAILURES_PER_MINUTE`, shared with requests
 * without a key): the documentation, `/openapi.json` and the dashboard pages (docs/analytics.md, "Dashboard links").
 * Writes the X-RateLimit-* headers.
 * @throws AppError rate_limit_exceeded (429, with Retry-After) past the budget.
 */
export async function consumePublicBudget(limiter: RateLimiter, res: Response, clientAddress: string | undefined, perMinute: number): Promise<void> {
  applyDecision(res, await limiter.consume('address', `public:${clientAddress ?? 'unknown'}`, perMinute));
}
