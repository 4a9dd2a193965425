/**
 * API key change notifications (issue 11; docs/api-rules.md, "Keys and access": a revoked key is
 * refused by every instance within 1 s).
 *
 * Every instance caches authenticated keys in-process (src/platform/auth/key-cache.ts). Any change that
 * can refuse or narrow a key (revoking, expiring, re-scoping, a new limit or style, losing or gaining a
 * workspace, deleting it) sends `NOTIFY api_key_changed` from a trigger, so the notice is part of the
 * change's own transaction: it reaches every listening instance exactly when the change commits,
 * whatever made it (the API, the CLI, an operator's SQL). Recording use (`last_used_at`) does not notify.
 */
import type { Knex } from 'knex';
import { runSqlScript } from './sql-script';

const SQL_UP = String.raw`
CREATE OR REPLACE FUNCTION notify_api_key_changed() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  PERFORM pg_notify('api_key_changed', TG_TABLE_NAME);
  RETURN NULL;
END
$fn$;

DROP TRIGGER IF EXISTS api_keys_changed ON api_keys;
CREATE TRIGGER api_keys_changed
  AFTER UPDATE OF revoked_at, expires_at, scopes, style, rate_limit_per_minute, key_hash OR DELETE ON api_keys
  FOR EACH STATEMENT EXECUTE FUNCTION notify_api_key_changed();

DROP TRIGGER IF EXISTS api_key_workspaces_changed ON api_key_workspaces;
CREATE TRIGGER api_key_workspaces_changed
  AFTER INSERT OR UPDATE OR DELETE ON api_key_workspaces
  FOR EACH STATEMENT EXECUTE FUNCTION notify_api_key_changed();
`;

const SQL_DOWN = String.raw`
DROP TRIGGER IF EXISTS api_keys_changed ON api_keys;
DROP TRIGGER IF EXISTS api_key_workspaces_changed ON api_key_workspaces;
DROP FUNCTION IF EXISTS notify_api_key_changed();
`;

export async function up(knex: Knex): Promise<void> {
  await runSqlScript(knex, SQL_UP);
}

export async function down(knex: Knex): Promise<void> {
  await runSqlScript(knex, SQL_DOWN);
}
