/**
 * The trace of the write that made a webhook event (issue 32, item 1; docs/operations.md, "Traces"):
 * `webhook_events.traceparent` holds the W3C `traceparent` of the span that was active when the write recorded the
 * event (`00-<trace id>-<span id>-<flags>`), so the delivery worker's attempt continues that trace and the receiver
 * gets a `traceparent` of the same trace. Null when traces were off at write time, and for every older event.
 */
import type { Knex } from 'knex';
import { runSqlScript } from './sql-script';

const SQL_UP = String.raw`
ALTER TABLE webhook_events ADD COLUMN IF NOT EXISTS traceparent text;
`;

const SQL_DOWN = String.raw`
ALTER TABLE webhook_events DROP COLUMN IF EXISTS traceparent;
`;

export async function up(knex: Knex): Promise<void> {
  await runSqlScript(knex, SQL_UP);
}

export async function down(knex: Knex): Promise<void> {
  await runSqlScript(knex, SQL_DOWN);
}
