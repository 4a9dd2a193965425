/**
 * Folded change marks (issue 28's finding on conditional requests; docs/api-rules.md, "Conditional requests";
 * src/core/changes/change-marks.store.ts).
 *
 * - `change_totals`: per workspace, how many change marks were folded out of `change_marks`. A workspace's change
 *   version is `folded` plus the marks still in `change_marks`: the number of marks it ever got. The fold (every second
 *   in `serve`) deletes marks and adds them to `folded` in one statement, so no reader sees a version move; readers
 *   count only the marks of the last second or so instead of every mark of the last day (migration 027's `base` read
 *   scanned all of them: 40 ms a GET after 70,000 writes).
 * - The marks already there are folded now; `change_marks_prune_idx` goes (nothing reads marks by age any more, and
 *   every write saves an index entry).
 * Down: the table goes and the index comes back; every tag changes once (a full answer, never a stale 304).
 */
import type { Knex } from 'knex';
import { runSqlScript } from './sql-script';

const SQL_UP = String.raw`
CREATE TABLE IF NOT EXISTS change_totals (
  workspace_id text PRIMARY KEY,
  folded       bigint NOT NULL DEFAULT 0
);
WITH gone AS (DELETE FROM change_marks RETURNING workspace_id)
INSERT INTO change_totals (workspace_id, folded)
SELECT workspace_id, count(*) FROM gone GROUP BY workspace_id
ON CONFLICT (workspace_id) DO UPDATE SET folded = change_totals.folded + EXCLUDED.folded;
DROP INDEX IF EXISTS change_marks_prune_idx;
`;

const SQL_DOWN = String.raw`
CREATE INDEX IF NOT EXISTS change_marks_prune_idx ON change_marks (created_at);
DROP TABLE IF EXISTS change_totals;
`;

export async function up(knex: Knex): Promise<void> {
  await runSqlScript(knex, SQL_UP);
}

export async function down(knex: Knex): Promise<void> {
  await runSqlScript(knex, SQL_DOWN);
}
