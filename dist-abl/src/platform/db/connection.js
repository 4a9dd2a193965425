"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.DB_TIMEOUTS = exports.isEmbedded = exports.withTransaction = void 0;
exports.createDb = createDb;
exports.poolStats = poolStats;
exports.migrateLatest = migrateLatest;
/**
 * One knex instance for the whole process, on PostgreSQL (`DATABASE_URL`) or on the embedded PGlite
 * database persisted in `FEEDBACK_DATA_DIR` (CONTRACT section 1). Queries are the same on both.
 */
const node_fs_1 = __importDefault(require("node:fs"));
const knex_1 = __importDefault(require("knex"));
const pg_1 = __importDefault(require("pg"));
const migrations_1 = require("../../../migrations");
// int8 (counts, sums) as JS numbers: our counts stay far below 2^53.
pg_1.default.types.setTypeParser(20, (v) => Number(v));
// Db, withTransaction and isEmbedded live in src/db (below the core); re-exported for existing imports.
var db_1 = require("../../db");
Object.defineProperty(exports, "withTransaction", { enumerable: true, get: function () { return db_1.withTransaction; } });
Object.defineProperty(exports, "isEmbedded", { enumerable: true, get: function () { return db_1.isEmbedded; } });
/**
 * Timeouts on PostgreSQL while serving requests (`requestTimeouts`), chosen so that an unreachable database gives a 503 within 5 s instead of a
 * hang (CONTRACT section 14; docs/operations.md, "Timeouts"):
 * - connect: 2 s to open a connection (a host that drops packets fails here);
 * - acquire: 3 s to get a connection from the pool (a full pool or a failing connect ends here);
 * - statement_timeout: 10 s per statement, enforced by the server. Per statement, not per transaction:
 *   an analytics export streams through a server-side cursor in many short FETCHes;
 * - query_timeout: 11 s on the client, for a server that stopped answering on an open connection;
 * - idle: pooled connections unused for 30 s are closed, so a restarted server is reconnected cleanly.
 */
exports.DB_TIMEOUTS = Object.freeze({
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
function knexLog(logger) {
    const quietAcquire = (message) => typeof message === 'string' && message.startsWith('Acquire connection error');
    return {
        warn: (message) => (quietAcquire(message) ? logger?.debug({ knex: message }) : logger?.warn({ knex: message })),
        error: (message) => (logger ? logger.error({ knex: message }) : console.error(message)),
        deprecate: (message) => logger?.debug({ knex: message }),
        debug: (message) => logger?.debug({ knex: message }),
    };
}
/** Opens the database. With no URL, creates `dataDir` and opens PGlite in it. `logger` receives knex's messages. */
function createDb(opts, logger) {
    if (opts.databaseUrl) {
        const serving = opts.requestTimeouts === true;
        return (0, knex_1.default)({
            client: 'pg',
            log: knexLog(logger),
            connection: {
                connectionString: opts.databaseUrl,
                connectionTimeoutMillis: serving ? exports.DB_TIMEOUTS.connectMs : 10_000,
                ...(serving ? { statement_timeout: exports.DB_TIMEOUTS.statementMs, query_timeout: exports.DB_TIMEOUTS.queryMs } : {}),
                keepAlive: true,
                application_name: 'feedback-service',
            },
            ...(serving ? { acquireConnectionTimeout: exports.DB_TIMEOUTS.acquireMs } : {}),
            pool: {
                min: 0,
                max: opts.poolMax ?? 10,
                ...(serving ? { createTimeoutMillis: exports.DB_TIMEOUTS.acquireMs } : {}),
                idleTimeoutMillis: exports.DB_TIMEOUTS.idleMs,
                reapIntervalMillis: 1_000,
            },
        });
    }
    // `memory://` opens an in-memory database (the tests' embedded project).
    if (!opts.dataDir.startsWith('memory://'))
        node_fs_1.default.mkdirSync(opts.dataDir, { recursive: true });
    // knex-pglite is a CommonJS module whose export is the client class itself.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const ClientPGlite = require('knex-pglite');
    const connection = opts.pglite ? { pglite: opts.pglite } : { filename: opts.dataDir };
    return (0, knex_1.default)({ client: ClientPGlite, log: knexLog(logger), connection: connection });
}
/**
 * Connections of the knex (tarn) pool: `used` (lent out), `idle` (free), `waiting` (acquires queued).
 * The embedded database has a pool of one connection, reported the same way.
 */
function poolStats(db) {
    const pool = db.client.pool;
    if (!pool)
        return { used: 0, idle: 0, waiting: 0 };
    return { used: pool.numUsed(), idle: pool.numFree(), waiting: pool.numPendingAcquires() };
}
const migrationSource = {
    getMigrations: async () => [...migrations_1.migrations],
    getMigrationName: (m) => m.name,
    getMigration: async (m) => m,
};
/** Applies pending migrations; returns the names applied (empty when up to date). */
async function migrateLatest(db) {
    const [, applied] = (await db.migrate.latest({ migrationSource }));
    return applied;
}
//# sourceMappingURL=connection.js.map