/**
 * Deleting responses (issue 30 items 1 and 4; docs/data-rights.md, docs/api-rules.md "Deleting responses").
 *
 * - `response_deletions`: one row per bulk delete that was run (a dry run stores nothing): its filters as the
 *   core reads them again (`filters`, JSON), the time it was asked (`requested_at`: a job deletes only responses
 *   stored before it), how many responses matched then (`matched`) and how many are gone (`deleted`, moved in the
 *   transaction of each batch, so progress and rows never disagree), `status` `queued` → `running` →
 *   `succeeded` | `failed`. A job's batches run on the worker (pg-boss queue `response-deletion`, created here as
 *   migration 004 created the delivery queue).
 * - `workspaces.response_retention_days`: the retention setting, NULL (off) by default; the worker deletes
 *   responses and email events older than this many days (src/core/responses/retention.ts). Set with
 *   `feedback-service workspaces retention`.
 * No new index: the retention's batches pick a workspace's oldest responses and email events by `created_at`,
 *   which the keyset indexes `responses_keyset_created_idx` and `email_events_keyset_created_idx` serve.
 *
 * The counters (`response_counts`, `response_day_counts`, `response_daily`, `answer_rollups`) already have
 * statement-level AFTER DELETE triggers (migrations 001, 005, 006): a delete moves them in its own statement.
 */
import type { Knex } from 'knex';
import { runSqlScript } from './sql-script';

/** The deletion job queue; src/core/responses/deletions.ts sends to it under the same name. */
const DELETION_QUEUE = 'response-deletion';

const SQL_UP = String.raw`
CREATE TABLE IF NOT EXISTS response_deletions (
  workspace_id  text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  id            text NOT NULL,
  status        text NOT NULL CHECK (status IN ('queued', 'running', 'succeeded', 'failed')),
  filters       jsonb NOT NULL,
  requested_at  timestamptz(3) NOT NULL,
  requested_by  text,
  matched       bigint NOT NULL,
  deleted       bigint NOT NULL DEFAULT 0,
  error         text,
  created_at    timestamptz(3) NOT NULL DEFAULT now(),
  updated_at    timestamptz(3) NOT NULL DEFAULT now(),
  finished_at   timestamptz(3),
  PRIMARY KEY (workspace_id, id)
);

ALTER TABLE workspaces ADD COLUMN IF NOT EXISTS response_retention_days integer
  CHECK (response_retention_days IS NULL OR (response_retention_days >= 1 AND response_retention_days <= 36500));
`;

const SQL_DOWN = String.raw`
ALTER TABLE workspaces DROP COLUMN IF EXISTS response_retention_days;
DROP TABLE IF EXISTS response_deletions;
`;

export async function up(knex: Knex): Promise<void> {
  await runSqlScript(knex, SQL_UP);
  const options = JSON.stringify({
    policy: 'standard',
    retryLimit: 10,
    retryDelay: 30,
    retryBackoff: false,
    expireInSeconds: 900,
    retentionMinutes: 60 * 24 * 14,
  });
  await knex.raw(`SELECT pgboss.create_queue('${DELETION_QUEUE}', '${options}'::json)`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`SELECT pgboss.delete_queue('${DELETION_QUEUE}')`);
  await runSqlScript(knex, SQL_DOWN);
}
