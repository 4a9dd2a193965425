/**
 * The workspace change version (issue 31 item 4; docs/api-rules.md, "Conditional requests"): the store of
 * `change_marks` (migration 027) and `change_totals` (migration 030). Statement-level triggers on every table an answer
 * reads append one mark per workspace and writing transaction (`xid`, its top-level id), whoever writes: API, worker,
 * CLI, import, migration. Writers never wait for each other: a mark's key is its own transaction's, so no row is locked
 * by two writers.
 *
 * The version of a set of workspaces is the number of marks they ever got: the marks folded into `change_totals` plus
 * those still in `change_marks`, read in ONE statement (one snapshot). Why one number is enough, although transactions
 * commit out of order: the marks a snapshot sees only ever grow (a committed mark never goes away; the fold moves it
 * from one table to the other in one statement), so two reads that count the same number saw the same marks. An answer
 * read after its version holds every change the version covers, and any later commit adds a mark: the version moves,
 * never a stale 304; nothing else moves it (no clock, no other workspace, no long transaction elsewhere).
 *
 * The fold (foldChangeMarks, every FOLD_EVERY_MS in `serve`: platform/change-fold.ts) keeps `change_marks` to the last
 * second or so of writes, so a version read counts a few index entries, whatever the write rate.
 */
import { runPrepared, type DbHandle, type PreparedStatement } from '../../db';
import { deleteInBatches, type BatchOptions } from '../../db/batches';

/**
 * The change version of a set of workspaces (one for a workspace's answers; the key's workspaces for the list of them),
 * read in one statement on the database that will answer (a replica's own, with read replicas).
 * @returns an opaque string (a decimal count), equal for two reads only if they saw the same changes.
 */
export async function changeVersion(db: DbHandle, workspaceIds: readonly string[]): Promise<string> {
  const ids = [...workspaceIds];
  const { rows } = (await runPrepared(db, VERSION, [ids, ids])) as { rows: Array<{ version: string | number }> };
  return String(rows[0]?.version ?? 0);
}

// One constant statement, prepared (parsed and planned once per connection: it runs before every conditional GET).
const VERSION: PreparedStatement = {
  name: 'change_version',
  sql: `SELECT (SELECT coalesce(sum(folded), 0) FROM change_totals WHERE workspace_id = ANY(?::text[]))
     + (SELECT count(*) FROM change_marks WHERE workspace_id = ANY(?::text[])) AS version`,
};

/** How often `serve` folds (platform/change-fold.ts). */
export const FOLD_EVERY_MS = 1000;

/**
 * Moves every committed mark into its workspace's `change_totals` count, in statements of at most `batchSize` marks
 * (default 10,000), each deleting its marks and adding them to the totals at once, so no version moves. Safe beside
 * writers (their uncommitted marks are not seen) and beside another fold (a mark deleted by the other is skipped, and
 * the totals row takes the two additions in turn).
 * @returns the marks folded.
 */
export function foldChangeMarks(db: DbHandle, opts: BatchOptions = {}): Promise<number> {
  return deleteInBatches(
    async (limit) => {
      const { rows } = (await db.raw(
        `WITH gone AS (
           DELETE FROM change_marks WHERE (workspace_id, xid) IN (SELECT workspace_id, xid FROM change_marks LIMIT ?)
           RETURNING workspace_id
         ), added AS (
           INSERT INTO change_totals AS t (workspace_id, folded)
           SELECT workspace_id, count(*) FROM gone GROUP BY workspace_id
           ON CONFLICT (workspace_id) DO UPDATE SET folded = t.folded + EXCLUDED.folded
         )
         SELECT count(*)::int AS n FROM gone`,
        [limit],
      )) as { rows: Array<{ n: number }> };
      return Number(rows[0]?.n ?? 0);
    },
    { batchSize: 10_000, pauseMs: 0, ...opts },
  );
}
