/**
 * Which database answers an API request when read replicas are configured (docs/operations.md, "Read
 * replicas"). The API routers are built once per database (`build(db)`); this step picks one set per request:
 * - POST, PATCH, PUT, DELETE: the primary, and before the answer leaves (status < 400) the primary's WAL
 *   position is recorded for the request's key (read-your-writes), for DATABASE_READ_MAX_LAG_MS + 1 s;
 * - GET, HEAD: an `ok` replica that has replayed past the key's recorded position, round robin; else the
 *   primary. A read that fails on a replica with a connection error (or a recovery conflict) before its
 *   answer has started is run again on the primary and the replica is marked down: the client sees no
 *   error. A streamed export that fails mid-answer cannot be run again (its first bytes are sent).
 * Authentication, rate limits, usage counts and idempotency run before this step, on the primary and Redis.
 *
 * The recorded positions live in Redis (shared by the instances) and in this process; when Redis fails,
 * a key with no position in this process reads on the primary. While no replica is `ok`, a read goes to the primary
 * without reading a position.
 */
import type { Request, RequestHandler, Router } from 'express';
import { beforeEnd } from './answer-hooks';
import type { RedisClient } from './redis';
import type { Db } from '../db';
import { type ReadReplicas, REPLICA_POLL_MS } from '../db/replicas';
import { isDatabaseUnavailable } from './error-handler';
import { memoryIdempotencyStore, redisIdempotencyStore, type IdempotencyStore } from './idempotency';
import type { Logger } from './logger';

/** Where a read ran, for `db_reads_total{target}`. */
export type ReadTarget = 'primary' | 'replica';

/** Recorded when the primary's position could not be read after a write: the key reads on the primary. */
const ANY_POSITION = 'primary';
const READS = new Set(['GET', 'HEAD']);
/**
 * A replica's error the primary may not have: unreachable, shutting down, a full pool (isDatabaseUnavailable),
 * or 40001, "canceling statement due to conflict with recovery" on a hot standby. Not 57014, a statement
 * timeout: the statement would take as long on the primary.
 */
const retryOnPrimary = (err: unknown) => {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '40001' || (code !== '57014' && isDatabaseUnavailable(err));
};

export interface ReadRoutingOptions {
  primary: Db;
  replicas: ReadReplicas;
  /** The API routers on one database (called once per database). */
  build: (db: Db) => Router;
  redis?: RedisClient | undefined;
  logger: Logger;
  /** DATABASE_READ_MAX_LAG_MS: a recorded position lives this long plus one poll interval. */
  maxLagMs: number;
  /** Counts each read request by the database that answered it. */
  onRead?: (target: ReadTarget) => void;
  /** Overrides the store built from `redis` (tests). */
  store?: IdempotencyStore;
}

/** The routing step: mount it where the API routers would be mounted. */
export function readRouting(opts: ReadRoutingOptions): RequestHandler {
  const onPrimary = opts.build(opts.primary);
  const onReplica = opts.replicas.dbs.map((db) => opts.build(db));
  const shared = opts.store ?? (opts.redis ? redisIdempotencyStore(opts.redis) : undefined);
  const local = memoryIdempotencyStore();
  const ttlMs = opts.maxLagMs + REPLICA_POLL_MS;
  const keyOf = (req: Request) => (req.context.auth ? `fs:ryw:${req.context.auth.id}` : undefined);

  /**
   * The key's recorded position, the later of this process's and Redis's (a write on another instance);
   * when Redis fails, this process's, else ANY_POSITION.
   */
  const recorded = async (key: string): Promise<bigint | typeof ANY_POSITION | undefined> => {
    const mine = await local.get(key);
    const theirs = shared ? await shared.get(key).catch(() => (mine === null ? ANY_POSITION : null)) : null;
    if (mine === ANY_POSITION || theirs === ANY_POSITION) return ANY_POSITION;
    const positions = [mine, theirs].filter((p): p is string => p !== null).map((p) => BigInt(p));
    return positions.length === 0 ? undefined : positions.reduce((a, b) => (a > b ? a : b));
  };

  const record = async (key: string, log: Logger) => {
    const lsn = await opts.replicas.primaryLsn().then(String, (err: unknown) => {
      log.warn({ err }, 'could not read the primary WAL position after a write; the key reads on the primary for a while');
      return ANY_POSITION;
    });
    await local.set(key, lsn, ttlMs);
    await shared?.set(key, lsn, ttlMs).catch((err: unknown) => log.debug({ err }, 'could not share the write position'));
  };

  const read = (req: Request, target: ReadTarget) => {
    req.context.readTarget = target;
    opts.onRead?.(target);
  };

  return async (req, res, next) => {
    const key = keyOf(req);
    if (!READS.has(req.method)) {
      // Recorded before the answer leaves (answer-hooks.ts): the client's next read already sees its write.
      if (key) beforeEnd(res, () => (res.statusCode < 400 ? record(key, req.log ?? opts.logger) : Promise.resolve()));
      onPrimary(req, res, next);
      return;
    }
    // With no replica to read from, the key's write position (a Redis read) cannot change where the read goes.
    const readable = opts.replicas.anyOk?.() ?? true;
    const position = key && readable ? await recorded(key) : undefined;
    const index = !readable || position === ANY_POSITION ? undefined : opts.replicas.pick(position);
    if (index === undefined) {
      read(req, 'primary');
      onPrimary(req, res, next);
      return;
    }
    read(req, 'replica');
    onReplica[index]!(req, res, (err?: unknown) => {
      if (err === undefined || res.headersSent || !retryOnPrimary(err)) {
        next(err as Error);
        return;
      }
      opts.replicas.markDown(index, err);
      (req.log ?? opts.logger).warn({ err: (err as Error).message }, 'read failed on a replica; answered from the primary');
      read(req, 'primary');
      onPrimary(req, res, next);
    });
  };
}
