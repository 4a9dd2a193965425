/**
 * Keywords of text answers (issue 29 item 4; docs/analytics.md, "Keywords"; src/core/analytics/keywords.store.ts).
 *
 * - `keyword_private(term)`: whether a lexeme looks like an email address, a URL, a host or file name or a long
 *   number: it holds `@`, `/` or `:`, a dot between two letters or digits, or five digits or more. Such terms are
 *   never counted (the privacy rule of shared pages, docs/analytics.md, "Keywords").
 * - `response_keyword_terms(answers, language)`: the terms of one stored response, one row per (text answer, term):
 *   the answer's question, the term, and the answer's sentiment score (null when it has none). A term is a lexeme of
 *   `to_tsvector(response_search_config(language), value)` (stemmed, the language's stop words removed, the same
 *   configuration as the search vector of migration 014), or a two-word phrase: two lexemes at adjacent positions
 *   (a stop word between them breaks the pair, since it keeps its position). An answer counts a term once however
 *   often it holds it. The triggers, the backfill below and the reads of partial days all use this one function.
 * - `keyword_rollups`: per (workspace, form, UTC day, question, term) the answers that hold the term, how many of
 *   them have a sentiment score, and the sum of those scores (numeric: scores have 3 decimals, so sums stay exact
 *   through deletes). Kept by statement-level triggers on `responses` like `answer_rollups` (migration 005): every
 *   INSERT, DELETE (single, bulk, retention, erasure) and UPDATE of answers, language, form or time moves the rows in
 *   the writing transaction. Counts that reach 0 stay as rows with 0; reads ignore them.
 * - `keyword_rollups_monthly`: the same per UTC month (`month` = its first day), moved by the same statements
 *   (`keyword_rollups_add` applies one signed per-day delta to both): a read over many months sums one row per month
 *   and term instead of one per day and term.
 *
 * Existing responses: the triggers are created first (CREATE TRIGGER locks out concurrent writers until this
 * migration commits), then one set-based INSERT … SELECT fills the rollup from every response; at 1,000,000 responses
 * that is one pass of to_tsvector over the text answers (minutes): run it in a maintenance window.
 */
import type { Knex } from 'knex';
import { runSqlScript } from './sql-script';

const SQL_UP = String.raw`
CREATE TABLE IF NOT EXISTS keyword_rollups (
  workspace_id   text NOT NULL,
  form_id        text NOT NULL,
  day            date NOT NULL,
  question_id    text NOT NULL,
  term           text NOT NULL,
  answers        bigint NOT NULL,
  scored         bigint NOT NULL,
  sentiment_sum  numeric NOT NULL,
  PRIMARY KEY (workspace_id, form_id, day, question_id, term)
);

CREATE TABLE IF NOT EXISTS keyword_rollups_monthly (
  workspace_id   text NOT NULL,
  form_id        text NOT NULL,
  month          date NOT NULL,
  question_id    text NOT NULL,
  term           text NOT NULL,
  answers        bigint NOT NULL,
  scored         bigint NOT NULL,
  sentiment_sum  numeric NOT NULL,
  PRIMARY KEY (workspace_id, form_id, month, question_id, term)
);

CREATE OR REPLACE FUNCTION keyword_private(term text) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
  SELECT term ~ '[@/:]' OR term ~ '[[:alnum:]][.][[:alnum:]]' OR length(regexp_replace(term, '[^0-9]', '', 'g')) >= 5
$fn$;

CREATE OR REPLACE FUNCTION response_keyword_terms(answers jsonb, language text)
RETURNS TABLE (question_id text, term text, sentiment numeric)
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
  WITH a AS (
    SELECT e.n, e.v ->> 'question_id' AS question_id,
           to_tsvector(response_search_config(language), e.v ->> 'value') AS vec,
           CASE WHEN jsonb_typeof(e.v -> 'sentiment' -> 'score') = 'number' THEN (e.v -> 'sentiment' ->> 'score')::numeric END AS s
      FROM jsonb_array_elements(CASE WHEN jsonb_typeof(answers) = 'array' THEN answers ELSE '[]'::jsonb END) WITH ORDINALITY AS e(v, n)
     WHERE e.v ->> 'type' = 'text' AND jsonb_typeof(e.v -> 'value') = 'string' AND jsonb_typeof(e.v -> 'question_id') = 'string'
  ), w AS (
    SELECT a.n, a.question_id, a.s, u.lexeme, p.pos
      FROM a CROSS JOIN LATERAL unnest(a.vec) AS u(lexeme, positions, weights)
      CROSS JOIN LATERAL unnest(u.positions) AS p(pos)
     WHERE NOT keyword_private(u.lexeme)
  )
  SELECT DISTINCT t.question_id, t.term, t.s
    FROM (
      SELECT w.n, w.question_id, w.lexeme AS term, w.s FROM w
      UNION ALL
      SELECT x.n, x.question_id, x.lexeme || ' ' || y.lexeme, x.s FROM w AS x JOIN w AS y ON y.n = x.n AND y.pos = x.pos + 1
    ) AS t
$fn$;

-- Adds signed per-day term counts (a statement's, or the backfill's) to both rollups, in key order.
CREATE OR REPLACE FUNCTION keyword_rollups_add(delta jsonb) RETURNS void LANGUAGE sql AS $fn$
  WITH d AS (
    SELECT x.workspace_id, x.form_id, x.day, x.question_id, x.term, x.answers, x.scored, x.sentiment_sum
      FROM jsonb_to_recordset(delta) AS x(workspace_id text, form_id text, day date, question_id text, term text,
                                          answers bigint, scored bigint, sentiment_sum numeric)
  ), daily AS (
    INSERT INTO keyword_rollups AS c (workspace_id, form_id, day, question_id, term, answers, scored, sentiment_sum)
      SELECT * FROM d ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (workspace_id, form_id, day, question_id, term) DO UPDATE
      SET answers = c.answers + EXCLUDED.answers, scored = c.scored + EXCLUDED.scored, sentiment_sum = c.sentiment_sum + EXCLUDED.sentiment_sum
    RETURNING 1
  )
  INSERT INTO keyword_rollups_monthly AS c (workspace_id, form_id, month, question_id, term, answers, scored, sentiment_sum)
    SELECT workspace_id, form_id, date_trunc('month', day)::date, question_id, term, sum(answers), sum(scored), sum(sentiment_sum)
      FROM d GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5
  ON CONFLICT (workspace_id, form_id, month, question_id, term) DO UPDATE
    SET answers = c.answers + EXCLUDED.answers, scored = c.scored + EXCLUDED.scored, sentiment_sum = c.sentiment_sum + EXCLUDED.sentiment_sum
$fn$;

CREATE OR REPLACE FUNCTION keyword_rollups_apply() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
  delta jsonb;
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT jsonb_agg(t) INTO delta FROM (
      SELECT r.workspace_id, r.form_id, (r.created_at AT TIME ZONE 'UTC')::date AS day, k.question_id, k.term,
             count(*) AS answers, count(k.sentiment) AS scored, coalesce(sum(k.sentiment), 0) AS sentiment_sum
        FROM new_rows r CROSS JOIN LATERAL response_keyword_terms(r.answers, r.language) k
       GROUP BY 1, 2, 3, 4, 5) AS t;
  ELSIF TG_OP = 'DELETE' THEN
    SELECT jsonb_agg(t) INTO delta FROM (
      SELECT r.workspace_id, r.form_id, (r.created_at AT TIME ZONE 'UTC')::date AS day, k.question_id, k.term,
             -count(*) AS answers, -count(k.sentiment) AS scored, -coalesce(sum(k.sentiment), 0) AS sentiment_sum
        FROM old_rows r CROSS JOIN LATERAL response_keyword_terms(r.answers, r.language) k
       GROUP BY 1, 2, 3, 4, 5) AS t;
  ELSE
    -- Only rows whose counted columns changed move (a row_id set to NULL moves nothing).
    SELECT jsonb_agg(t) INTO delta FROM (
      SELECT d.workspace_id, d.form_id, (d.created_at AT TIME ZONE 'UTC')::date AS day, k.question_id, k.term,
             sum(d.sign) AS answers, sum(CASE WHEN k.sentiment IS NULL THEN 0 ELSE d.sign END) AS scored,
             coalesce(sum(d.sign * k.sentiment), 0) AS sentiment_sum
        FROM (
          SELECT o.workspace_id, o.form_id, o.created_at, o.answers, o.language, -1 AS sign FROM old_rows o
           WHERE NOT EXISTS (SELECT 1 FROM new_rows n WHERE n.workspace_id = o.workspace_id AND n.id = o.id
                               AND n.form_id = o.form_id AND n.created_at = o.created_at AND n.answers = o.answers
                               AND n.language IS NOT DISTINCT FROM o.language)
          UNION ALL
          SELECT n.workspace_id, n.form_id, n.created_at, n.answers, n.language, 1 AS sign FROM new_rows n
           WHERE NOT EXISTS (SELECT 1 FROM old_rows o WHERE n.workspace_id = o.workspace_id AND n.id = o.id
                               AND n.form_id = o.form_id AND n.created_at = o.created_at AND n.answers = o.answers
                               AND n.language IS NOT DISTINCT FROM o.language)
        ) AS d CROSS JOIN LATERAL response_keyword_terms(d.answers, d.language) k
       GROUP BY 1, 2, 3, 4, 5) AS t;
  END IF;
  IF delta IS NOT NULL THEN
    PERFORM keyword_rollups_add(delta);
  END IF;
  RETURN NULL;
END
$fn$;

DROP TRIGGER IF EXISTS responses_keywords_insert ON responses;
CREATE TRIGGER responses_keywords_insert AFTER INSERT ON responses
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION keyword_rollups_apply();
DROP TRIGGER IF EXISTS responses_keywords_update ON responses;
CREATE TRIGGER responses_keywords_update AFTER UPDATE ON responses
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION keyword_rollups_apply();
DROP TRIGGER IF EXISTS responses_keywords_delete ON responses;
CREATE TRIGGER responses_keywords_delete AFTER DELETE ON responses
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION keyword_rollups_apply();

DELETE FROM keyword_rollups;
DELETE FROM keyword_rollups_monthly;
INSERT INTO keyword_rollups (workspace_id, form_id, day, question_id, term, answers, scored, sentiment_sum)
  SELECT r.workspace_id, r.form_id, (r.created_at AT TIME ZONE 'UTC')::date, k.question_id, k.term,
         count(*), count(k.sentiment), coalesce(sum(k.sentiment), 0)
    FROM responses r CROSS JOIN LATERAL response_keyword_terms(r.answers, r.language) k
   GROUP BY 1, 2, 3, 4, 5;
INSERT INTO keyword_rollups_monthly (workspace_id, form_id, month, question_id, term, answers, scored, sentiment_sum)
  SELECT workspace_id, form_id, date_trunc('month', day)::date, question_id, term, sum(answers), sum(scored), sum(sentiment_sum)
    FROM keyword_rollups GROUP BY 1, 2, 3, 4, 5;
`;

const SQL_DOWN = String.raw`
DROP TRIGGER IF EXISTS responses_keywords_insert ON responses;
DROP TRIGGER IF EXISTS responses_keywords_update ON responses;
DROP TRIGGER IF EXISTS responses_keywords_delete ON responses;
DROP FUNCTION IF EXISTS keyword_rollups_apply();
DROP FUNCTION IF EXISTS keyword_rollups_add(jsonb);
DROP FUNCTION IF EXISTS response_keyword_terms(jsonb, text);
DROP FUNCTION IF EXISTS keyword_private(text);
DROP TABLE IF EXISTS keyword_rollups, keyword_rollups_monthly;
`;

export async function up(knex: Knex): Promise<void> {
  await runSqlScript(knex, SQL_UP);
}

export async function down(knex: Knex): Promise<void> {
  await runSqlScript(knex, SQL_DOWN);
}
