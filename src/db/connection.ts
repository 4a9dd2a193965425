/**
 * One knex instance for the whole process, on PostgreSQL (`DATABASE_URL`) or on the embedded PGlite
 * database persisted in `FEEDBACK_DATA_DIR` (README.md, "Configuration"). Queries are the same on both.
 */
import knex, { type Knex } from 'knex';
import pg from 'pg';
import { migrations } from '../../migrations';
import { lockDataDir } from './data-dir-lock';

// int8 (counts, sums) as JS numbers: our counts stay far below 2^53.
pg.types.setTypeParser(20, (v: string) => Number(v));

import type { Db, DbLogger as Logger } from './index';

// Db, withTransaction and isEmbedded live in src/db/index.ts; re-exported for existing imports.
export { type Db, withTransaction, isEmbedded } from './index';

export interface DbOptions {
  databaseUrl: string | undefined;
  dataDir: string;
  /** Pool size on PostgreSQL (PGlite is always one connection). */
  poolMax?: number;
  /**
   * Serving requests: apply the statement, query and pool timeouts of DB_TIMEOUTS (the server does). Off
   * for batch work (migrate, import, seed, the benchmark), whose long statements (CREATE INDEX on a big
   * table, large inserts) must not be cut; those keep a 10 s connect timeout.
   */
  requestTimeouts?: boolean;
  /** An already open PGlite instance to use instead of opening `dataDir` (tests). */
  pglite?: unknown;
}

/**
 * Timeouts on PostgreSQL while serving requests (`requestTimeouts`), chosen so that an unreachable database gives a 503 within 5 s instead of a
 * hang (docs/operations.md, "Outages"; docs/operations.md, "Timeouts"):
 * - connect: 2 s to open a connection (a host that drops packets fails here);
 * - acquire: 3 s to get a connection from the pool (a full pool or a failing connect ends here);
 * - statement_timeout: 10 s per statement, enforced by the server. Per statement, not per transaction:
 *   an analytics export streams through a server-side cursor in many short FETCHes;
 * - query_timeout: 11 s on the client, for a server that stopped answering on an open connection;
 * - idle: pooled connections unused for 30 s are closed, so a restarted server is reconnected cleanly.
 */
export const DB_TIMEOUTS = Object.freeze({
  connectMs: 2_000,
  acquireMs: 3_000,
  statementMs: 10_000,
  queryMs: 11_000,
  idleMs: 30_000,
});

/**
 * knex's own messages through our logger. "Acquire connection error" comes once per request while the
 * database is down; the request's 503 is logged already, so it goes to debug (and nowhere without a logger).
 */
function knexLog(logger: Logger | undefined): Knex.Config['log'] {
  const quietAcquire = (message: unknown) => typeof message === 'string' && message.startsWith('Acquire connection error');
  return {
    warn: (message: unknown) => (quietAcquire(message) ? logger?.debug({ knex: message }) : logger?.warn({ knex: message })),
    error: (message: unknown) => (logger ? logger.error({ knex: message }) : console.error(message)),
    deprecate: (message: unknown) => logger?.debug({ knex: message }),
    debug: (message: unknown) => logger?.debug({ knex: message }),
  };
}

/**
 * Opens the database. With no URL, creates `dataDir`, locks it for this process and opens PGlite in it; `destroy()`
 * releases the lock. `logger` receives knex's messages.
 * @throws DataDirLockedError when another process holds `dataDir`.
 */
export function createDb(opts: DbOptions, logger?: Logger): Db {
  if (opts.databaseUrl) {
    const serving = opts.requestTimeouts === true;
    return knex({
      client: 'pg',
      log: knexLog(logger),
      connection: {
        connectionString: opts.databaseUrl,
        connectionTimeoutMillis: serving ? DB_TIMEOUTS.connectMs : 10_000,
        ...(serving ? { statement_timeout: DB_TIMEOUTS.statementMs, query_timeout: DB_TIMEOUTS.queryMs } : {}),
        keepAlive: true,
        application_name: 'feedback-service',
      } as Knex.PgConnectionConfig,
      ...(serving ? { acquireConnectionTimeout: DB_TIMEOUTS.acquireMs } : {}),
      pool: {
        min: 0,
        max: opts.poolMax ?? 10,
        ...(serving ? { createTimeoutMillis: DB_TIMEOUTS.acquireMs } : {}),
        idleTimeoutMillis: DB_TIMEOUTS.idleMs,
        reapIntervalMillis: 1_000,
      },
    });
  }
  // `memory://` opens an in-memory database (the tests' embedded project); `pglite` is one already open.
  const onDisk = !opts.pglite && !opts.dataDir.startsWith('memory://');
  // Throws DataDirLockedError when another process has the folder open (docs/operations.md, "One process per data directory").
  const release = onDisk ? lockDataDir(opts.dataDir) : undefined;
  // knex-pglite is a CommonJS module whose export is the client class itself.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when the embedded database is used (it brings PGlite)
  const ClientPGlite = require('knex-pglite') as typeof knex.Client;
  const connection = opts.pglite ? { pglite: opts.pglite } : { filename: opts.dataDir };
  const db = knex({ client: ClientPGlite, log: knexLog(logger), connection: connection as Knex.StaticConnectionConfig });
  if (release) {
    // `db.destroy()` calls the client's; the folder stays locked until PGlite has closed it.
    const client = db.client as { destroy(callback?: unknown): Promise<void> };
    const destroy = client.destroy.bind(client);
    client.destroy = async (callback?: unknown) => {
      try {
        await destroy(callback);
      } finally {
        release();
      }
    };
  }
  return db;
}

/**
 * Connections of the knex (tarn) pool: `used` (lent out), `idle` (free), `waiting` (acquires queued).
 * The embedded database has a pool of one connection, reported the same way.
 */
export function poolStats(db: Db): { used: number; idle: number; waiting: number } {
  const pool = (db.client as { pool?: { numUsed(): number; numFree(): number; numPendingAcquires(): number } }).pool;
  if (!pool) return { used: 0, idle: 0, waiting: 0 };
  return { used: pool.numUsed(), idle: pool.numFree(), waiting: pool.numPendingAcquires() };
}

const migrationSource: Knex.MigrationSource<(typeof migrations)[number]> = {
  getMigrations: async () => [...migrations],
  getMigrationName: (m) => m.name,
  getMigration: async (m) => m,
};

/** Applies pending migrations; returns the names applied (empty when up to date). */
export async function migrateLatest(db: Db): Promise<string[]> {
  const [, applied] = (await db.migrate.latest({ migrationSource })) as [number, string[]];
  return applied;
}
