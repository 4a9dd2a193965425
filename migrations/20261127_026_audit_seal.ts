/**
 * The audit trail without a lock per write (issue 28: the upsert at the floor of its stack; docs/security.md, "The
 * audit trail"; src/core/audit/audit.store.ts).
 *
 * Until now each append locked its workspace's `audit_chain_heads` row until the write committed, so all writes of a
 * workspace took turns. Now a write inserts its record UNSEALED (no `seq`, `prev_hash`, `hash`) and a sealer numbers
 * and hashes the committed unsealed records afterwards, in a short transaction of its own that locks the head.
 *
 * - `audit_events.seq`, `prev_hash` and `hash` may be NULL, all three together (CHECK `audit_events_sealed_whole`):
 *   an unsealed record. `(workspace_id, seq)` stays unique among sealed records (partial index
 *   `audit_events_seq_idx`); the primary key becomes `(workspace_id, id)` (it was `(workspace_id, seq)`, and the
 *   old unique `audit_events_id_idx` goes).
 * - `append_no`: a number from a sequence given at insert, the order the sealer seals a workspace's records in; the
 *   partial index `audit_events_unsealed_idx` finds the unsealed ones.
 * - The append-only trigger allows one UPDATE: sealing, i.e. setting `seq`, `prev_hash` and `hash` of an unsealed
 *   record and nothing else; any other UPDATE is still refused.
 * - `audit_events_prune_idx` goes: the prune now deletes a sealed prefix of each chain by `seq`.
 * Down: refused while a record is unsealed (`feedback-service audit verify` seals them first).
 */
import type { Knex } from 'knex';
import { runSqlScript } from './sql-script';

const SQL_UP = String.raw`
ALTER TABLE audit_events ADD COLUMN IF NOT EXISTS append_no bigint;
CREATE SEQUENCE IF NOT EXISTS audit_events_append_no_seq OWNED BY audit_events.append_no;
ALTER TABLE audit_events ALTER COLUMN append_no SET DEFAULT nextval('audit_events_append_no_seq');
ALTER TABLE audit_events DROP CONSTRAINT IF EXISTS audit_events_pkey;
ALTER TABLE audit_events ALTER COLUMN seq DROP NOT NULL, ALTER COLUMN prev_hash DROP NOT NULL, ALTER COLUMN hash DROP NOT NULL;
CREATE UNIQUE INDEX IF NOT EXISTS audit_events_seq_idx ON audit_events (workspace_id, seq) WHERE seq IS NOT NULL;
ALTER TABLE audit_events ADD CONSTRAINT audit_events_pkey PRIMARY KEY (workspace_id, id);
DROP INDEX IF EXISTS audit_events_id_idx;
DROP INDEX IF EXISTS audit_events_prune_idx;
CREATE INDEX IF NOT EXISTS audit_events_unsealed_idx ON audit_events (workspace_id, append_no) WHERE seq IS NULL;
ALTER TABLE audit_events DROP CONSTRAINT IF EXISTS audit_events_sealed_whole;
ALTER TABLE audit_events ADD CONSTRAINT audit_events_sealed_whole CHECK ((seq IS NULL) = (hash IS NULL) AND (seq IS NULL) = (prev_hash IS NULL));

CREATE OR REPLACE FUNCTION audit_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  -- The one UPDATE allowed: sealing an unsealed record (seq, prev_hash and hash set; nothing else changed).
  IF OLD.seq IS NULL AND NEW.seq IS NOT NULL
     AND (NEW.workspace_id, NEW.id, NEW.created_at, NEW.actor, NEW.action, NEW.target_type, NEW.target_id,
          NEW.request_id, NEW.client_address, NEW.changes, NEW.append_no)
         IS NOT DISTINCT FROM
         (OLD.workspace_id, OLD.id, OLD.created_at, OLD.actor, OLD.action, OLD.target_type, OLD.target_id,
          OLD.request_id, OLD.client_address, OLD.changes, OLD.append_no) THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'audit_events is append-only: a record is never updated (only sealed, once)';
END
$fn$;
`;

const SQL_DOWN = String.raw`
CREATE OR REPLACE FUNCTION audit_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  RAISE EXCEPTION 'audit_events is append-only: a record is never updated';
END
$fn$;
ALTER TABLE audit_events DROP CONSTRAINT IF EXISTS audit_events_sealed_whole;
DROP INDEX IF EXISTS audit_events_unsealed_idx;
ALTER TABLE audit_events ALTER COLUMN seq SET NOT NULL, ALTER COLUMN prev_hash SET NOT NULL, ALTER COLUMN hash SET NOT NULL;
ALTER TABLE audit_events DROP CONSTRAINT IF EXISTS audit_events_pkey;
CREATE UNIQUE INDEX IF NOT EXISTS audit_events_id_idx ON audit_events (workspace_id, id);
ALTER TABLE audit_events ADD CONSTRAINT audit_events_pkey PRIMARY KEY (workspace_id, seq);
DROP INDEX IF EXISTS audit_events_seq_idx;
CREATE INDEX IF NOT EXISTS audit_events_prune_idx ON audit_events (created_at, workspace_id, seq);
ALTER TABLE audit_events DROP COLUMN IF EXISTS append_no;
`;

export async function up(knex: Knex): Promise<void> {
  await runSqlScript(knex, SQL_UP);
}

export async function down(knex: Knex): Promise<void> {
  await runSqlScript(knex, SQL_DOWN);
}
