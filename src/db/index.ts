/**
 * The database handle types and helpers core code uses (below the core in the layer order: every layer
 * imports from here). Opening the database and migrating are in connection.ts, LISTEN in
 * notifications.ts, read replicas in replicas.ts, pg-boss in pg-boss.ts and COPY in copy-writer.ts: the
 * only modules of src/ that import `pg`, `pg-boss` or `pg-copy-streams`. Work after a commit, in a transaction
 * of its own (the audit seal), is in follow-up.ts.
 */
import type { Knex } from 'knex';
import { forwardCommitHook, trackCommitHooks } from './follow-up';

/** The process's knex instance (PostgreSQL or embedded PGlite). */
export type Db = Knex;

/** What src/db logs through: the platform's pino logger fits (src/db imports no project layer). */
export interface DbLogger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** Runs `select 1`: resolves when the database answers (the readiness probe). */
export async function ping(db: Db): Promise<void> {
  await db.raw('select 1');
}

/** A transaction the caller opened (withTransaction). */
export type DbTransaction = Knex.Transaction;

/** A knex instance or a transaction: what core functions take to run inside the caller's transaction. */
export type DbHandle = Knex | Knex.Transaction;

/**
 * A constant statement of the hot path that PostgreSQL parses and plans once per pooled connection: node-postgres sends
 * it as the named prepared statement `name` the first time on a connection and only binds and executes it afterwards
 * (docs/decisions.md, "Prepared statements"). Only for SQL text that never varies (bindings carry every value) and that
 * only this module's caller runs under `name`; PGlite runs it as any raw statement.
 * @returns `{ rows }` as `db.raw` does on PostgreSQL.
 */
export function runPrepared(db: DbHandle, statement: PreparedStatement, bindings: readonly Knex.RawBinding[]): Knex.Raw {
  return db.raw(statement.sql, bindings).options({ name: statement.name });
}

/** A statement for runPrepared: a name unique in the process (PostgreSQL's per connection) and its constant SQL. */
export interface PreparedStatement {
  readonly name: string;
  readonly sql: string;
}

/** True when this knex instance runs on embedded PGlite (no COPY, one connection). */
export function isEmbedded(db: Db): boolean {
  return (db.client as Knex.Client).config.client !== 'pg';
}

/**
 * Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. The use case at
 * the edge (a route or page handler, a CLI command, the worker) calls it; core functions run in the
 * transaction they are handed and never open one (docs/decisions.md, "Who opens transactions").
 * Work registered with afterCommit (follow-up.ts) starts once the commit is done, not awaited.
 * @param config e.g. `{ readOnly: true }` for a read that must see one snapshot.
 */
export async function withTransaction<T>(db: Db, fn: (trx: Knex.Transaction) => Promise<T>, config?: Knex.TransactionConfig): Promise<T> {
  const hooks: Array<(db: Db) => void> = [];
  const result = await db.transaction((trx) => {
    trackCommitHooks(trx, hooks);
    return fn(trx);
  }, config);
  // Inside an outer transaction this one only released a savepoint: its hooks wait for the outer commit.
  if ((db as Knex.Transaction).isTransaction) {
    const outer = db as Knex.Transaction;
    hooks.forEach((h) => forwardCommitHook(outer, h));
  } else {
    for (const h of hooks) h(db);
  }
  return result;
}

/**
 * Runs an UPDATE or DELETE builder and returns how many rows it touched, counted from `RETURNING`,
 * so PostgreSQL and the embedded PGlite answer alike (knex-pglite returns a result object instead of
 * a count for DELETE: docs/api-rules.md, "Both databases answer alike").
 * @param query a builder already carrying `.update(…)` or `.delete()`.
 * @param column a column of the target table to return (default `id`).
 */
export async function affectedRows(query: Knex.QueryBuilder, column = 'id'): Promise<number> {
  const rows = (await query.returning(column)) as unknown[];
  return rows.length;
}
