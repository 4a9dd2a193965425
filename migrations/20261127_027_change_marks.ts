/**
 * Change marks: the workspace change version behind conditional requests (issue 31 item 4; docs/api-rules.md,
 * "Conditional requests"; src/core/changes/change-marks.store.ts).
 *
 * - `change_marks`: one row per workspace and writing transaction, `xid` the transaction's top-level id
 *   (`pg_current_xact_id()`, xid8), appended by the statement-level triggers below whatever wrote (the API, the worker,
 *   the CLI, an import's COPY, a later migration's UPDATE). `ON CONFLICT DO NOTHING` on (`workspace_id`, `xid`) keeps
 *   one mark per transaction; two transactions never share a key, so writers never wait for each other (no counter row).
 * - The triggers: every table whose rows an API answer reads and that a write can change directly. Left out: the
 *   counters and rollups kept by triggers on `responses`, `email_events` and `datatable_rows` (same transaction as the
 *   row that moved them), the chain head of the audit trail, submission tokens, download claims, link uses, the
 *   suppression list (no answer reads them), and the usage tables (their answers carry no ETag). `event_log` and
 *   `audit_events` are marked on DELETE only: an insert always comes with the write it records, in its transaction.
 *   `api_keys` has no workspace: an UPDATE marks the key's workspaces, unless only `last_used_at` moved (the API key
 *   list folds the keys' `last_used_at` into its own tag instead); a new or deleted key moves `api_key_workspaces`.
 */
import type { Knex } from 'knex';
import { runSqlScript } from './sql-script';

/** Tables marked on INSERT, UPDATE and DELETE (by their `workspace_id`). */
const MARKED = [
  'api_key_workspaces',
  'forms',
  'questions',
  'datatables',
  'datatable_fields',
  'datatable_rows',
  'responses',
  'response_topics',
  'topics',
  'response_deletions',
  'email_events',
  'webhook_endpoints',
  'webhook_events',
  'webhook_deliveries',
  'webhook_recoveries',
  'dashboard_links',
  'erasure_requests',
  'event_log_pruned',
];
/** Tables marked on DELETE only (retention prunes, erasures). */
const MARKED_ON_DELETE = ['event_log', 'audit_events'];
const EVENTS = ['insert', 'update', 'delete'] as const;

const trigger = (table: string, event: (typeof EVENTS)[number]) =>
  `DROP TRIGGER IF EXISTS ${table}_mark_${event} ON ${table};
CREATE TRIGGER ${table}_mark_${event} AFTER ${event.toUpperCase()} ON ${table}
  REFERENCING ${event === 'delete' ? 'OLD' : 'NEW'} TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION change_marks_apply();`;

/** Every (table, event) marked through change_marks_apply; `workspaces` by its `id`. */
const TRIGGERS = [...[...MARKED, 'workspaces'].flatMap((t) => EVENTS.map((e) => [t, e] as const)), ...MARKED_ON_DELETE.map((t) => [t, 'delete'] as const)];

const SQL_UP = String.raw`
CREATE TABLE IF NOT EXISTS change_marks (
  workspace_id text NOT NULL,
  xid          xid8 NOT NULL DEFAULT pg_current_xact_id(),
  created_at   timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, xid)
);
CREATE INDEX IF NOT EXISTS change_marks_prune_idx ON change_marks (created_at);

-- PL/pgSQL compiles a trigger function once per table, so the branch for the other tables' column is never planned.
CREATE OR REPLACE FUNCTION change_marks_apply() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_TABLE_NAME = 'workspaces' THEN
    INSERT INTO change_marks (workspace_id) SELECT DISTINCT id FROM changed_rows ON CONFLICT DO NOTHING;
  ELSE
    INSERT INTO change_marks (workspace_id) SELECT DISTINCT workspace_id FROM changed_rows ON CONFLICT DO NOTHING;
  END IF;
  RETURN NULL;
END
$fn$;

CREATE OR REPLACE FUNCTION change_marks_apply_api_key() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  INSERT INTO change_marks (workspace_id)
  SELECT DISTINCT w.workspace_id
    FROM changed_rows n JOIN old_rows o ON o.id = n.id JOIN api_key_workspaces w ON w.api_key_id = n.id
   WHERE (to_jsonb(n) - 'last_used_at') IS DISTINCT FROM (to_jsonb(o) - 'last_used_at')
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END
$fn$;

DROP TRIGGER IF EXISTS api_keys_mark_update ON api_keys;
CREATE TRIGGER api_keys_mark_update AFTER UPDATE ON api_keys
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION change_marks_apply_api_key();
${TRIGGERS.map(([t, e]) => trigger(t, e)).join('\n')}
`;

const SQL_DOWN = String.raw`
DROP TRIGGER IF EXISTS api_keys_mark_update ON api_keys;
${TRIGGERS.map(([t, e]) => `DROP TRIGGER IF EXISTS ${t}_mark_${e} ON ${t};`).join('\n')}
DROP FUNCTION IF EXISTS change_marks_apply_api_key();
DROP FUNCTION IF EXISTS change_marks_apply();
DROP TABLE IF EXISTS change_marks;
`;

export async function up(knex: Knex): Promise<void> {
  await runSqlScript(knex, SQL_UP);
}

export async function down(knex: Knex): Promise<void> {
  await runSqlScript(knex, SQL_DOWN);
}
