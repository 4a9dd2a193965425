/**
 * Dashboard links (issue 21; docs/analytics.md, "Dashboard links"): signed links to a form's results page.
 *
 * - `dashboard_links`: one row per minted link. The token in its URL (the email-link token codec and
 *   secret) names the row; every page request reads the row, so a revoke (`revoked_at`) or the expiry
 *   refuses the link at once on every instance.
 * - `dashboard_download_claims`: the one-time download token of a page, claimed per format (CSV, NDJSON) by
 *   inserting its nonce; the primary key makes a second claim (also a concurrent one) fail. Rows older than the
 *   download token's lifetime plus a day are pruned by the worker.
 */
import type { Knex } from 'knex';
import { runSqlScript } from './sql-script';

const SQL_UP = String.raw`
CREATE TABLE IF NOT EXISTS dashboard_links (
  workspace_id  text NOT NULL,
  id            text NOT NULL,
  form_id       text NOT NULL,
  expires_at    timestamptz(3) NOT NULL,
  created_at    timestamptz(3) NOT NULL DEFAULT now(),
  revoked_at    timestamptz(3),
  PRIMARY KEY (workspace_id, id),
  FOREIGN KEY (workspace_id, form_id) REFERENCES forms (workspace_id, id) ON DELETE CASCADE
);
CREATE INDEX IF NOT EXISTS dashboard_links_form_idx ON dashboard_links (workspace_id, form_id, created_at);

CREATE TABLE IF NOT EXISTS dashboard_download_claims (
  workspace_id  text NOT NULL,
  nonce         text NOT NULL,
  format        text NOT NULL,
  link_id       text NOT NULL,
  claimed_at    timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, nonce, format),
  FOREIGN KEY (workspace_id, link_id) REFERENCES dashboard_links (workspace_id, id) ON DELETE CASCADE
);
CREATE INDEX IF NOT EXISTS dashboard_download_claims_claimed_idx ON dashboard_download_claims (claimed_at);
`;

const SQL_DOWN = String.raw`
DROP TABLE IF EXISTS dashboard_download_claims, dashboard_links;
`;

export async function up(knex: Knex): Promise<void> {
  await runSqlScript(knex, SQL_UP);
}

export async function down(knex: Knex): Promise<void> {
  await runSqlScript(knex, SQL_DOWN);
}
