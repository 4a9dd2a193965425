/**
 * Topics: a workspace's named searches over text answers, and the responses they tag (issue 29 item 4; docs/analytics.md,
 * "Topics"; src/core/topics/topics.store.ts).
 *
 * - `topics`: one row per topic: its name (unique per workspace regardless of case: `topics_name_key` on
 *   `lower(name)`), its query (the search syntax of `q`) and the tagging job's state: `tagging_version` counts the
 *   query's versions (a query change starts a new pass), `tagged_after` is the last response id the pass finished
 *   (resumed after a restart), `tagging_pending` is true until the pass has seen every response of the workspace.
 * - `topics_tagging_pending_idx`: the job's work list (partial: only topics with a pass to run).
 * - `response_topics`: one row per tagged response and topic. Both foreign keys cascade: a topic's delete removes its
 *   tags, and so does a response's delete, whoever deletes it (the API, the bulk deletes, retention, an erasure, a
 *   form's or a workspace's delete). The primary key serves "the responses of a topic"; `response_topics_response_idx`
 *   serves the cascade and "the topics of a response".
 */
import type { Knex } from 'knex';
import { runSqlScript } from './sql-script';

const SQL_UP = String.raw`
CREATE TABLE IF NOT EXISTS topics (
  workspace_id     text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  id               text NOT NULL,
  name             text NOT NULL,
  query            text NOT NULL,
  tagging_version  integer NOT NULL DEFAULT 1,
  tagging_pending  boolean NOT NULL DEFAULT true,
  tagged_after     text,
  tagged_count     bigint NOT NULL DEFAULT 0,
  created_at       timestamptz(3) NOT NULL DEFAULT now(),
  updated_at       timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, id)
);
CREATE UNIQUE INDEX IF NOT EXISTS topics_name_key ON topics (workspace_id, lower(name));
CREATE INDEX IF NOT EXISTS topics_tagging_pending_idx ON topics (workspace_id, id) WHERE tagging_pending;

CREATE TABLE IF NOT EXISTS response_topics (
  workspace_id  text NOT NULL,
  topic_id      text NOT NULL,
  response_id   text NOT NULL,
  PRIMARY KEY (workspace_id, topic_id, response_id),
  FOREIGN KEY (workspace_id, topic_id) REFERENCES topics (workspace_id, id) ON DELETE CASCADE,
  FOREIGN KEY (workspace_id, response_id) REFERENCES responses (workspace_id, id) ON DELETE CASCADE
);
CREATE INDEX IF NOT EXISTS response_topics_response_idx ON response_topics (workspace_id, response_id);
`;

const SQL_DOWN = String.raw`
DROP TABLE IF EXISTS response_topics;
DROP TABLE IF EXISTS topics;
`;

export async function up(knex: Knex): Promise<void> {
  await runSqlScript(knex, SQL_UP);
}

export async function down(knex: Knex): Promise<void> {
  await runSqlScript(knex, SQL_DOWN);
}
