/**
 * Deep Style B pages (issue 11, deliverable 3; docs/data-model.md, "Deep Style B pages").
 *
 * - `response_day_counts`: per (workspace, form, UTC day, score) the number of responses, kept by
 *   statement-level triggers like `response_counts`. A page deep in a list narrowed only by form and
 *   score, in created_at order, finds the day its first row falls on from these counts (a running sum
 *   over a few hundred counter rows) and skips only the rows of that one day, instead of walking the
 *   whole offset through the index.
 * - The two created_at keyset indexes of `responses` carry `score` (and `form_id` on the workspace
 *   one) as INCLUDE columns: the rows skipped inside that day, and a count or offset that the counters
 *   cannot answer, are then an index-only scan filtered by score, not a heap fetch per skipped row.
 *   They replace the indexes of 001 under the same names (same key columns: every query that used
 *   them still does), so the number of indexes a write maintains stays the same.
 */
import type { Knex } from 'knex';
import { runSqlScript } from './sql-script';

const SQL_UP = String.raw`
CREATE TABLE IF NOT EXISTS response_day_counts (
  workspace_id  text NOT NULL,
  form_id       text NOT NULL,
  day           date NOT NULL,
  score         double precision NOT NULL,
  responses     bigint NOT NULL,
  PRIMARY KEY (workspace_id, form_id, day, score)
);
-- Lists of the whole workspace read the days newest first across forms.
CREATE INDEX IF NOT EXISTS response_day_counts_day_idx ON response_day_counts (workspace_id, day);

CREATE OR REPLACE FUNCTION response_day_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO response_day_counts AS c (workspace_id, form_id, day, score, responses)
      SELECT workspace_id, form_id, (created_at AT TIME ZONE 'UTC')::date, score, count(*)
        FROM new_rows GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
    ON CONFLICT (workspace_id, form_id, day, score) DO UPDATE SET responses = c.responses + EXCLUDED.responses;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO response_day_counts AS c (workspace_id, form_id, day, score, responses)
      SELECT workspace_id, form_id, (created_at AT TIME ZONE 'UTC')::date, score, -count(*)
        FROM old_rows GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
    ON CONFLICT (workspace_id, form_id, day, score) DO UPDATE SET responses = c.responses + EXCLUDED.responses;
  ELSE
    -- Old rows out, new rows in; groups that net to zero (an update that leaves form, day and score
    -- alone, such as the row_id = NULL of a deleted datatable row) write nothing.
    INSERT INTO response_day_counts AS c (workspace_id, form_id, day, score, responses)
      SELECT workspace_id, form_id, (created_at AT TIME ZONE 'UTC')::date, score, sum(sign)
        FROM (SELECT workspace_id, form_id, created_at, score, -1 AS sign FROM old_rows
              UNION ALL
              SELECT workspace_id, form_id, created_at, score, 1 AS sign FROM new_rows) AS d
       GROUP BY 1, 2, 3, 4 HAVING sum(sign) <> 0 ORDER BY 1, 2, 3, 4
    ON CONFLICT (workspace_id, form_id, day, score) DO UPDATE SET responses = c.responses + EXCLUDED.responses;
  END IF;
  RETURN NULL;
END
$fn$;

-- Triggers first: CREATE TRIGGER locks out concurrent writers until this migration commits, so the
-- backfill below sees every response and counts none twice.
DROP TRIGGER IF EXISTS responses_day_counts_insert ON responses;
CREATE TRIGGER responses_day_counts_insert AFTER INSERT ON responses
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION response_day_counts_apply();
DROP TRIGGER IF EXISTS responses_day_counts_update ON responses;
CREATE TRIGGER responses_day_counts_update AFTER UPDATE ON responses
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION response_day_counts_apply();
DROP TRIGGER IF EXISTS responses_day_counts_delete ON responses;
CREATE TRIGGER responses_day_counts_delete AFTER DELETE ON responses
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION response_day_counts_apply();

-- Written in day order, as later writes append them: the days of a list sit on a few pages.
DELETE FROM response_day_counts;
INSERT INTO response_day_counts (workspace_id, form_id, day, score, responses)
  SELECT workspace_id, form_id, (created_at AT TIME ZONE 'UTC')::date, score, count(*)
    FROM responses GROUP BY 1, 2, 3, 4 ORDER BY 1, 3, 2, 4;
ANALYZE response_day_counts;

DROP INDEX IF EXISTS responses_keyset_created_idx;
CREATE INDEX responses_keyset_created_idx ON responses (workspace_id, created_at DESC, id DESC) INCLUDE (form_id, score);
DROP INDEX IF EXISTS responses_form_keyset_created_idx;
CREATE INDEX responses_form_keyset_created_idx ON responses (workspace_id, form_id, created_at DESC, id DESC) INCLUDE (score);
`;

const SQL_DOWN = String.raw`
DROP INDEX IF EXISTS responses_keyset_created_idx;
CREATE INDEX responses_keyset_created_idx ON responses (workspace_id, created_at DESC, id DESC);
DROP INDEX IF EXISTS responses_form_keyset_created_idx;
CREATE INDEX responses_form_keyset_created_idx ON responses (workspace_id, form_id, created_at DESC, id DESC);
DROP TRIGGER IF EXISTS responses_day_counts_insert ON responses;
DROP TRIGGER IF EXISTS responses_day_counts_update ON responses;
DROP TRIGGER IF EXISTS responses_day_counts_delete ON responses;
DROP FUNCTION IF EXISTS response_day_counts_apply();
DROP TABLE IF EXISTS response_day_counts;
`;

export async function up(knex: Knex): Promise<void> {
  await runSqlScript(knex, SQL_UP);
}

export async function down(knex: Knex): Promise<void> {
  await runSqlScript(knex, SQL_DOWN);
}
