"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.up = up;
exports.down = down;
const sql_script_1 = require("./sql-script");
const SQL_UP = String.raw `
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
const SQL_DOWN = String.raw `
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
async function up(knex) {
    await (0, sql_script_1.runSqlScript)(knex, SQL_UP);
}
async function down(knex) {
    await (0, sql_script_1.runSqlScript)(knex, SQL_DOWN);
}
//# sourceMappingURL=20261124_006_deep_pages.js.map