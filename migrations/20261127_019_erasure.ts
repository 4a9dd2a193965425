/**
 * Erasing a person (issue 30 item 2; docs/data-rights.md, "Erasing a person").
 *
 * - `erasure_requests`: one row per person and workspace, named by the keyed hash of the address (HMAC-SHA256 under
 *   the server secret `erasure`; the address itself is never stored). The first run inserts it; a later run of the
 *   same address updates it (the unique index makes two runs at once wait on each other: one record, one result).
 *   `removed` holds what the runs removed, by kind.
 * - `email_suppressions`: the addresses (keyed hashes) no email link may be minted for, or used by, until the
 *   workspace lifts the suppression.
 */
import type { Knex } from 'knex';
import { runSqlScript } from './sql-script';

const SQL_UP = String.raw`
CREATE TABLE IF NOT EXISTS erasure_requests (
  workspace_id  text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  id            text NOT NULL,
  address_hash  text NOT NULL,
  include_rows  boolean NOT NULL DEFAULT false,
  removed       jsonb NOT NULL DEFAULT '{}'::jsonb,
  runs          integer NOT NULL DEFAULT 1,
  requested_by  text,
  request_id    text,
  created_at    timestamptz(3) NOT NULL DEFAULT now(),
  updated_at    timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, id)
);
CREATE UNIQUE INDEX IF NOT EXISTS erasure_requests_address_key ON erasure_requests (workspace_id, address_hash);

CREATE TABLE IF NOT EXISTS email_suppressions (
  workspace_id  text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  address_hash  text NOT NULL,
  erasure_id    text NOT NULL,
  created_at    timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, address_hash)
);
`;

const SQL_DOWN = String.raw`
DROP TABLE IF EXISTS email_suppressions;
DROP TABLE IF EXISTS erasure_requests;
`;

export async function up(knex: Knex): Promise<void> {
  await runSqlScript(knex, SQL_UP);
}

export async function down(knex: Knex): Promise<void> {
  await runSqlScript(knex, SQL_DOWN);
}
