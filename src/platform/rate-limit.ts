/**
 * Rate limits (API document "Limits"; docs/writes-keys-limits.md, "Rate limits") with rate-limiter-flexible: a fixed 60 s
 * window per API key (the key's own limit or RATE_LIMIT_PER_MINUTE), and per client address for
 * requests with a missing or unknown key. Counters live in Redis when it is configured, so every
 * instance shares one budget; if Redis fails, an in-process insurance limiter answers (logged) and
 * the API keeps working. Without Redis the in-process limiter is the store (one instance only). A new
 * Redis client is waited for (redisStarted) so that the budget is Redis's from the first request.
 *
 * Every counted answer says where its budget stands twice: `X-RateLimit-Limit/-Remaining/-Reset` (kept, the API
 * document names them) and the IETF fields of draft-ietf-httpapi-ratelimit-headers-11 (structured fields, RFC 9651):
 * `RateLimit-Policy: "key";q=60;w=60` (the policy: its name is the bucket, `q` the requests per window, `w` the window
 * in seconds) and `RateLimit: "key";r=59;t=42` (`r` the requests left, as X-RateLimit-Remaining; `t` the seconds until
 * the window resets, as X-RateLimit-Reset minus now). The policy text is made once per budget, the service-limit text
 * once per request, from the same decision as the X- ones (docs/writes-keys-limits.md, "Rate limits").
 */
import type { Request, Response } from 'express';
import { beforeEnd } from './answer-hooks';
import type { RedisClient } from './redis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { errors } from '../core/errors';
import type { Logger } from './logger';
import { redisStarted } from './redis';

const WINDOW_SECONDS = 60;

/** The budgets: per API key, per client address (no or an unknown key, the public pages), per address and form (submissions). */
export type RateLimitBucket = 'key' | 'address' | 'submission';

export interface RateLimitDecision {
  limit: number;
  remaining: number;
  /** Unix seconds when the window resets. */
  reset: number;
  /** Seconds until the window resets (the `t` of the `RateLimit` field), 0..60. */
  resetIn: number;
  /** The `RateLimit-Policy` field of this budget (`"key";q=60;w=60`), made once per budget. */
  policy: string;
  /** The policy's name as a structured-field string (`"key"`), the item of the `RateLimit` field. */
  policyName: string;
  /** Seconds to wait; set only when the request is refused. */
  retryAfter?: number;
}

export interface RateLimiter {
  /** Counts one request of `subject` against a budget of `points` per minute. */
  consume(bucket: RateLimitBucket, subject: string, points: number): Promise<RateLimitDecision>;
  /** Where `subject`'s budget stands, counting nothing (the headers of a 304: docs/api-rules.md, "Conditional requests"). */
  peek(bucket: RateLimitBucket, subject: string, points: number): Promise<RateLimitDecision>;
}

/** A budget's store and its `RateLimit-Policy` text, made together once. */
interface Budget {
  limiter: RateLimiterAbstract;
  policy: string;
  policyName: string;
}

export function createRateLimiter(opts: { redis?: RedisClient | undefined; logger: Logger; prefix?: string }): RateLimiter {
  const budgets = new Map<string, Budget>();
  const budgetFor = (bucket: RateLimitBucket, points: number): Budget => {
    const id = `${bucket}:${points}`;
    let budget = budgets.get(id);
    if (!budget) {
      const keyPrefix = `${opts.prefix ?? 'fs'}:rl:${bucket}`;
      const memory = new RateLimiterMemory({ points, duration: WINDOW_SECONDS, keyPrefix });
      const limiter = opts.redis
        ? new RateLimiterRedis({
            storeClient: opts.redis,
            points,
            duration: WINDOW_SECONDS,
            keyPrefix,
            rejectIfRedisNotReady: true,
            insuranceLimiter: memory,
          })
        : memory;
      const policyName = `"${bucket}"`;
      budget = { limiter, policyName, policy: `${policyName};q=${points};w=${WINDOW_SECONDS}` };
      budgets.set(id, budget);
    }
    return budget;
  };
  const decision = (r: RateLimiterRes, points: number, budget: Budget, refused: boolean): RateLimitDecision => {
    const msLeft = Math.max(0, r.msBeforeNext);
    const d: RateLimitDecision = {
      limit: points,
      remaining: Math.max(0, r.remainingPoints),
      reset: Math.ceil((Date.now() + msLeft) / 1000),
      // Whole seconds, rounded up as X-RateLimit-Reset is: the same instant within a second, never above the window.
      resetIn: Math.ceil(msLeft / 1000),
      policy: budget.policy,
      policyName: budget.policyName,
    };
    if (refused) d.retryAfter = Math.max(1, Math.ceil(msLeft / 1000));
    return d;
  };
  return {
    async consume(bucket, subject, points) {
      // A Redis outage is logged once by platform/redis.ts, not here per request.
      if (opts.redis) await redisStarted(opts.redis);
      const budget = budgetFor(bucket, points);
      try {
        return decision(await budget.limiter.consume(subject, 1), points, budget, false);
      } catch (e) {
        if (e instanceof RateLimiterRes) return decision(e, points, budget, true);
        throw e;
      }
    },
    async peek(bucket, subject, points) {
      if (opts.redis) await redisStarted(opts.redis);
      const budget = budgetFor(bucket, points);
      // No record yet: the whole budget, a full window ahead.
      const r = (await budget.limiter.get(subject)) ?? new RateLimiterRes(points, WINDOW_SECONDS * 1000, 0);
      return decision(r, points, budget, false);
    },
  };
}

/** A conditional GET's key budget, left uncounted until the request is known to be a 304 or not (settleKeyBudget). */
export interface DeferredBudget {
  limiter: RateLimiter;
  keyId: string;
  points: number;
}

/**
 * Leaves a conditional GET's key budget uncounted (apiKeyAuth): conditionalGet settles it once it knows whether the
 * answer is a 304 (not counted, as GitHub does). An answer that ends before it is settled (an error of the checks
 * between them) is counted then, so no request escapes the budget; its headers are set if still possible.
 */
export function deferKeyBudget(req: Request, res: Response, budget: DeferredBudget): void {
  req.context.deferredBudget = budget;
  beforeEnd(res, async () => {
    if (!req.context.deferredBudget) return;
    req.context.deferredBudget = undefined;
    const d = await budget.limiter.consume('key', budget.keyId, budget.points);
    if (!res.headersSent) applyDecision(res, { ...d, retryAfter: undefined });
  });
}

/**
 * Settles a deferred key budget (no-op when none): a 304 (`notModified`) only reads where the budget stands for the
 * headers; any other answer counts, as every request does.
 * @throws AppError rate_limit_exceeded (429) past the budget, when the answer is not a 304.
 */
export async function settleKeyBudget(req: Request, res: Response, notModified: boolean): Promise<void> {
  const budget = req.context.deferredBudget;
  if (!budget) return;
  req.context.deferredBudget = undefined;
  const { limiter, keyId, points } = budget;
  applyDecision(res, await (notModified ? limiter.peek('key', keyId, points) : limiter.consume('key', keyId, points)));
}

/**
 * Writes the X-RateLimit-* headers and the draft's `RateLimit-Policy` and `RateLimit` (and Retry-After when refused);
 * throws 429 when refused.
 */
export function applyDecision(res: Response, d: RateLimitDecision): void {
  res.setHeader('X-RateLimit-Limit', String(d.limit));
  res.setHeader('X-RateLimit-Remaining', String(d.remaining));
  res.setHeader('X-RateLimit-Reset', String(d.reset));
  res.setHeader('RateLimit-Policy', d.policy);
  res.setHeader('RateLimit', `${d.policyName};r=${d.remaining};t=${d.resetIn}`);
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
