/**
 * The event log (issue 31 item 1; docs/live.md, "Event log"; src/core/events/event-log.store.ts).
 *
 * - `event_log`: one row per event of every write that makes one (response created and deleted, row created, updated
 *   and deleted, email event created, respondent erased), recorded in the write's transaction whether or not a webhook
 *   subscribes. Its position is (`xid`, `seq`): `xid` the writing transaction's top-level id (`pg_current_xact_id()`,
 *   xid8, never wraps), `seq` a global bigserial in insert order. Readers only return rows whose `xid` is below their
 *   statement snapshot's xmin, so a transaction committing later can never add a row below a position already read.
 *   `id` is the event's id (`evt_…`), the same as the webhook event and payload id when an endpoint subscribes.
 * - `event_log_pruned`: per workspace, the highest position the retention prune removed (a reader asking from below
 *   it gets `410 position_expired`).
 * - The new scope `events:read` goes to every existing key that holds all fourteen resource scopes (a key made with
 *   "every scope"), as migration 017 did for `audit:read`.
 */
import type { Knex } from 'knex';
import { runSqlScript } from './sql-script';

const SQL_UP = String.raw`
CREATE TABLE IF NOT EXISTS event_log (
  workspace_id text NOT NULL,
  xid          xid8 NOT NULL DEFAULT pg_current_xact_id(),
  seq          bigserial NOT NULL,
  id           text NOT NULL,
  type         text NOT NULL,
  resource     jsonb NOT NULL,
  created_at   timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, xid, seq)
);
CREATE INDEX IF NOT EXISTS event_log_prune_idx ON event_log (created_at);

CREATE TABLE IF NOT EXISTS event_log_pruned (
  workspace_id text PRIMARY KEY,
  xid          xid8 NOT NULL,
  seq          bigint NOT NULL
);

UPDATE api_keys SET scopes = array_append(scopes, 'events:read')
WHERE NOT ('events:read' = ANY (scopes))
  AND scopes @> ARRAY['workspaces:read', 'workspaces:write', 'forms:read', 'forms:write', 'responses:read', 'responses:write',
                      'datatables:read', 'datatables:write', 'email_events:read', 'email_events:write', 'webhooks:read',
                      'webhooks:write', 'api_keys:read', 'api_keys:write']::text[];
`;

const SQL_DOWN = String.raw`
UPDATE api_keys SET scopes = array_remove(scopes, 'events:read') WHERE 'events:read' = ANY (scopes);
DROP TABLE IF EXISTS event_log_pruned;
DROP TABLE IF EXISTS event_log;
`;

export async function up(knex: Knex): Promise<void> {
  await runSqlScript(knex, SQL_UP);
}

export async function down(knex: Knex): Promise<void> {
  await runSqlScript(knex, SQL_DOWN);
}
