/**
 * Event log notices for the live streams (issue 31 item 2; docs/live.md, "Stream", "Fan-out").
 *
 * Every statement that appends to `event_log` sends `NOTIFY event_log, '<workspace id>'` once per workspace it wrote,
 * from a statement-level trigger, so the notice is part of the write's own transaction: it reaches every listening
 * instance when the write commits (a rolled-back write sends none), whatever made the write. PostgreSQL folds equal
 * notices of one transaction into one. Instances listen on one connection each (src/db/notifications.ts) and wake the
 * streams of that workspace; a notice is only a hint (a lost one is caught by the streams' periodic poll).
 */
import type { Knex } from 'knex';
import { runSqlScript } from './sql-script';

const SQL_UP = String.raw`
CREATE OR REPLACE FUNCTION notify_event_log() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  PERFORM pg_notify('event_log', w.workspace_id) FROM (SELECT DISTINCT workspace_id FROM new_events) AS w;
  RETURN NULL;
END
$fn$;

DROP TRIGGER IF EXISTS event_log_appended ON event_log;
CREATE TRIGGER event_log_appended
  AFTER INSERT ON event_log REFERENCING NEW TABLE AS new_events
  FOR EACH STATEMENT EXECUTE FUNCTION notify_event_log();
`;

const SQL_DOWN = String.raw`
DROP TRIGGER IF EXISTS event_log_appended ON event_log;
DROP FUNCTION IF EXISTS notify_event_log();
`;

export async function up(knex: Knex): Promise<void> {
  await runSqlScript(knex, SQL_UP);
}

export async function down(knex: Knex): Promise<void> {
  await runSqlScript(knex, SQL_DOWN);
}
