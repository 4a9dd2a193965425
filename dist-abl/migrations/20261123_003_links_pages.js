"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.up = up;
exports.down = down;
const sql_script_1 = require("./sql-script");
const SQL_UP = String.raw `
CREATE TABLE IF NOT EXISTS server_secrets (
  name        text PRIMARY KEY,
  secret      text NOT NULL,
  created_at  timestamptz(3) NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS submission_tokens (
  workspace_id  text NOT NULL,
  token         text NOT NULL,
  form_id       text NOT NULL,
  response_id   text,
  created_at    timestamptz(3) NOT NULL DEFAULT now(),
  -- Led by workspace_id like every tenant key (distributable by workspace, docs/operations.md).
  PRIMARY KEY (workspace_id, token),
  FOREIGN KEY (workspace_id, form_id) REFERENCES forms (workspace_id, id) ON DELETE CASCADE
);
CREATE INDEX IF NOT EXISTS submission_tokens_created_idx ON submission_tokens (created_at);
`;
const SQL_DOWN = String.raw `
DROP TABLE IF EXISTS submission_tokens, server_secrets;
`;
async function up(knex) {
    await (0, sql_script_1.runSqlScript)(knex, SQL_UP);
}
async function down(knex) {
    await (0, sql_script_1.runSqlScript)(knex, SQL_DOWN);
}
//# sourceMappingURL=20261123_003_links_pages.js.map