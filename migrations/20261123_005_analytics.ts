/**
 * Analytics rollups and API key usage (issue 10, docs/analytics.md, "Rollups kept with the writes").
 *
 * - `answer_rollups`: per (workspace, form, UTC day, question, value key) the number of answers. The
 *   value key is `''` for "answered" (one per response that answered the question), the option id for
 *   each chosen option of a choice question, and the numeric value (scale trimmed) of nps, rating and
 *   number answers. `response_answer_keys(answers)` is the one expansion of a stored `answers` array
 *   into these keys: the triggers, the backfill and the analytics reads of partial days all use it.
 * - `response_daily`: per (workspace, form, UTC day) the responses and the sum of their scores.
 * - Both are kept by statement-level triggers on `responses` (transition tables, aggregated per
 *   statement, applied in key order), so every way a response arrives (import, submissions,
 *   backfills: all INSERTs) counts in the write's own transaction. An UPDATE only moves the rows whose
 *   form, time, score or answers changed: the `row_id = NULL` that deleting a linked datatable row
 *   makes changes nothing here. Counts that reach 0 stay as rows with 0; reads ignore them.
 * - `api_key_usage`: requests per key, UTC day and answer style (migration insight), written by the
 *   platform's usage counter with an additive upsert.
 */
import type { Knex } from 'knex';
import { runSqlScript } from './sql-script';

const SQL_UP = String.raw`
CREATE TABLE IF NOT EXISTS answer_rollups (
  workspace_id  text NOT NULL,
  form_id       text NOT NULL,
  day           date NOT NULL,
  question_id   text NOT NULL,
  value_key     text NOT NULL,
  answers       bigint NOT NULL,
  PRIMARY KEY (workspace_id, form_id, day, question_id, value_key)
);

CREATE TABLE IF NOT EXISTS response_daily (
  workspace_id  text NOT NULL,
  form_id       text NOT NULL,
  day           date NOT NULL,
  responses     bigint NOT NULL,
  score_sum     numeric NOT NULL,
  PRIMARY KEY (workspace_id, form_id, day)
);

CREATE TABLE IF NOT EXISTS api_key_usage (
  api_key_id  text NOT NULL,
  day         date NOT NULL,
  style       text NOT NULL CHECK (style IN ('A', 'B')),
  requests    bigint NOT NULL,
  PRIMARY KEY (api_key_id, day, style)
);

-- The value keys of one stored answers array: ('', answered) per answer, plus an option id per chosen
-- option, plus the number of a numeric answer.
CREATE OR REPLACE FUNCTION response_answer_keys(answers jsonb) RETURNS TABLE (question_id text, value_key text)
LANGUAGE sql IMMUTABLE AS $fn$
  SELECT a ->> 'question_id', k.value_key
    FROM jsonb_array_elements(CASE jsonb_typeof(answers) WHEN 'array' THEN answers ELSE '[]'::jsonb END) AS a
    CROSS JOIN LATERAL (
      SELECT ''::text AS value_key
      UNION ALL
      SELECT e ->> 'id'
        FROM jsonb_array_elements(CASE jsonb_typeof(a -> 'value')
                                    WHEN 'array' THEN a -> 'value'
                                    WHEN 'object' THEN jsonb_build_array(a -> 'value')
                                    ELSE '[]'::jsonb END) AS e
       WHERE jsonb_typeof(e) = 'object' AND jsonb_typeof(e -> 'id') = 'string'
      UNION ALL
      SELECT trim_scale((a ->> 'value')::numeric)::text WHERE jsonb_typeof(a -> 'value') = 'number'
    ) AS k
   WHERE jsonb_typeof(a) = 'object' AND jsonb_typeof(a -> 'question_id') = 'string'
$fn$;

CREATE OR REPLACE FUNCTION response_rollups_apply() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO response_daily AS c (workspace_id, form_id, day, responses, score_sum)
      SELECT workspace_id, form_id, (created_at AT TIME ZONE 'UTC')::date, count(*), sum(score::numeric)
        FROM new_rows GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
    ON CONFLICT (workspace_id, form_id, day) DO UPDATE
      SET responses = c.responses + EXCLUDED.responses, score_sum = c.score_sum + EXCLUDED.score_sum;
    INSERT INTO answer_rollups AS c (workspace_id, form_id, day, question_id, value_key, answers)
      SELECT r.workspace_id, r.form_id, (r.created_at AT TIME ZONE 'UTC')::date, k.question_id, k.value_key, count(*)
        FROM new_rows r CROSS JOIN LATERAL response_answer_keys(r.answers) k
       GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (workspace_id, form_id, day, question_id, value_key) DO UPDATE SET answers = c.answers + EXCLUDED.answers;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO response_daily AS c (workspace_id, form_id, day, responses, score_sum)
      SELECT workspace_id, form_id, (created_at AT TIME ZONE 'UTC')::date, -count(*), -sum(score::numeric)
        FROM old_rows GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
    ON CONFLICT (workspace_id, form_id, day) DO UPDATE
      SET responses = c.responses + EXCLUDED.responses, score_sum = c.score_sum + EXCLUDED.score_sum;
    INSERT INTO answer_rollups AS c (workspace_id, form_id, day, question_id, value_key, answers)
      SELECT r.workspace_id, r.form_id, (r.created_at AT TIME ZONE 'UTC')::date, k.question_id, k.value_key, -count(*)
        FROM old_rows r CROSS JOIN LATERAL response_answer_keys(r.answers) k
       GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (workspace_id, form_id, day, question_id, value_key) DO UPDATE SET answers = c.answers + EXCLUDED.answers;
  ELSE
    -- Only rows whose counted columns changed move; a row_id set to NULL (linked row deleted) moves nothing.
    INSERT INTO response_daily AS c (workspace_id, form_id, day, responses, score_sum)
      SELECT workspace_id, form_id, (created_at AT TIME ZONE 'UTC')::date, sum(sign), sum(sign * score::numeric)
        FROM (
          SELECT o.workspace_id, o.form_id, o.created_at, o.score, -1 AS sign FROM old_rows o
           WHERE NOT EXISTS (SELECT 1 FROM new_rows n WHERE n.workspace_id = o.workspace_id AND n.id = o.id
                               AND n.form_id = o.form_id AND n.created_at = o.created_at AND n.score = o.score)
          UNION ALL
          SELECT n.workspace_id, n.form_id, n.created_at, n.score, 1 AS sign FROM new_rows n
           WHERE NOT EXISTS (SELECT 1 FROM old_rows o WHERE n.workspace_id = o.workspace_id AND n.id = o.id
                               AND n.form_id = o.form_id AND n.created_at = o.created_at AND n.score = o.score)
        ) AS d
       GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
    ON CONFLICT (workspace_id, form_id, day) DO UPDATE
      SET responses = c.responses + EXCLUDED.responses, score_sum = c.score_sum + EXCLUDED.score_sum;
    INSERT INTO answer_rollups AS c (workspace_id, form_id, day, question_id, value_key, answers)
      SELECT d.workspace_id, d.form_id, (d.created_at AT TIME ZONE 'UTC')::date, k.question_id, k.value_key, sum(d.sign)
        FROM (
          SELECT o.workspace_id, o.form_id, o.created_at, o.answers, -1 AS sign FROM old_rows o
           WHERE NOT EXISTS (SELECT 1 FROM new_rows n WHERE n.workspace_id = o.workspace_id AND n.id = o.id
                               AND n.form_id = o.form_id AND n.created_at = o.created_at AND n.answers = o.answers)
          UNION ALL
          SELECT n.workspace_id, n.form_id, n.created_at, n.answers, 1 AS sign FROM new_rows n
           WHERE NOT EXISTS (SELECT 1 FROM old_rows o WHERE n.workspace_id = o.workspace_id AND n.id = o.id
                               AND n.form_id = o.form_id AND n.created_at = o.created_at AND n.answers = o.answers)
        ) AS d CROSS JOIN LATERAL response_answer_keys(d.answers) k
       GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (workspace_id, form_id, day, question_id, value_key) DO UPDATE SET answers = c.answers + EXCLUDED.answers;
  END IF;
  RETURN NULL;
END
$fn$;

-- Triggers first: CREATE TRIGGER locks out concurrent writers until this migration commits, so the
-- backfill below sees every response and no response is counted twice or missed.
DROP TRIGGER IF EXISTS responses_rollups_insert ON responses;
CREATE TRIGGER responses_rollups_insert AFTER INSERT ON responses
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION response_rollups_apply();
DROP TRIGGER IF EXISTS responses_rollups_update ON responses;
CREATE TRIGGER responses_rollups_update AFTER UPDATE ON responses
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION response_rollups_apply();
DROP TRIGGER IF EXISTS responses_rollups_delete ON responses;
CREATE TRIGGER responses_rollups_delete AFTER DELETE ON responses
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION response_rollups_apply();

DELETE FROM response_daily;
DELETE FROM answer_rollups;
INSERT INTO response_daily (workspace_id, form_id, day, responses, score_sum)
  SELECT workspace_id, form_id, (created_at AT TIME ZONE 'UTC')::date, count(*), sum(score::numeric)
    FROM responses GROUP BY 1, 2, 3;
INSERT INTO answer_rollups (workspace_id, form_id, day, question_id, value_key, answers)
  SELECT r.workspace_id, r.form_id, (r.created_at AT TIME ZONE 'UTC')::date, k.question_id, k.value_key, count(*)
    FROM responses r CROSS JOIN LATERAL response_answer_keys(r.answers) k
   GROUP BY 1, 2, 3, 4, 5;
`;

const SQL_DOWN = String.raw`
DROP TRIGGER IF EXISTS responses_rollups_insert ON responses;
DROP TRIGGER IF EXISTS responses_rollups_update ON responses;
DROP TRIGGER IF EXISTS responses_rollups_delete ON responses;
DROP FUNCTION IF EXISTS response_rollups_apply();
DROP FUNCTION IF EXISTS response_answer_keys(jsonb);
DROP TABLE IF EXISTS answer_rollups, response_daily, api_key_usage;
`;

export async function up(knex: Knex): Promise<void> {
  await runSqlScript(knex, SQL_UP);
}

export async function down(knex: Knex): Promise<void> {
  await runSqlScript(knex, SQL_DOWN);
}
