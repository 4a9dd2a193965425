/**
 * Webhook delivery (docs/webhooks.md, "Endpoints"): endpoint style, disabled reason and the previous secret of
 * a rotation; the outbox (`webhook_events`) and the delivery log (`webhook_deliveries`); and the
 * pg-boss job queue the worker reads (docs/decisions.md "Webhook delivery on pg-boss").
 *
 * pg-boss's own schema is installed here rather than by pg-boss at start (`migrate: false`): the
 * API process enqueues jobs before any worker starts, and PGlite runs one statement per query, so
 * pg-boss's construction script is split into statements (its BEGIN/COMMIT dropped: knex runs this
 * migration in a transaction). A later pg-boss schema version needs a migration of its own
 * (`PgBoss.getMigrationPlans`).
 */
import type { Knex } from 'knex';
import PgBoss from 'pg-boss';
import { runSqlScript, splitStatements } from './sql-script';

/** pg-boss schema name (its default). */
const PGBOSS_SCHEMA = 'pgboss';
/** The delivery queue; src/core/webhooks/queue.ts sends to it under the same name (DELIVERY_QUEUE). */
const DELIVERY_QUEUE = 'webhook-delivery';

const SQL_UP = String.raw`
ALTER TABLE webhook_endpoints ADD COLUMN IF NOT EXISTS style text NOT NULL DEFAULT 'A' CHECK (style IN ('A', 'B'));
ALTER TABLE webhook_endpoints ADD COLUMN IF NOT EXISTS disabled_reason text;
-- During 24 h after a rotation the previous secret signs too (two v1 signatures).
ALTER TABLE webhook_endpoints ADD COLUMN IF NOT EXISTS previous_secret text;
ALTER TABLE webhook_endpoints ADD COLUMN IF NOT EXISTS previous_secret_until timestamptz(3);

CREATE TABLE IF NOT EXISTS webhook_events (
  workspace_id  text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  id            text NOT NULL,
  type          text NOT NULL,
  -- The style-neutral resource (core/webhooks/outbox.ts); rendered per endpoint style when sent.
  resource      jsonb NOT NULL,
  created_at    timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, id)
);

CREATE TABLE IF NOT EXISTS webhook_deliveries (
  workspace_id      text NOT NULL,
  id                text NOT NULL,
  endpoint_id       text NOT NULL,
  event_id          text NOT NULL,
  event_type        text NOT NULL,
  status            text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
  attempts          integer NOT NULL DEFAULT 0,
  last_status_code  integer,
  last_error        text,
  next_attempt_at   timestamptz(3),
  -- The token of the one job that may make the next attempt (a retry replaces it).
  attempt_token     text,
  -- Set while a worker makes an attempt: no other worker claims the delivery before it passes.
  claimed_until     timestamptz(3),
  created_at        timestamptz(3) NOT NULL DEFAULT now(),
  updated_at        timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, id),
  FOREIGN KEY (workspace_id, endpoint_id) REFERENCES webhook_endpoints (workspace_id, id) ON DELETE CASCADE,
  FOREIGN KEY (workspace_id, event_id) REFERENCES webhook_events (workspace_id, id) ON DELETE CASCADE
);
CREATE INDEX IF NOT EXISTS webhook_deliveries_keyset_idx ON webhook_deliveries (workspace_id, endpoint_id, created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS webhook_deliveries_event_idx ON webhook_deliveries (workspace_id, event_id);
CREATE INDEX IF NOT EXISTS webhook_deliveries_pending_idx ON webhook_deliveries (workspace_id, endpoint_id) WHERE status = 'pending';
`;

const SQL_DOWN = String.raw`
DROP TABLE IF EXISTS webhook_deliveries, webhook_events;
ALTER TABLE webhook_endpoints DROP COLUMN IF EXISTS style, DROP COLUMN IF EXISTS disabled_reason,
  DROP COLUMN IF EXISTS previous_secret, DROP COLUMN IF EXISTS previous_secret_until;
DROP SCHEMA IF EXISTS pgboss CASCADE;
`;

export async function up(knex: Knex): Promise<void> {
  await runSqlScript(knex, SQL_UP);
  const installed = await knex.raw<{ rows: Array<{ t: unknown }> }>(`SELECT to_regclass('${PGBOSS_SCHEMA}.version') AS t`);
  if (!installed.rows[0]!.t) {
    const script = PgBoss.getConstructionPlans(PGBOSS_SCHEMA);
    for (const stmt of splitStatements(script)) {
      if (/^(BEGIN|COMMIT|SET LOCAL)\b/i.test(stmt)) continue;
      await knex.raw(stmt.replace(/\?/g, '\\?'));
    }
  }
  // The queue (a partition of pgboss.job) must exist before the first job is sent.
  const options = JSON.stringify({
    policy: 'standard',
    retryLimit: 5,
    retryDelay: 30,
    retryBackoff: false,
    expireInSeconds: 60,
    retentionMinutes: 60 * 24 * 14,
  });
  await knex.raw(`SELECT ${PGBOSS_SCHEMA}.create_queue('${DELIVERY_QUEUE}', '${options}'::json)`);
}

export async function down(knex: Knex): Promise<void> {
  await runSqlScript(knex, SQL_DOWN);
}
