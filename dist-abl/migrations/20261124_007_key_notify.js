"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.up = up;
exports.down = down;
const sql_script_1 = require("./sql-script");
const SQL_UP = String.raw `
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
const SQL_DOWN = String.raw `
DROP TRIGGER IF EXISTS api_keys_changed ON api_keys;
DROP TRIGGER IF EXISTS api_key_workspaces_changed ON api_key_workspaces;
DROP FUNCTION IF EXISTS notify_api_key_changed();
`;
async function up(knex) {
    await (0, sql_script_1.runSqlScript)(knex, SQL_UP);
}
async function down(knex) {
    await (0, sql_script_1.runSqlScript)(knex, SQL_DOWN);
}
//# sourceMappingURL=20261124_007_key_notify.js.map