/**
 * The shared ioredis client (rate limits, idempotency). Commands fail fast instead of queueing while
 * Redis is down, and time out after 500 ms when it hangs, so callers fall back to in-process stores at
 * once and API requests still answer within 2 s (docs/writes-keys-limits.md, "Rate limits"; docs/operations.md, "Outages").
 *
 * An outage is logged once at `warn` when it starts and once at `info` when Redis is back, not per
 * request: a refused or lost connection is seen through the client's events, a Redis that accepts
 * connections but stops answering through a ping every 2 s (then the client reconnects, and fails
 * commands at once until Redis answers again).
 *
 * At start, the rate limits and idempotency keys wait for the first connection (redisStarted, at most
 * REDIS_STARTUP_TIMEOUT_MS), so they are in Redis from the first request (docs/operations.md, "Redis at start").
 *
 * With a Redis Cluster the client is an ioredis Cluster (docs/operations.md, "Redis Cluster"): every
 * command the service sends names one key, so no command spans two hash slots and keys need no hash
 * tag. There a lost master is seen through the node's errors, and the outage is over when a check every
 * 2 s finds every master serving slots reachable (clusterWhole), not when one connection is back.
 */
import Redis, { Cluster, type RedisOptions } from 'ioredis';
import { redisTarget } from '../config';
import type { Logger } from './logger';

/** A command that gets no answer within this many milliseconds fails (and the caller falls back). */
export const REDIS_COMMAND_TIMEOUT_MS = 500;
const PING_INTERVAL_MS = 2_000;
/**
 * A client (one server or a Sentinel set) that has not been ready for this long is told to reconnect from scratch:
 * once in a busy CI run an instance's client, reconnecting through the sentinels during a failover, never became
 * ready again while its twin did (docs/operations.md, "Redis with failover (Sentinel)").
 */
const STUCK_RECONNECT_MS = 10_000;
/**
 * How long requests wait for the first Redis connection of a new client before the in-process fallback
 * answers them: short enough that they still answer within 2 s. Counted in event-loop time (see startup).
 */
export const REDIS_STARTUP_TIMEOUT_MS = 1_500;
const STARTUP_TICK_MS = 50;
const startups = new WeakMap<RedisClient, Promise<void>>();

/** The shared client: one server or Sentinel set (Redis), or a Redis Cluster (Cluster). */
export type RedisClient = Redis | Cluster;

/**
 * Resolves once `redis` is first ready, ended, or `ms` has passed. Counted in ticks of an interval, not
 * by one timer: start-up work that blocks the event loop (the validator reads the document right after
 * the app is built) would otherwise use the whole wait up before Redis's answer could even be read.
 */
function startup(redis: RedisClient, ms: number): Promise<void> {
  return new Promise((resolve) => {
    let ticksLeft = Math.ceil(ms / STARTUP_TICK_MS);
    const done = () => {
      clearInterval(tick);
      redis.off('ready', done);
      redis.off('end', done);
      resolve();
    };
    const tick = setInterval(() => {
      if (--ticksLeft <= 0) done();
    }, STARTUP_TICK_MS);
    tick.unref();
    redis.once('ready', done);
    redis.once('end', done);
  });
}

/**
 * Resolves once a client of createRedis has been ready for the first time, or REDIS_STARTUP_TIMEOUT_MS
 * after it was created (then the caller's commands fail at once and it falls back, the outage being
 * logged once); at once for other clients. Never rejects. Callers await it before their first command
 * of each request.
 */
export function redisStarted(redis: RedisClient): Promise<void> {
  return startups.get(redis) ?? Promise.resolve();
}

/**
 * Resolves when every master of the cluster answers and the client knows them all: `CLUSTER INFO` says
 * `cluster_state:ok`, as many masters serve slots as the client holds connections to masters (a killed
 * master drops out of the client's pool before the cluster has promoted its replica), and each answers
 * `PING`. Rejects with what is missing otherwise.
 */
async function clusterWhole(cluster: Cluster): Promise<void> {
  const info = String(await cluster.cluster('INFO'));
  const size = Number(/cluster_size:(\d+)/.exec(info)?.[1]);
  const masters = cluster.nodes('master');
  if (!info.includes('cluster_state:ok')) throw new Error('cluster state is not ok');
  if (masters.length !== size) throw new Error(`${size} masters serve slots, ${masters.length} are reachable`);
  await Promise.all(masters.map((m) => m.ping()));
}

/** The ioredis client REDIS_URL names (config.ts redisTarget): one server, a Sentinel set or a Cluster. */
function clientFor(url: string): RedisClient {
  const options: RedisOptions = {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    retryStrategy: (times) => Math.min(times * 200, 2000),
    // No auto-pipelining: with rate-limiter-flexible's script command it can throw outside any caller
    // (`results[i] is not iterable` in ioredis' autoPipelining.js, redis/ioredis#1931), which ends the process.
    // Seen twice under the bench's load; docs/decisions.md, "The hot path (issue 11)".
    enableAutoPipelining: false,
  };
  const target = redisTarget(url);
  return target.kind === 'url'
    ? new Redis(url, options)
    : target.kind === 'sentinel'
      ? new Redis({
          ...options,
          sentinels: target.sentinels.map((s) => ({ ...s })),
          name: target.name,
          db: target.db,
          username: target.username,
          password: target.password,
          // While no sentinel answers, ask again after 100 ms, 200 ms, ... at most 1 s.
          sentinelRetryStrategy: (times) => Math.min(times * 100, 1000),
          // A sentinel that does not answer "which master?" within 1 s is skipped for the next one, not waited on.
          sentinelCommandTimeout: 1_000,
          failoverDetector: true,
          ...(target.tls ? { tls: {}, sentinelTLS: {}, enableTLSForSentinelMode: true } : {}),
        })
      : new Cluster(
          target.nodes.map((n) => ({ ...n })),
          {
            // No queue while the cluster is not ready: commands fail at once and callers fall back.
            enableOfflineQueue: false,
            enableAutoPipelining: false,
            clusterRetryStrategy: options.retryStrategy,
            // A command whose master is gone is retried after 100 ms (the slots refreshed meanwhile)
            // at most 3 times, and gives up after 500 ms in all (commandTimeout), as on one server: the
            // caller falls back rather than wait out the cluster's failover.
            retryDelayOnFailover: 100,
            maxRedirections: 3,
            // With TLS, connect by the names the cluster gives, not their addresses, so that the
            // certificates match (ioredis' advice for ElastiCache with TLS).
            ...(target.tls ? { dnsLookup: (address: string, callback: (err: null, address: string) => void) => callback(null, address) } : {}),
            // Per node: ioredis' own defaults (a lost node is dropped, the slots are asked again)
            // plus the time limits and credentials.
            redisOptions: {
              maxRetriesPerRequest: options.maxRetriesPerRequest,
              connectTimeout: options.connectTimeout,
              commandTimeout: options.commandTimeout,
              username: target.username,
              password: target.password,
              ...(target.tls ? { tls: {} } : {}),
            },
          },
        );
}

/**
 * A client for REDIS_URL: a plain URL as is; a Sentinel set (config.ts redisTarget), where ioredis asks
 * the sentinels for the master on every (re)connect and, subscribed to `+switch-master`, reconnects as
 * soon as they promote a replica (docs/operations.md, "Redis with failover (Sentinel)"); or a Redis
 * Cluster from its seed nodes, where ioredis learns the slots' masters from `CLUSTER SLOTS` and
 * follows `MOVED` answers after a failover (docs/operations.md, "Redis Cluster").
 */
export function createRedis(url: string, logger: Logger): RedisClient {
  const redis = clientFor(url);
  let down = false;
  let closing = false;
  const outage = (reason: string) => {
    if (down || closing) return;
    down = true;
    logger.warn({ reason }, 'Redis unavailable: rate limits and idempotency keys fall back to in-process stores on this instance until it is back');
  };
  const recovered = () => {
    if (!down) return;
    down = false;
    logger.info('Redis is back: rate limits and idempotency keys are shared again');
  };
  const started = startup(redis, REDIS_STARTUP_TIMEOUT_MS);
  startups.set(redis, started);
  // Start-up work that blocks the event loop (reading openapi/ right after the app is built) can
  // outlast a connect timeout of ioredis, which then tries again: a single timer, unlike the wait's
  // ticks. A cluster's connect also takes several round trips (a seed, CLUSTER SLOTS, the ready check),
  // each within the 500 ms limit. So errors count from the end of the start-up wait on; a client not
  // ready by then is an outage.
  let counting = false;
  const failed = (reason: string) => {
    if (counting) outage(reason);
  };
  redis.on('error', (err: Error) => failed(err.message));
  redis.on('close', () => failed('connection closed'));
  void started.then(() => {
    counting = true;
    if (redis.status !== 'ready') outage(`${redis instanceof Cluster ? 'cluster' : 'Redis'} not ready at start (${redis.status})`);
  });
  if (redis instanceof Cluster) {
    // One node lost is an outage for the keys of its slots; it is over when the check below finds
    // every master again (after a failover: the promoted replica), not when one connection is back.
    redis.on('node error', (err: Error) => failed(err.message));
    // ioredis connects to a node on its first command; once the cluster is ready, connect at once
    // instead, so that a request (or the check below) does not wait for the connection.
    const connect = (node: Redis) => {
      if (redis.status === 'ready' && node.status === 'wait') node.connect().catch(() => undefined);
    };
    redis.on('+node', connect);
    redis.on('ready', () => redis.nodes('master').forEach(connect));
  } else {
    redis.on('ready', recovered);
  }
  let notReadySince: number | undefined;
  const ping = setInterval(() => {
    if (redis.status !== 'ready') {
      if (redis instanceof Cluster || redis.status === 'end' || closing) return;
      notReadySince ??= Date.now();
      if (Date.now() - notReadySince >= STUCK_RECONNECT_MS) {
        notReadySince = undefined;
        redis.disconnect(true);
      }
      return;
    }
    notReadySince = undefined;
    if (redis instanceof Cluster) {
      clusterWhole(redis).then(recovered, (err: Error) => failed(err.message));
      return;
    }
    redis.ping().then(recovered, (err: Error) => {
      outage(err.message);
      // A hanging Redis: reconnect, so that until it answers again the client is not ready and every
      // command fails at once (no offline queue) instead of waiting 500 ms per command.
      if (!closing) redis.disconnect(true);
    });
  }, PING_INTERVAL_MS);
  ping.unref();
  redis.on('end', () => clearInterval(ping));
  // quit() or disconnect() on shutdown is not an outage (ioredis itself calls disconnect(true) to reconnect).
  for (const method of ['quit', 'disconnect'] as const) {
    const original = redis[method].bind(redis) as (...args: unknown[]) => unknown;
    (redis as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
      if (!(method === 'disconnect' && args[0] === true)) {
        closing = true;
        clearInterval(ping);
      }
      return original(...args);
    };
  }
  return redis;
}
