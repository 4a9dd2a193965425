/**
 * Key lineage (issue 25, items 1 and 2; docs/writes-keys-limits.md, "Key lineage"): which key made a key or a
 * dashboard link, and the database rules that keep what a key made within that key.
 *
 * - `api_keys.created_by`: the key that created this one through the API; null for the roots (keys made by
 *   `feedback-service keys create`, the demo seed or an import, and every key made before this migration).
 * - `dashboard_links.created_by`: the key that minted the link (null for links minted before this migration);
 *   `dashboard_links.include_addresses`: the link's downloads carry respondents' addresses and email answers
 *   (the explicit opt-in at minting; false for every older link).
 * - A key or link never outlives the key that made it, whoever writes the rows (the API, the CLI, an operator's
 *   SQL): BEFORE triggers cap a new or changed row's `expires_at` at its creator's and copy a creator's
 *   `revoked_at`; an AFTER trigger on `api_keys` carries a revoke or a shortened expiry of a key to every key and
 *   link below it (one recursive statement from the top; the updates it makes fire the triggers again one level
 *   down, where `pg_trigger_depth()` stops them from walking the tree a second time). The cascaded updates of
 *   `api_keys` are updates of `revoked_at`/`expires_at`, so migration 007's statement trigger sends
 *   `NOTIFY api_key_changed` in the same transaction: every instance's key cache is emptied when it commits.
 * - Deleting a key (only an operator does) deletes what it made (ON DELETE CASCADE).
 */
import type { Knex } from 'knex';
import { runSqlScript } from './sql-script';

const SQL_UP = String.raw`
ALTER TABLE api_keys ADD COLUMN IF NOT EXISTS created_by text REFERENCES api_keys (id) ON DELETE CASCADE;
CREATE INDEX IF NOT EXISTS api_keys_created_by_idx ON api_keys (created_by) WHERE created_by IS NOT NULL;

ALTER TABLE dashboard_links ADD COLUMN IF NOT EXISTS created_by text REFERENCES api_keys (id) ON DELETE CASCADE;
ALTER TABLE dashboard_links ADD COLUMN IF NOT EXISTS include_addresses boolean NOT NULL DEFAULT false;
CREATE INDEX IF NOT EXISTS dashboard_links_created_by_idx ON dashboard_links (created_by) WHERE created_by IS NOT NULL;

CREATE OR REPLACE FUNCTION within_creator_key() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
  creator_revoked timestamptz;
  creator_expires timestamptz;
BEGIN
  IF NEW.created_by IS NULL THEN
    RETURN NEW;
  END IF;
  SELECT revoked_at, expires_at INTO creator_revoked, creator_expires FROM api_keys WHERE id = NEW.created_by;
  IF creator_revoked IS NOT NULL AND NEW.revoked_at IS NULL THEN
    NEW.revoked_at := creator_revoked;
  END IF;
  IF creator_expires IS NOT NULL AND (NEW.expires_at IS NULL OR NEW.expires_at > creator_expires) THEN
    NEW.expires_at := creator_expires;
  END IF;
  RETURN NEW;
END
$fn$;

DROP TRIGGER IF EXISTS api_keys_within_creator ON api_keys;
CREATE TRIGGER api_keys_within_creator
  BEFORE INSERT OR UPDATE OF created_by, revoked_at, expires_at ON api_keys
  FOR EACH ROW EXECUTE FUNCTION within_creator_key();

DROP TRIGGER IF EXISTS dashboard_links_within_creator ON dashboard_links;
CREATE TRIGGER dashboard_links_within_creator
  BEFORE INSERT OR UPDATE OF created_by, revoked_at, expires_at ON dashboard_links
  FOR EACH ROW EXECUTE FUNCTION within_creator_key();

CREATE OR REPLACE FUNCTION cascade_api_key_end() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  -- The outermost update walks the whole tree below the key; the updates it makes land here one level deeper.
  IF pg_trigger_depth() > 1 THEN
    RETURN NULL;
  END IF;
  IF NEW.revoked_at IS NOT NULL THEN
    WITH RECURSIVE tree (id) AS (
      SELECT NEW.id
      UNION
      SELECT k.id FROM api_keys k JOIN tree t ON k.created_by = t.id
    )
    UPDATE dashboard_links SET revoked_at = NEW.revoked_at
      WHERE revoked_at IS NULL AND created_by IN (SELECT id FROM tree);
    WITH RECURSIVE tree (id) AS (
      SELECT NEW.id
      UNION
      SELECT k.id FROM api_keys k JOIN tree t ON k.created_by = t.id
    )
    UPDATE api_keys SET revoked_at = NEW.revoked_at
      WHERE revoked_at IS NULL AND id IN (SELECT id FROM tree) AND id <> NEW.id;
  END IF;
  IF NEW.expires_at IS NOT NULL THEN
    WITH RECURSIVE tree (id) AS (
      SELECT NEW.id
      UNION
      SELECT k.id FROM api_keys k JOIN tree t ON k.created_by = t.id
    )
    UPDATE dashboard_links SET expires_at = NEW.expires_at
      WHERE expires_at > NEW.expires_at AND created_by IN (SELECT id FROM tree);
    WITH RECURSIVE tree (id) AS (
      SELECT NEW.id
      UNION
      SELECT k.id FROM api_keys k JOIN tree t ON k.created_by = t.id
    )
    UPDATE api_keys SET expires_at = NEW.expires_at
      WHERE (expires_at IS NULL OR expires_at > NEW.expires_at) AND id IN (SELECT id FROM tree) AND id <> NEW.id;
  END IF;
  RETURN NULL;
END
$fn$;

DROP TRIGGER IF EXISTS api_keys_cascade_end ON api_keys;
CREATE TRIGGER api_keys_cascade_end
  AFTER UPDATE OF revoked_at, expires_at ON api_keys
  FOR EACH ROW
  WHEN (OLD.revoked_at IS DISTINCT FROM NEW.revoked_at OR OLD.expires_at IS DISTINCT FROM NEW.expires_at)
  EXECUTE FUNCTION cascade_api_key_end();
`;

const SQL_DOWN = String.raw`
DROP TRIGGER IF EXISTS api_keys_cascade_end ON api_keys;
DROP TRIGGER IF EXISTS dashboard_links_within_creator ON dashboard_links;
DROP TRIGGER IF EXISTS api_keys_within_creator ON api_keys;
DROP FUNCTION IF EXISTS cascade_api_key_end();
DROP FUNCTION IF EXISTS within_creator_key();
DROP INDEX IF EXISTS dashboard_links_created_by_idx;
ALTER TABLE dashboard_links DROP COLUMN IF EXISTS include_addresses;
ALTER TABLE dashboard_links DROP COLUMN IF EXISTS created_by;
DROP INDEX IF EXISTS api_keys_created_by_idx;
ALTER TABLE api_keys DROP COLUMN IF EXISTS created_by;
`;

export async function up(knex: Knex): Promise<void> {
  await runSqlScript(knex, SQL_UP);
}

export async function down(knex: Knex): Promise<void> {
  await runSqlScript(knex, SQL_DOWN);
}
