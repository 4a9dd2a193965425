/**
 * Sentiment of text answers (docs/analytics.md, "Sentiment"; docs/data-model.md, "Sentiment columns (migration 015)").
 *
 * - `responses.sentiment_score` (-1..1, null without a scored text answer) and `sentiment_label` (`negative`,
 *   `neutral`, `positive`, null with the score): the response's overall sentiment, the mean of its text answers'
 *   scores; each text answer carries its own `sentiment` inside `answers`.
 * - `responses_sentiment_label_check` (NOT VALID: the rows before it have neither column set, so there is nothing to
 *   scan under a lock): a label goes with a score in -1..1, or neither is set.
 * - `responses.sentiment_pending`: true while the sentiment is not computed. Its default is true, so the rows that
 *   exist before this migration, and any row a writer stores without computing it (the switch `SENTIMENT=off`),
 *   are pending; the two write paths store false with the computed values. Adding a column with a constant default
 *   is a catalog change on PostgreSQL 11 and later (no table rewrite).
 * - `responses_sentiment_pending_idx`: the backfill job's work list, in its key order (workspace_id, id); partial,
 *   so it holds only pending rows and shrinks to nothing once the job is done.
 * - `responses_keyset_sentiment_idx`: `sort=sentiment:asc|desc` as a keyset range scan, like the score order.
 * - `responses_sentiment_label_idx`: a `sentiment` filter in the default (created_at) order.
 * - `sentiment_backfill`: the job's progress, one row per job: the last key it finished (workspace_id, id), the rows
 *   it has filled, when it started and finished a pass. A restart continues after `last_workspace_id, last_id`.
 */
import type { Knex } from 'knex';
import { runSqlScript } from './sql-script';

const SQL_UP = String.raw`
ALTER TABLE responses ADD COLUMN IF NOT EXISTS sentiment_score double precision;
ALTER TABLE responses ADD COLUMN IF NOT EXISTS sentiment_label text;
ALTER TABLE responses ADD COLUMN IF NOT EXISTS sentiment_pending boolean NOT NULL DEFAULT true;
ALTER TABLE responses DROP CONSTRAINT IF EXISTS responses_sentiment_label_check;
ALTER TABLE responses ADD CONSTRAINT responses_sentiment_label_check
  CHECK ((sentiment_label IS NULL AND sentiment_score IS NULL)
         OR (sentiment_label IN ('negative', 'neutral', 'positive') AND sentiment_score IS NOT NULL AND sentiment_score BETWEEN -1 AND 1)) NOT VALID;
CREATE INDEX IF NOT EXISTS responses_sentiment_pending_idx ON responses (workspace_id, id) WHERE sentiment_pending;
CREATE INDEX IF NOT EXISTS responses_keyset_sentiment_idx ON responses (workspace_id, sentiment_score DESC, id DESC);
CREATE INDEX IF NOT EXISTS responses_sentiment_label_idx ON responses (workspace_id, sentiment_label, created_at DESC, id DESC)
  WHERE sentiment_label IS NOT NULL;
CREATE TABLE IF NOT EXISTS sentiment_backfill (
  job                text PRIMARY KEY,
  last_workspace_id  text,
  last_id            text,
  filled             bigint NOT NULL DEFAULT 0,
  pass_started_at    timestamptz(3),
  pass_finished_at   timestamptz(3),
  updated_at         timestamptz(3) NOT NULL DEFAULT now()
);
`;

const SQL_DOWN = String.raw`
DROP TABLE IF EXISTS sentiment_backfill;
DROP INDEX IF EXISTS responses_sentiment_label_idx;
DROP INDEX IF EXISTS responses_keyset_sentiment_idx;
DROP INDEX IF EXISTS responses_sentiment_pending_idx;
ALTER TABLE responses DROP CONSTRAINT IF EXISTS responses_sentiment_label_check;
ALTER TABLE responses DROP COLUMN IF EXISTS sentiment_pending;
ALTER TABLE responses DROP COLUMN IF EXISTS sentiment_label;
ALTER TABLE responses DROP COLUMN IF EXISTS sentiment_score;
`;

export async function up(knex: Knex): Promise<void> {
  await runSqlScript(knex, SQL_UP);
}

export async function down(knex: Knex): Promise<void> {
  await runSqlScript(knex, SQL_DOWN);
}
