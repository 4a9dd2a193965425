"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.REDIS_COMMAND_TIMEOUT_MS = void 0;
exports.createRedis = createRedis;
/**
 * The shared ioredis client (rate limits, idempotency). Commands fail fast instead of queueing while
 * Redis is down, and time out after 500 ms when it hangs, so callers fall back to in-process stores at
 * once and API requests still answer within 2 s (CONTRACT sections 4 and 14).
 *
 * An outage is logged once at `warn` when it starts and once at `info` when Redis is back, not per
 * request: a refused or lost connection is seen through the client's events, a Redis that accepts
 * connections but stops answering through a ping every 2 s (then the client reconnects, and fails
 * commands at once until Redis answers again).
 */
const ioredis_1 = __importDefault(require("ioredis"));
/** A command that gets no answer within this many milliseconds fails (and the caller falls back). */
exports.REDIS_COMMAND_TIMEOUT_MS = 500;
const PING_INTERVAL_MS = 2_000;
function createRedis(url, logger) {
    const redis = new ioredis_1.default(url, {
        enableOfflineQueue: false,
        maxRetriesPerRequest: 1,
        connectTimeout: 2000,
        commandTimeout: exports.REDIS_COMMAND_TIMEOUT_MS,
        retryStrategy: (times) => Math.min(times * 200, 2000),
        // Commands of concurrent requests (rate-limit counts, idempotency records) leave in one write.
        enableAutoPipelining: true,
    });
    let down = false;
    let closing = false;
    const outage = (reason) => {
        if (down || closing)
            return;
        down = true;
        logger.warn({ reason }, 'Redis unavailable: rate limits and idempotency keys fall back to in-process stores on this instance until it is back');
    };
    const recovered = () => {
        if (!down)
            return;
        down = false;
        logger.info('Redis is back: rate limits and idempotency keys are shared again');
    };
    redis.on('error', (err) => outage(err.message));
    redis.on('close', () => outage('connection closed'));
    redis.on('ready', recovered);
    const ping = setInterval(() => {
        if (redis.status !== 'ready')
            return;
        redis.ping().then(recovered, (err) => {
            outage(err.message);
            // A hanging Redis: reconnect, so that until it answers again the client is not ready and every
            // command fails at once (no offline queue) instead of waiting 500 ms per command.
            if (!closing)
                redis.disconnect(true);
        });
    }, PING_INTERVAL_MS);
    ping.unref();
    redis.on('end', () => clearInterval(ping));
    // quit() or disconnect() on shutdown is not an outage (ioredis itself calls disconnect(true) to reconnect).
    for (const method of ['quit', 'disconnect']) {
        const original = redis[method].bind(redis);
        redis[method] = (...args) => {
            if (!(method === 'disconnect' && args[0] === true)) {
                closing = true;
                clearInterval(ping);
            }
            return original(...args);
        };
    }
    return redis;
}
//# sourceMappingURL=redis.js.map