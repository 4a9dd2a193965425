/**
 * The delivery job queue: pg-boss 10 running on OUR knex connection (docs/webhooks.md, "Running the worker";
 * docs/decisions.md, "Webhook delivery on pg-boss").
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
import PgBoss from 'pg-boss';
import { splitStatements } from '../../../migrations/sql-script';
import type { DbHandle } from '../../db';

type PgBossInstance = InstanceType<typeof PgBoss>;

/** The pg-boss queue of delivery attempts: one job per attempt (created by migration 20261123_004). */
export const DELIVERY_QUEUE = 'webhook-delivery';

/** Job data of one attempt: the delivery and the attempt token it may claim (see delivery/attempt.ts). */
export interface AttemptJob {
  workspaceId: string;
  deliveryId: string;
  token: string;
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
export function knexExecutor(db: DbHandle): { executeSql(text: string, values?: unknown[]): Promise<{ rows: unknown[]; rowCount?: number }> } {
  return {
    async executeSql(text: string, values?: unknown[]) {
      if (!values || values.length === 0) {
        const statements = splitStatements(text).filter((s) => !TX_CONTROL.test(s));
        if (statements.length > 1) {
          const run = async (trx: DbHandle) => {
            let last: { rows: unknown[] } = { rows: [] };
            for (const s of statements) last = (await trx.raw(s.replace(/\?/g, '\\?'))) as { rows: unknown[] };
            return last;
          };
          return (db as Knex).isTransaction ? run(db) : (db as Knex).transaction(run);
        }
        return (await db.raw((statements[0] ?? text).replace(/\?/g, '\\?'))) as { rows: unknown[] };
      }
      const bindings: unknown[] = [];
      const sqlText = text.replace(/\?/g, '\\?').replace(/\$(\d+)/g, (_m, d: string) => {
        bindings.push(binding(values[Number(d) - 1]));
        return '?';
      });
      return (await db.raw(sqlText, bindings as Knex.RawBinding[])) as { rows: unknown[] };
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

/** Options of the delivery jobs: a job lives at most a minute per fetch; a crashed worker's job comes back. */
export const ATTEMPT_JOB_OPTIONS = { retryLimit: 5, retryDelay: 30, expireInSeconds: 60 } as const;

/**
 * Inserts attempt jobs inside `trx` (the caller's transaction), each to start at its `startAfter`.
 * @param jobs `startAfter` undefined: at once.
 */
export async function enqueueAttempts(trx: DbHandle, jobs: ReadonlyArray<AttemptJob & { startAfter?: Date | undefined }>): Promise<void> {
  if (jobs.length === 0) return;
  await jobSender().insert(
    jobs.map(({ startAfter, ...data }) => ({
      name: DELIVERY_QUEUE,
      data,
      ...(startAfter ? { startAfter: startAfter.toISOString() } : {}),
      ...ATTEMPT_JOB_OPTIONS,
    })) as never,
    { db: knexExecutor(trx) } as never,
  );
}

export { PgBoss, type PgBossInstance };
