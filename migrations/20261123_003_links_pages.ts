/**
 * Email links and hosted form pages (issue 7; docs/collecting.md, "Hosted pages"; docs/collecting.md, "Email links").
 *
 * - `server_secrets`: secrets the service makes for itself, kept in the database so every instance
 *   and every restart signs alike. `email_links` signs email-link tokens (HMAC-SHA256); the row is
 *   created on first use (INSERT … ON CONFLICT DO NOTHING, then SELECT), so nothing is stored per link.
 * - `submission_tokens`: the one-time tokens of the hosted page, claimed inside the submission's own
 *   transaction. The primary key makes a second claim of the same token (also a concurrent one) fail,
 *   so a double submit stores one response.
 */
import type { Knex } from 'knex';
import { runSqlScript } from './sql-script';

const SQL_UP = String.raw`
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

const SQL_DOWN = String.raw`
DROP TABLE IF EXISTS submission_tokens, server_secrets;
`;

export async function up(knex: Knex): Promise<void> {
  await runSqlScript(knex, SQL_UP);
}

export async function down(knex: Knex): Promise<void> {
  await runSqlScript(knex, SQL_DOWN);
}
