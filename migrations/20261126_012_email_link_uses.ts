/**
 * Email-link uses (issue 25 item 7; docs/collecting.md, "Email links"): how many responses a link has taken.
 *
 * - `email_link_uses`: one row per link that took a response, named by the SHA-256 of its token (the token is a
 *   credential and is never stored). The submission that uses a link adds one in its own transaction, only while
 *   `uses` is below the link's `max_responses` (signed into the token, default 1): a second submission, also a
 *   concurrent one, waits on the row and then finds the link used up. `expires_at` is the link's, so rows of
 *   expired links can be pruned (a link past its expiry is refused before its uses are read).
 */
import type { Knex } from 'knex';
import { runSqlScript } from './sql-script';

const SQL_UP = String.raw`
CREATE TABLE IF NOT EXISTS email_link_uses (
  workspace_id  text NOT NULL,
  token_hash    text NOT NULL,
  form_id       text NOT NULL,
  email_id      text NOT NULL,
  uses          integer NOT NULL CHECK (uses >= 1),
  expires_at    timestamptz(3) NOT NULL,
  created_at    timestamptz(3) NOT NULL DEFAULT now(),
  updated_at    timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, token_hash)
);
CREATE INDEX IF NOT EXISTS email_link_uses_expires_idx ON email_link_uses (expires_at);
`;

const SQL_DOWN = String.raw`
DROP TABLE IF EXISTS email_link_uses;
`;

export async function up(knex: Knex): Promise<void> {
  await runSqlScript(knex, SQL_UP);
}

export async function down(knex: Knex): Promise<void> {
  await runSqlScript(knex, SQL_DOWN);
}
