/**
 * Pruning (docs/operations.md "What grows, and what bounds it"): the worker deletes finished webhook
 * deliveries and events past `WEBHOOK_LOG_RETENTION_DAYS` in batches (src/core/webhooks/retention.ts).
 * These two indexes let each batch find its rows without reading the whole table: the partial one
 * holds only finished deliveries (the pending ones never go), by the time they last changed.
 * `submission_tokens_created_idx` (migration 003) already serves the tokens' prune.
 */
import type { Knex } from 'knex';
import { runSqlScript } from './sql-script';

const SQL_UP = String.raw`
CREATE INDEX IF NOT EXISTS webhook_deliveries_ended_idx ON webhook_deliveries (updated_at) WHERE status IN ('succeeded', 'failed');
CREATE INDEX IF NOT EXISTS webhook_events_created_idx ON webhook_events (created_at);
`;

const SQL_DOWN = String.raw`
DROP INDEX IF EXISTS webhook_deliveries_ended_idx;
DROP INDEX IF EXISTS webhook_events_created_idx;
`;

export async function up(knex: Knex): Promise<void> {
  await runSqlScript(knex, SQL_UP);
}

export async function down(knex: Knex): Promise<void> {
  await runSqlScript(knex, SQL_DOWN);
}
