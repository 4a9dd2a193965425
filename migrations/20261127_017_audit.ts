/**
 * The audit trail (issue 30, item 5; docs/security.md, "The audit trail"; src/core/audit/audit.store.ts).
 *
 * - `audit_events`: one row per change that is not a response submission, append-only. `seq` numbers a workspace's
 *   records 1, 2, 3, … in the order they were appended; `prev_hash` is the `hash` of the record before it in the
 *   same workspace (64 zeros for the first), `hash` the SHA-256 of the record's canonical JSON (with `prev_hash`),
 *   so a record changed, removed or inserted afterwards breaks the chain `feedback-service audit verify` walks.
 *   A trigger refuses every UPDATE: rows are only inserted, and deleted by the retention prune.
 * - `audit_chain_heads`: one row per workspace with the last `seq` and `hash` (the head an append extends, locked
 *   FOR UPDATE so appends in one workspace are serialized, the same on PostgreSQL and PGlite), the last record's time (a
 *   record's `created_at` is never earlier than the one before it, whatever the instances' clocks say, so the
 *   retention prune, which deletes by time, always removes the oldest records of a chain), and the last pruned
 *   record's `seq` and `hash` (what the oldest kept record must follow once the prune has removed older ones).
 * - The new scope `audit:read` goes to every existing key that holds all fourteen scopes of before (a key made
 *   with "every scope"); keys with fewer scopes do not get it.
 */
import type { Knex } from 'knex';
import { runSqlScript } from './sql-script';

const SQL_UP = String.raw`
CREATE TABLE IF NOT EXISTS audit_events (
  workspace_id   text NOT NULL,
  seq            bigint NOT NULL,
  id             text NOT NULL,
  created_at     timestamptz(3) NOT NULL,
  actor          text NOT NULL,
  action         text NOT NULL,
  target_type    text NOT NULL,
  target_id      text NOT NULL,
  request_id     text,
  client_address text,
  changes        jsonb NOT NULL DEFAULT '{}'::jsonb,
  prev_hash      text NOT NULL,
  hash           text NOT NULL,
  PRIMARY KEY (workspace_id, seq)
);
CREATE UNIQUE INDEX IF NOT EXISTS audit_events_id_idx ON audit_events (workspace_id, id);
CREATE INDEX IF NOT EXISTS audit_events_created_idx ON audit_events (workspace_id, created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS audit_events_prune_idx ON audit_events (created_at, workspace_id, seq);

CREATE TABLE IF NOT EXISTS audit_chain_heads (
  workspace_id text PRIMARY KEY,
  last_seq     bigint NOT NULL DEFAULT 0,
  last_hash    text NOT NULL,
  last_at      timestamptz(3),
  pruned_seq   bigint NOT NULL DEFAULT 0,
  pruned_hash  text NOT NULL
);

CREATE OR REPLACE FUNCTION audit_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  RAISE EXCEPTION 'audit_events is append-only: a record is never updated';
END
$fn$;

DROP TRIGGER IF EXISTS audit_events_append_only ON audit_events;
CREATE TRIGGER audit_events_append_only BEFORE UPDATE ON audit_events FOR EACH ROW EXECUTE FUNCTION audit_events_append_only();

UPDATE api_keys SET scopes = array_append(scopes, 'audit:read')
WHERE NOT ('audit:read' = ANY (scopes))
  AND scopes @> ARRAY['workspaces:read', 'workspaces:write', 'forms:read', 'forms:write', 'responses:read', 'responses:write',
                      'datatables:read', 'datatables:write', 'email_events:read', 'email_events:write', 'webhooks:read',
                      'webhooks:write', 'api_keys:read', 'api_keys:write']::text[];
`;

const SQL_DOWN = String.raw`
UPDATE api_keys SET scopes = array_remove(scopes, 'audit:read') WHERE 'audit:read' = ANY (scopes);
DROP TRIGGER IF EXISTS audit_events_append_only ON audit_events;
DROP FUNCTION IF EXISTS audit_events_append_only();
DROP TABLE IF EXISTS audit_chain_heads;
DROP TABLE IF EXISTS audit_events;
`;

export async function up(knex: Knex): Promise<void> {
  await runSqlScript(knex, SQL_UP);
}

export async function down(knex: Knex): Promise<void> {
  await runSqlScript(knex, SQL_DOWN);
}
