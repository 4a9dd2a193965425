/**
 * The workspace change version (issue 31 item 4; docs/api-rules.md, "Conditional requests"): the store of
 * `change_marks` (migration 027). Statement-level triggers on every table an answer reads append one mark per
 * workspace and writing transaction (`xid`, its top-level id), whoever writes: API, worker, CLI, import, migration.
 * Writers never wait for each other: a mark's key is its own transaction's, so no row is locked by two writers.
 *
 * The version of a set of workspaces, read in ONE statement (one snapshot), is (`base`, `since`): `base` the newest mark
 * that is settled (its `xid` below `pg_snapshot_xmin(pg_current_snapshot())`: its transaction, and every one below it,
 * has ended) and at least SETTLE_AFTER old, and `since` how many visible marks are above `base`. Why it is safe,
 * although transactions commit out of order (the event log's rule, docs/live.md, "Positions"): the marks at or below a
 * settled `base` never change again, and visible marks are only ever added (the prune removes none at or above any
 * `base`); so two reads with the same `base` and `since` saw the same marks, whatever the order of commits. An answer
 * read after its version holds every change the version covers, and a change committed later adds a mark above `base`
 * (or moves `base`): the version moves, never a stale 304. The version also moves once without a change, when a
 * mark ages past SETTLE_AFTER and becomes the new `base`: one extra full answer a minute after a burst of writes, and
 * none for a workspace nobody writes, whatever runs elsewhere on the server. `since` counts the marks of the last
 * minute or so: cheap on the primary key.
 */
import type { DbHandle } from '../../db';
import type { BatchOptions } from '../../db/batches';
import { deleteInBatches } from '../../db/batches';
import { DAY_MS } from '../query/dates';

const XMIN = 'pg_snapshot_xmin(pg_current_snapshot())';

/** How old a settled mark must be to become a version's `base` (see above). */
export const SETTLE_AFTER = "interval '1 minute'";

/**
 * The change version of a set of workspaces (one for a workspace's answers; the key's workspaces for the list of them),
 * read in one statement on the database that will answer (a replica's own, with read replicas).
 * @returns an opaque string, `<base xid>.<marks since>`, equal for two reads only if they saw the same changes.
 */
export async function changeVersion(db: DbHandle, workspaceIds: readonly string[]): Promise<string> {
  const ids = [...workspaceIds];
  const { rows } = (await db.raw(VERSION_SQL, [ids, ids])) as { rows: Array<{ base: string | null; since: string | number }> };
  return `${rows[0]?.base ?? 0}.${rows[0]?.since ?? 0}`;
}

// One constant statement (built once, not by the query builder per request: it runs before every conditional GET).
const VERSION_SQL = `SELECT base.b::text AS base,
       (SELECT count(*) FROM change_marks WHERE workspace_id = ANY(?) AND xid > coalesce(base.b, '0'::xid8)) AS since
  FROM (SELECT max(xid) FROM change_marks
         WHERE workspace_id = ANY(?) AND created_at < now() - ${SETTLE_AFTER} AND xid < ${XMIN}) AS base(b)`;

/** How long marks are kept before the prune may drop them (a workspace's newest settled mark always stays). */
export const CHANGE_MARK_KEEP_MS = DAY_MS;

/**
 * Deletes marks older than CHANGE_MARK_KEEP_MS before `now`, in batches, only those below a newer settled mark that is
 * as old: so every mark deleted is below any `base` a reader takes from then on, and no version changes
 * (docs/operations.md, "What grows, and what bounds it").
 * @returns the marks deleted.
 */
export function pruneChangeMarks(db: DbHandle, now: Date, opts: BatchOptions = {}): Promise<number> {
  const before = new Date(now.getTime() - CHANGE_MARK_KEEP_MS);
  return deleteInBatches(async (limit) => {
    const { rows } = (await db.raw(
      `WITH gone AS (
         DELETE FROM change_marks WHERE (workspace_id, xid) IN (
           SELECT o.workspace_id, o.xid FROM change_marks o
            WHERE o.created_at < ? AND o.xid < ${XMIN}
              AND EXISTS (SELECT 1 FROM change_marks n WHERE n.workspace_id = o.workspace_id AND n.xid > o.xid
                                                          AND n.xid < ${XMIN} AND n.created_at < ?)
            ORDER BY o.created_at LIMIT ?)
         RETURNING 1)
       SELECT count(*) AS n FROM gone`,
      [before, before, limit],
    )) as { rows: Array<{ n: string | number }> };
    return Number(rows[0]?.n ?? 0);
  }, opts);
}
