"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.createRateLimiter = createRateLimiter;
exports.applyDecision = applyDecision;
exports.consumeSubmissionBudget = consumeSubmissionBudget;
const rate_limiter_flexible_1 = require("rate-limiter-flexible");
const errors_1 = require("../core/errors");
const WINDOW_SECONDS = 60;
function createRateLimiter(opts) {
    const limiters = new Map();
    const limiterFor = (bucket, points) => {
        const id = `${bucket}:${points}`;
        let limiter = limiters.get(id);
        if (!limiter) {
            const keyPrefix = `${opts.prefix ?? 'fs'}:rl:${bucket}`;
            const memory = new rate_limiter_flexible_1.RateLimiterMemory({ points, duration: WINDOW_SECONDS, keyPrefix });
            limiter = opts.redis
                ? new rate_limiter_flexible_1.RateLimiterRedis({
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
    const decision = (r, points, refused) => {
        const msLeft = Math.max(0, r.msBeforeNext);
        const d = {
            limit: points,
            remaining: Math.max(0, r.remainingPoints),
            reset: Math.ceil((Date.now() + msLeft) / 1000),
        };
        if (refused)
            d.retryAfter = Math.max(1, Math.ceil(msLeft / 1000));
        return d;
    };
    return {
        async consume(bucket, subject, points) {
            // A Redis outage is logged once by platform/redis.ts, not here per request.
            try {
                return decision(await limiterFor(bucket, points).consume(subject, 1), points, false);
            }
            catch (e) {
                if (e instanceof rate_limiter_flexible_1.RateLimiterRes)
                    return decision(e, points, true);
                throw e;
            }
        },
    };
}
/** Writes the X-RateLimit-* headers (and Retry-After when refused); throws 429 when refused. */
function applyDecision(res, d) {
    res.setHeader('X-RateLimit-Limit', String(d.limit));
    res.setHeader('X-RateLimit-Remaining', String(d.remaining));
    res.setHeader('X-RateLimit-Reset', String(d.reset));
    if (d.retryAfter !== undefined)
        throw errors_1.errors.rateLimited(d.retryAfter);
}
/**
 * Counts one public submission (page POST or public JSON; CONTRACT section 11) against the budget of
 * `perMinute` (config.submissionsPerMinute) per client address and form, shared by both ways. Writes
 * the X-RateLimit-* headers.
 * @param clientAddress `req.ip`: the socket's address unless TRUST_PROXY lets X-Forwarded-For speak.
 * @throws AppError rate_limit_exceeded (429, with Retry-After) past the budget.
 */
async function consumeSubmissionBudget(limiter, res, clientAddress, formId, perMinute) {
    // JSON keeps the two parts apart whatever characters an address or a form id holds.
    applyDecision(res, await limiter.consume('submission', JSON.stringify([clientAddress ?? 'unknown', formId]), perMinute));
}
//# sourceMappingURL=rate-limit.js.map