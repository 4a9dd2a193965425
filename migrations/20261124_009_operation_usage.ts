/**
 * API key usage per operation (issue 20, docs/analytics.md, "Usage per operation"): requests per key,
 * UTC day, answer style and operation (the openapi/ `operationId` the request matched, or `unmatched`),
 * with the first and last instant seen that day, and `attention`: for a Style B request that has no mechanical
 * Style A translation, what stands in the way (the translator's reason category, e.g. `query.sort: several sort
 * fields`; a bounded set, docs/migrating-between-styles.md, "Translating a request"), else ''. Written by the platform's usage counter beside
 * `api_key_usage`, with the same additive upsert (requests add up, first_seen takes the least, last_seen
 * the greatest), so several instances add up. Kept 400 days; the worker prunes older days in batches,
 * which `api_key_operation_usage_day_idx` lets it find without reading the table.
 */
import type { Knex } from 'knex';
import { runSqlScript } from './sql-script';

const SQL_UP = String.raw`
CREATE TABLE IF NOT EXISTS api_key_operation_usage (
  api_key_id  text NOT NULL,
  day         date NOT NULL,
  style       text NOT NULL CHECK (style IN ('A', 'B')),
  operation   text NOT NULL,
  attention   text NOT NULL DEFAULT '',
  requests    bigint NOT NULL,
  first_seen  timestamptz NOT NULL,
  last_seen   timestamptz NOT NULL,
  PRIMARY KEY (api_key_id, day, style, operation, attention)
);
CREATE INDEX IF NOT EXISTS api_key_operation_usage_day_idx ON api_key_operation_usage (day);
`;

const SQL_DOWN = String.raw`
DROP TABLE IF EXISTS api_key_operation_usage;
`;

export async function up(knex: Knex): Promise<void> {
  await runSqlScript(knex, SQL_UP);
}

export async function down(knex: Knex): Promise<void> {
  await runSqlScript(knex, SQL_DOWN);
}
