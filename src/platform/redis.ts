/**
 * The shared ioredis client (rate limits, idempotency). Commands fail fast instead of queueing while
 * Redis is down, so callers fall back to in-process stores at once (CONTRACT section 4).
 */
import Redis from 'ioredis';
import type { Logger } from './logger';

export function createRedis(url: string, logger: Logger): Redis {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    retryStrategy: (times) => Math.min(times * 200, 2000),
  });
  let lastLog = 0;
  redis.on('error', (err) => {
    if (Date.now() - lastLog > 10_000) {
      lastLog = Date.now();
      logger.warn({ err: err.message }, 'Redis error; falling back to in-process stores until it is back');
    }
  });
  return redis;
}
