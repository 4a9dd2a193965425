/**
 * PostgreSQL read replicas (`DATABASE_READ_URL`; docs/operations.md, "Read replicas"): one small knex pool
 * per replica and a poller that, every REPLICA_POLL_MS, reads the primary's WAL position
 * (`pg_current_wal_lsn()`) and each replica's replay position (`pg_last_wal_replay_lsn()`).
 *
 * A replica's state is `ok`, `lagging` (further behind than `maxLagMs`) or `down` (its poll failed or timed
 * out, or a read on it failed with a connection error: markDown). Only `ok` replicas are picked; they come
 * back by themselves at the next good poll.
 *
 * Lag is measured by WAL position, not by `pg_last_xact_replay_timestamp()` (which grows while the primary
 * is idle): a replica that has replayed the primary's latest sampled position has lag 0; otherwise the lag
 * is the age of the oldest primary sample it has not replayed yet (exact to one poll interval).
 */
import type { DbLogger as Logger } from './index';
import { createDb, type Db } from './connection';

/** How often the poller samples the primary and every replica, in milliseconds. */
export const REPLICA_POLL_MS = 1_000;
/** A poll query that takes longer than this counts as a failure (the replica is `down`). */
const POLL_TIMEOUT_MS = 1_000;
/** Connections per replica pool: as many as the primary's pool, since the reads move there. */
const REPLICA_POOL_MAX = 10;

export type ReplicaHealth = 'ok' | 'lagging' | 'down';

/** What /readyz and /metrics show of one replica. */
export interface ReplicaStatus {
  /** `host:port/database` of its URL (never the credentials). */
  readonly name: string;
  readonly state: ReplicaHealth;
  /** Seconds behind the primary at the last good poll; null before the first one. */
  readonly lagSeconds: number | null;
}

export interface ReadReplicas {
  /** The replicas' knex instances, in DATABASE_READ_URL order. */
  readonly dbs: readonly Db[];
  /**
   * Index of an `ok` replica that has replayed at least `minLsn` (round robin), or undefined: read on the
   * primary. `minLsn` undefined: any `ok` replica.
   */
  pick(minLsn: bigint | undefined): number | undefined;
  /**
   * Whether some replica is `ok` now, without picking one; absent: assume so. A read first asks this, so that no
   * recorded write position is read (from Redis) while every read goes to the primary anyway.
   */
  anyOk?(): boolean;
  /** A read on replica `index` failed with a connection error: skip it until a poll answers again. */
  markDown(index: number, err: unknown): void;
  /** The primary's current WAL position (after a write: read-your-writes). */
  primaryLsn(): Promise<bigint>;
  status(): ReplicaStatus[];
  /** Polls once, then every REPLICA_POLL_MS. */
  start(): Promise<void>;
  /** Stops polling and closes the replica pools. */
  stop(): Promise<void>;
}

/** Parses a `pg_lsn` text (`16/B374D848`) into one number. */
export function parseLsn(text: string): bigint {
  const m = /^([0-9A-F]+)\/([0-9A-F]+)$/i.exec(text.trim());
  if (!m) throw new Error(`not a WAL position: ${text}`);
  return (BigInt(`0x${m[1]}`) << 32n) + BigInt(`0x${m[2]}`);
}

/** `host:port/database` of a PostgreSQL URL. */
export function replicaName(url: string): string {
  const u = new URL(url);
  return `${u.hostname}:${u.port || '5432'}${u.pathname}`;
}

function within<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

interface Replica {
  name: string;
  db: Db;
  state: ReplicaHealth;
  lagSeconds: number | null;
  replayLsn: bigint;
}

/**
 * Opens the replica pools (with the serving timeouts of DB_TIMEOUTS). Call start() before serving.
 * @param primary the primary's knex instance (its WAL position is read there).
 * @param maxLagMs DATABASE_READ_MAX_LAG_MS.
 */
export function createReadReplicas(opts: { primary: Db; urls: readonly string[]; maxLagMs: number; logger: Logger }): ReadReplicas {
  const { primary, logger } = opts;
  const replicas: Replica[] = opts.urls.map((url) => ({
    name: replicaName(url),
    db: createDb({ databaseUrl: url, dataDir: '', poolMax: REPLICA_POOL_MAX, requestTimeouts: true }, logger),
    state: 'down',
    lagSeconds: null,
    replayLsn: 0n,
  }));
  // Samples of the primary's position, oldest first, kept for as long as a lag can matter.
  const samples: Array<{ lsn: bigint; at: number }> = [];
  let next = 0;
  let timer: NodeJS.Timeout | undefined;
  let polling: Promise<void> | undefined;
  let stopped = false;

  const setState = (r: Replica, state: ReplicaHealth, detail?: unknown) => {
    if (r.state === state) return;
    const log = state === 'ok' ? logger.info.bind(logger) : logger.warn.bind(logger);
    log({ replica: r.name, state, lag_seconds: r.lagSeconds, err: detail instanceof Error ? detail.message : detail }, `read replica ${state}`);
    r.state = state;
  };

  const primaryLsn = async () => {
    const { rows } = (await primary.raw('select pg_current_wal_lsn()::text as lsn')) as { rows: Array<{ lsn: string }> };
    return parseLsn(rows[0]!.lsn);
  };

  const pollReplica = async (r: Replica, now: number) => {
    try {
      const { rows } = (await within(
        r.db.raw('select (case when pg_is_in_recovery() then pg_last_wal_replay_lsn() else pg_current_wal_lsn() end)::text as lsn'),
        POLL_TIMEOUT_MS,
      )) as { rows: Array<{ lsn: string | null }> };
      r.replayLsn = rows[0]?.lsn ? parseLsn(rows[0].lsn) : 0n;
      const behind = samples.find((s) => s.lsn > r.replayLsn);
      r.lagSeconds = behind ? (now - behind.at) / 1000 : 0;
      setState(r, r.lagSeconds * 1000 > opts.maxLagMs ? 'lagging' : 'ok');
    } catch (err) {
      setState(r, 'down', err);
    }
  };

  const poll = async () => {
    const now = Date.now();
    try {
      samples.push({ lsn: await within(primaryLsn(), POLL_TIMEOUT_MS), at: now });
    } catch (err) {
      // The primary is down: keep judging the replicas by the samples we have.
      logger.debug({ err }, 'could not read the primary WAL position');
    }
    while (samples.length > 1 && samples[0]!.at < now - opts.maxLagMs - 2 * REPLICA_POLL_MS) samples.shift();
    await Promise.all(replicas.map((r) => pollReplica(r, now)));
  };

  const loop = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      polling = poll().finally(loop);
    }, REPLICA_POLL_MS);
    timer.unref();
  };

  return {
    dbs: replicas.map((r) => r.db),
    pick(minLsn) {
      for (let i = 0; i < replicas.length; i++) {
        const index = (next + i) % replicas.length;
        const r = replicas[index]!;
        if (r.state === 'ok' && (minLsn === undefined || r.replayLsn >= minLsn)) {
          next = index + 1;
          return index;
        }
      }
      return undefined;
    },
    anyOk: () => replicas.some((r) => r.state === 'ok'),
    markDown(index, err) {
      setState(replicas[index]!, 'down', err);
    },
    primaryLsn,
    status: () => replicas.map((r) => ({ name: r.name, state: r.state, lagSeconds: r.lagSeconds })),
    async start() {
      await poll();
      loop();
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await polling?.catch(() => undefined);
      await Promise.all(replicas.map((r) => r.db.destroy()));
    },
  };
}
