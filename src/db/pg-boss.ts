/**
 * pg-boss 10 running on OUR knex connection (docs/webhooks.md, "Running the worker"; docs/decisions.md,
 * "Webhook delivery on pg-boss"): the one place pg-boss is imported. core/webhooks/queue.ts says which
 * jobs go in; the delivery worker starts a pg-boss over `knexExecutor`.
 *
 * pg-boss takes a `db` object with `executeSql(text, values)`. `knexExecutor` gives it one over a
 * knex instance or a transaction, so
 * - a job is inserted inside the caller's transaction (commits or rolls back with the write), and
 * - on the embedded database (PGlite: one connection, same process) every pg-boss query waits its
 *   turn on knex's single pooled connection instead of slipping into someone else's transaction.
 * The pg-boss schema itself is installed by migration 20261123_004 (split into single statements,
 * which PGlite needs), so pg-boss runs with `migrate: false`.
 */
import type { Knex } from 'knex';
import { splitStatements } from '../../migrations/sql-script';
import type { DbHandle } from './index';

// pg-boss 10 is CommonJS without an ESM entry; its types come with the package.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const PgBoss = require('pg-boss') as typeof import('pg-boss');
type PgBossInstance = InstanceType<typeof PgBoss>;

/** What a statement answers, as pg-boss reads it. */
export interface SqlResult {
  rows: Array<Record<string, unknown>>;
  rowCount?: number;
}

/** The `db` pg-boss runs its statements through. */
export interface SqlExecutor {
  executeSql(text: string, values?: unknown[]): Promise<SqlResult>;
}

/** A plain object (pg-boss passes serialized errors as objects) goes as JSON text, as `pg` would send it. */
function binding(v: unknown): unknown {
  if (v === undefined) return null;
  if (typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date) && !Buffer.isBuffer(v)) return JSON.stringify(v);
  return v;
}

const TX_CONTROL = /^(BEGIN|COMMIT|START\s+TRANSACTION)$/i;

/**
 * A pg-boss `db` over knex. `$n` parameters become knex bindings (a literal `?` is escaped);
 * a multi-statement script without values (pg-boss maintenance: `BEGIN; …; COMMIT;`) runs its
 * statements one by one in the caller's transaction when `db` is one, else in a knex transaction
 * standing for the script's own BEGIN … COMMIT (docs/decisions.md, "Who opens transactions").
 */
export function knexExecutor(db: DbHandle): SqlExecutor {
  return {
    async executeSql(text: string, values?: unknown[]) {
      if (!values || values.length === 0) {
        const statements = splitStatements(text).filter((s) => !TX_CONTROL.test(s));
        if (statements.length > 1) {
          const run = async (trx: DbHandle) => {
            let last: SqlResult = { rows: [] };
            for (const s of statements) last = (await trx.raw(s.replace(/\?/g, '\\?'))) as SqlResult;
            return last;
          };
          return (db as Knex).isTransaction ? run(db) : (db as Knex).transaction(run);
        }
        return (await db.raw((statements[0] ?? text).replace(/\?/g, '\\?'))) as SqlResult;
      }
      const bindings: unknown[] = [];
      const sqlText = text.replace(/\?/g, '\\?').replace(/\$(\d+)/g, (_m, d: string) => {
        bindings.push(binding(values[Number(d) - 1]));
        return '?';
      });
      return (await db.raw(sqlText, bindings as Knex.RawBinding[])) as SqlResult;
    },
  };
}

let sender: PgBossInstance | undefined;

/** A pg-boss instance used only to insert jobs through a given executor (never started). */
function jobSender(): PgBossInstance {
  sender ??= new PgBoss({
    db: { executeSql: () => Promise.reject(new Error('jobs are inserted through an explicit executor')) },
    migrate: false,
    schedule: false,
    supervise: false,
  });
  return sender;
}

/** One job to insert: its queue, data and pg-boss send options (`startAfter` undefined: at once). */
export interface JobToInsert {
  name: string;
  data: object;
  startAfter?: Date | undefined;
  retryLimit?: number;
  retryDelay?: number;
  expireInSeconds?: number;
}

/** Inserts `jobs` inside `trx` (the caller's transaction): they commit or roll back with its writes. */
export async function insertJobs(trx: DbHandle, jobs: readonly JobToInsert[]): Promise<void> {
  if (jobs.length === 0) return;
  await jobSender().insert(
    jobs.map(({ startAfter, ...job }) => ({ ...job, ...(startAfter ? { startAfter: startAfter.toISOString() } : {}) })) as never,
    { db: knexExecutor(trx) } as never,
  );
}

export { PgBoss, type PgBossInstance };
