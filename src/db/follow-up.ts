/**
 * Follow-up transactions: short work that must run after a write commits, in a transaction of its own, once at a
 * time per key and process, so writes never wait for each other on it (the audit trail's seal, docs/security.md,
 * "The audit trail"; docs/decisions.md, "Who opens transactions").
 *
 * A run is single-flight and coalesced: while one run of a key is under way, any number of new requests for that key
 * are served by ONE more run that starts after it, so every request is answered by a run that began after it was
 * made (and so sees what was committed before it). Runs of different keys go side by side.
 *
 * A run may first gather (`gatherMs`): it waits that long before its first transaction, and every request made
 * meanwhile is served by it, so a burst of commits costs one run instead of one per commit (issue 28: the audit
 * seal ran once per ~13 row writes under load, 5 statements each). A request that asks for no gathering (a reader
 * that needs the work done now) ends the wait at once; so does settleFollowUps.
 */
import type { Knex } from 'knex';
import type { Db, DbTransaction } from './index';

/** One transaction of follow-up work; resolves true when more is left (the run then opens another transaction). */
export type FollowUpWork = (trx: DbTransaction) => Promise<boolean>;

interface Run {
  done: Promise<void>;
  again: boolean;
  /** Ends the gathering wait now (a no-op once the first transaction has begun). */
  wake: () => void;
  /** Whether the first transaction has begun: a request made before that is served by the first pass. */
  started: boolean;
}

/** Options of a follow-up request. */
export interface FollowUpOptions {
  /** Milliseconds a new run waits before its first transaction, gathering more requests; 0 (default): none. */
  gatherMs?: number;
}

const runsByDb = new WeakMap<Db, Map<string, Run>>();
const hooksByTrx = new WeakMap<Knex.Transaction, Array<(db: Db) => void>>();

function runsOf(db: Db): Map<string, Run> {
  let runs = runsByDb.get(db);
  if (!runs) runsByDb.set(db, (runs = new Map<string, Run>()));
  return runs;
}

/**
 * Runs `work` for `key` in transactions of its own until it reports nothing left, or joins the run already under way
 * (then one more run follows it, unless the run is still gathering: its first pass then serves this request too).
 * @param opts.gatherMs a new run's wait before its first transaction; a request without it ends a gathering wait.
 * @returns resolves when a run that started after this call has finished; rejects with that run's error.
 */
export function runFollowUp(db: Db, key: string, work: FollowUpWork, opts: FollowUpOptions = {}): Promise<void> {
  const gatherMs = opts.gatherMs ?? 0;
  const runs = runsOf(db);
  const current = runs.get(key);
  if (current) {
    if (!current.started) {
      if (gatherMs === 0) current.wake();
    } else current.again = true;
    return current.done;
  }
  const run: Run = { again: false, done: Promise.resolve(), wake: () => undefined, started: false };
  const gathered =
    gatherMs > 0
      ? new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, gatherMs);
          run.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        })
      : undefined;
  run.done = (async () => {
    try {
      if (gathered) await gathered;
      run.started = true;
      // A request made while this run was under way needs a run that starts after it: loop once more.
      for (let first = true; first || run.again; first = false) {
        run.again = false;
        while (await db.transaction(work)) {
          /* more is left: another short transaction */
        }
      }
    } finally {
      runs.delete(key);
    }
  })();
  runs.set(key, run);
  return run.done;
}

/** Waits for every follow-up run of `db` under way in this process (their errors ignored): before closing the database. */
export async function settleFollowUps(db: Db): Promise<void> {
  for (;;) {
    const runs = [...runsOf(db).values()];
    if (runs.length === 0) return;
    for (const run of runs) run.wake();
    await Promise.allSettled(runs.map((r) => r.done));
  }
}

/** Called by withTransaction: the list its hooks go to while `trx` is open. */
export function trackCommitHooks(trx: Knex.Transaction, hooks: Array<(db: Db) => void>): void {
  hooksByTrx.set(trx, hooks);
}

/** Hands a hook of a savepoint's transaction to its outer transaction (withTransaction inside a transaction). */
export function forwardCommitHook(outer: Knex.Transaction, hook: (db: Db) => void): void {
  hooksByTrx.get(outer)?.push(hook);
}

/**
 * Starts `work` for `key` (runFollowUp, not awaited) once `trx` has committed; nothing when it rolls back. Only a
 * transaction opened by withTransaction carries hooks: in any other the work is not started here (returns false),
 * and the caller's periodic sweep must do it.
 * @param onError what to do with a failed run (the work is left for the sweep either way).
 * @param opts.gatherMs as runFollowUp's: how long a new run waits for more commits before its first transaction.
 */
export function afterCommit(
  trx: DbTransaction,
  key: string,
  work: FollowUpWork,
  onError: (e: unknown) => void = () => undefined,
  opts: FollowUpOptions = {},
): boolean {
  const hooks = hooksByTrx.get(trx);
  if (!hooks) return false;
  hooks.push((db) => void runFollowUp(db, key, work, opts).catch(onError));
  return true;
}
