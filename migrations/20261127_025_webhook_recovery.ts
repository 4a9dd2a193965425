/**
 * Webhook recovery by time (issue 31 item 3; docs/webhooks.md, "Recovering missed events";
 * src/core/webhooks/recovery.ts).
 *
 * - `webhook_recoveries`: one row per `POST {ws}/webhook-endpoints/{id}/recover`: the window as asked (`since`,
 *   `until`, NULL when not given) and as run (`window_end`, exclusive: `until`, or the request's time), the event
 *   types the endpoint subscribed to when asked, `status` `queued` → `running` → `succeeded` | `failed`, the log
 *   position the job has handled up to (`position`, NULL before the first batch), `total` (the window's events the
 *   endpoint subscribes to, counted when asked), `done` (those handled) and `redelivered` (those sent again). Its
 *   rows go with the endpoint. The job runs on the worker (pg-boss queue `webhook-recovery`, created here).
 * - `webhook_deliveries.recovery_id`: the recovery that made a delivery (NULL for a delivery of a write), shown in
 *   the delivery log. No foreign key: a delivery outlives the recovery's row only when the endpoint goes, and
 *   then it goes too.
 */
import type { Knex } from 'knex';
import { createJobQueue, deleteJobQueue, runSqlScript } from './sql-script';

/** The recovery job queue; src/core/webhooks/recovery.ts sends to it under the same name. */
const RECOVERY_QUEUE = 'webhook-recovery';

const SQL_UP = String.raw`
CREATE TABLE IF NOT EXISTS webhook_recoveries (
  workspace_id  text NOT NULL,
  id            text NOT NULL,
  endpoint_id   text NOT NULL,
  since         timestamptz(3) NOT NULL,
  until         timestamptz(3),
  window_end    timestamptz(3) NOT NULL,
  event_types   text[] NOT NULL,
  status        text NOT NULL CHECK (status IN ('queued', 'running', 'succeeded', 'failed')),
  position      text,
  total         bigint NOT NULL DEFAULT 0,
  done          bigint NOT NULL DEFAULT 0,
  redelivered   bigint NOT NULL DEFAULT 0,
  error         text,
  requested_by  text,
  created_at    timestamptz(3) NOT NULL DEFAULT now(),
  updated_at    timestamptz(3) NOT NULL DEFAULT now(),
  finished_at   timestamptz(3),
  PRIMARY KEY (workspace_id, id),
  FOREIGN KEY (workspace_id, endpoint_id) REFERENCES webhook_endpoints (workspace_id, id) ON DELETE CASCADE
);
CREATE INDEX IF NOT EXISTS webhook_recoveries_endpoint_idx ON webhook_recoveries (workspace_id, endpoint_id, status);

ALTER TABLE webhook_deliveries ADD COLUMN IF NOT EXISTS recovery_id text;
`;

const SQL_DOWN = String.raw`
ALTER TABLE webhook_deliveries DROP COLUMN IF EXISTS recovery_id;
DROP TABLE IF EXISTS webhook_recoveries;
`;

export async function up(knex: Knex): Promise<void> {
  await runSqlScript(knex, SQL_UP);
  await createJobQueue(knex, RECOVERY_QUEUE, { retryLimit: 10, retryDelay: 30, expireInSeconds: 900, retentionMinutes: 60 * 24 * 14 });
}

export async function down(knex: Knex): Promise<void> {
  await deleteJobQueue(knex, RECOVERY_QUEUE);
  await runSqlScript(knex, SQL_DOWN);
}
