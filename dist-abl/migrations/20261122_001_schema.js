"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.up = up;
exports.down = down;
const sql_script_1 = require("./sql-script");
const SQL_UP = String.raw `
CREATE TABLE IF NOT EXISTS workspaces (
  id          text PRIMARY KEY,
  name        text NOT NULL,
  link        text NOT NULL,
  created_at  timestamptz(3) NOT NULL DEFAULT now(),
  CONSTRAINT workspaces_link_key UNIQUE (link)
);

CREATE TABLE IF NOT EXISTS api_keys (
  id                     text PRIMARY KEY,
  name                   text NOT NULL,
  key_hash               text NOT NULL,
  prefix                 text NOT NULL,
  scopes                 text[] NOT NULL,
  style                  text NOT NULL DEFAULT 'A' CHECK (style IN ('A', 'B')),
  rate_limit_per_minute  integer CHECK (rate_limit_per_minute > 0),
  created_at             timestamptz(3) NOT NULL DEFAULT now(),
  expires_at             timestamptz(3),
  revoked_at             timestamptz(3),
  last_used_at           timestamptz(3),
  CONSTRAINT api_keys_key_hash_key UNIQUE (key_hash)
);

CREATE TABLE IF NOT EXISTS api_key_workspaces (
  workspace_id  text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  api_key_id    text NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
  PRIMARY KEY (workspace_id, api_key_id)
);
CREATE INDEX IF NOT EXISTS api_key_workspaces_key_idx ON api_key_workspaces (api_key_id);

CREATE TABLE IF NOT EXISTS forms (
  workspace_id      text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  id                text NOT NULL,
  name              text NOT NULL,
  default_language  text NOT NULL DEFAULT 'en',
  translations      jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at        timestamptz(3) NOT NULL DEFAULT now(),
  updated_at        timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, id)
);
CREATE INDEX IF NOT EXISTS forms_keyset_created_idx ON forms (workspace_id, created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS forms_keyset_name_idx ON forms (workspace_id, name, id);

CREATE TABLE IF NOT EXISTS questions (
  workspace_id  text NOT NULL,
  form_id       text NOT NULL,
  id            text NOT NULL,
  position      integer NOT NULL,
  type          text NOT NULL CHECK (type IN ('single_choice', 'multiple_choice', 'text', 'email',
                                              'number', 'rating', 'nps', 'date')),
  title         text NOT NULL,
  required      boolean NOT NULL DEFAULT false,
  options       jsonb NOT NULL DEFAULT '[]'::jsonb,
  validation    jsonb NOT NULL DEFAULT '{}'::jsonb,
  PRIMARY KEY (workspace_id, form_id, id),
  FOREIGN KEY (workspace_id, form_id) REFERENCES forms (workspace_id, id) ON DELETE CASCADE
);

CREATE TABLE IF NOT EXISTS datatables (
  workspace_id  text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  id            text NOT NULL,
  name          text NOT NULL,
  row_count     bigint NOT NULL DEFAULT 0,
  created_at    timestamptz(3) NOT NULL DEFAULT now(),
  updated_at    timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, id)
);
CREATE INDEX IF NOT EXISTS datatables_keyset_created_idx ON datatables (workspace_id, created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS datatables_keyset_name_idx ON datatables (workspace_id, name, id);

CREATE TABLE IF NOT EXISTS datatable_fields (
  workspace_id  text NOT NULL,
  datatable_id  text NOT NULL,
  name          text NOT NULL,
  type          text NOT NULL CHECK (type IN ('string', 'number', 'boolean', 'date', 'json')),
  position      integer NOT NULL,
  PRIMARY KEY (workspace_id, datatable_id, name),
  FOREIGN KEY (workspace_id, datatable_id) REFERENCES datatables (workspace_id, id) ON DELETE CASCADE
);

CREATE TABLE IF NOT EXISTS datatable_rows (
  workspace_id  text NOT NULL,
  datatable_id  text NOT NULL,
  row_id        text NOT NULL,
  data          jsonb NOT NULL,
  -- The upsert key (data.id) as a real column, so ON CONFLICT can use a unique index on it.
  external_id   text GENERATED ALWAYS AS (data ->> 'id') STORED,
  created_at    timestamptz(3) NOT NULL DEFAULT now(),
  updated_at    timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, row_id),
  FOREIGN KEY (workspace_id, datatable_id) REFERENCES datatables (workspace_id, id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX IF NOT EXISTS datatable_rows_external_id_key
  ON datatable_rows (workspace_id, datatable_id, external_id);
CREATE INDEX IF NOT EXISTS datatable_rows_keyset_created_idx
  ON datatable_rows (workspace_id, datatable_id, created_at DESC, row_id DESC);
CREATE INDEX IF NOT EXISTS datatable_rows_keyset_updated_idx
  ON datatable_rows (workspace_id, datatable_id, updated_at DESC, row_id DESC);

CREATE TABLE IF NOT EXISTS responses (
  workspace_id            text NOT NULL,
  id                      text NOT NULL,
  form_id                 text NOT NULL,
  score                   double precision NOT NULL,
  version                 integer NOT NULL DEFAULT 1,
  language                text NOT NULL,
  -- Answers as presented: [{question_id, type, title, value, reporting_label}] in the response's
  -- language, rendered once at write time so a list page is a plain index scan and a map.
  answers                 jsonb NOT NULL DEFAULT '[]'::jsonb,
  respondent_email        text,
  email_id                text,
  row_id                  text,
  table_data              jsonb,
  table_data_captured_at  timestamptz(3),
  actionlists             jsonb NOT NULL DEFAULT '[]'::jsonb,
  created_at              timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, id),
  FOREIGN KEY (workspace_id, form_id) REFERENCES forms (workspace_id, id) ON DELETE CASCADE,
  FOREIGN KEY (workspace_id, row_id) REFERENCES datatable_rows (workspace_id, row_id) ON DELETE SET NULL (row_id),
  CONSTRAINT responses_email_pair CHECK ((respondent_email IS NULL) = (email_id IS NULL))
);
CREATE INDEX IF NOT EXISTS responses_keyset_created_idx ON responses (workspace_id, created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS responses_form_keyset_created_idx ON responses (workspace_id, form_id, created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS responses_keyset_score_idx ON responses (workspace_id, score DESC, id DESC);
CREATE INDEX IF NOT EXISTS responses_form_keyset_score_idx ON responses (workspace_id, form_id, score DESC, id DESC);
CREATE INDEX IF NOT EXISTS responses_email_idx ON responses (workspace_id, email_id) WHERE email_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS responses_row_idx ON responses (workspace_id, row_id) WHERE row_id IS NOT NULL;

-- Kept with the writes: one row per (form, score). Totals, per-form counts, score-bound counts and
-- the per-form average are sums over a handful of rows, whatever the number of responses.
CREATE TABLE IF NOT EXISTS response_counts (
  workspace_id  text NOT NULL,
  form_id       text NOT NULL,
  score         double precision NOT NULL,
  responses     bigint NOT NULL,
  PRIMARY KEY (workspace_id, form_id, score)
);

CREATE TABLE IF NOT EXISTS email_events (
  workspace_id  text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  id            text NOT NULL,
  email_id      text NOT NULL,
  email         text NOT NULL,
  type          text NOT NULL CHECK (type IN ('send', 'delivery', 'open', 'click', 'bounce',
                                              'complaint', 'unsubscribe')),
  row_id        text,
  form_id       text,
  flow_id       text,
  created_at    timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, id)
);
CREATE INDEX IF NOT EXISTS email_events_keyset_created_idx ON email_events (workspace_id, created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS email_events_email_keyset_idx ON email_events (workspace_id, email_id, created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS email_events_type_keyset_idx ON email_events (workspace_id, type, created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS email_events_recipient_keyset_idx ON email_events (workspace_id, lower(email), created_at DESC, id DESC);

CREATE TABLE IF NOT EXISTS email_event_counts (
  workspace_id  text NOT NULL,
  type          text NOT NULL,
  events        bigint NOT NULL,
  PRIMARY KEY (workspace_id, type)
);

CREATE TABLE IF NOT EXISTS webhook_endpoints (
  workspace_id  text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  id            text NOT NULL,
  url           text NOT NULL,
  events        text[] NOT NULL,
  description   text,
  enabled       boolean NOT NULL DEFAULT true,
  -- Signing secret: kept in clear because deliveries are signed with it (HMAC).
  secret        text NOT NULL,
  created_at    timestamptz(3) NOT NULL DEFAULT now(),
  updated_at    timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, id)
);
CREATE INDEX IF NOT EXISTS webhook_endpoints_keyset_idx ON webhook_endpoints (workspace_id, created_at DESC, id DESC);

-- Counter maintenance. Rows are aggregated per statement and applied in key order (no deadlocks
-- between concurrent multi-row writers).
CREATE OR REPLACE FUNCTION response_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    INSERT INTO response_counts AS c (workspace_id, form_id, score, responses)
      SELECT workspace_id, form_id, score, -count(*) FROM old_rows GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
    ON CONFLICT (workspace_id, form_id, score) DO UPDATE SET responses = c.responses + EXCLUDED.responses;
  END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') THEN
    INSERT INTO response_counts AS c (workspace_id, form_id, score, responses)
      SELECT workspace_id, form_id, score, count(*) FROM new_rows GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
    ON CONFLICT (workspace_id, form_id, score) DO UPDATE SET responses = c.responses + EXCLUDED.responses;
  END IF;
  RETURN NULL;
END
$fn$;
DROP TRIGGER IF EXISTS responses_counts_insert ON responses;
CREATE TRIGGER responses_counts_insert AFTER INSERT ON responses
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION response_counts_apply();
DROP TRIGGER IF EXISTS responses_counts_update ON responses;
CREATE TRIGGER responses_counts_update AFTER UPDATE ON responses
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION response_counts_apply();
DROP TRIGGER IF EXISTS responses_counts_delete ON responses;
CREATE TRIGGER responses_counts_delete AFTER DELETE ON responses
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION response_counts_apply();

CREATE OR REPLACE FUNCTION email_event_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    INSERT INTO email_event_counts AS c (workspace_id, type, events)
      SELECT workspace_id, type, -count(*) FROM old_rows GROUP BY 1, 2 ORDER BY 1, 2
    ON CONFLICT (workspace_id, type) DO UPDATE SET events = c.events + EXCLUDED.events;
  END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') THEN
    INSERT INTO email_event_counts AS c (workspace_id, type, events)
      SELECT workspace_id, type, count(*) FROM new_rows GROUP BY 1, 2 ORDER BY 1, 2
    ON CONFLICT (workspace_id, type) DO UPDATE SET events = c.events + EXCLUDED.events;
  END IF;
  RETURN NULL;
END
$fn$;
DROP TRIGGER IF EXISTS email_events_counts_insert ON email_events;
CREATE TRIGGER email_events_counts_insert AFTER INSERT ON email_events
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION email_event_counts_apply();
DROP TRIGGER IF EXISTS email_events_counts_update ON email_events;
CREATE TRIGGER email_events_counts_update AFTER UPDATE ON email_events
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION email_event_counts_apply();
DROP TRIGGER IF EXISTS email_events_counts_delete ON email_events;
CREATE TRIGGER email_events_counts_delete AFTER DELETE ON email_events
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION email_event_counts_apply();

CREATE OR REPLACE FUNCTION datatable_row_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'DELETE' THEN
    UPDATE datatables d SET row_count = d.row_count - x.n
      FROM (SELECT workspace_id, datatable_id, count(*) AS n FROM old_rows GROUP BY 1, 2) x
     WHERE d.workspace_id = x.workspace_id AND d.id = x.datatable_id;
  ELSE
    UPDATE datatables d SET row_count = d.row_count + x.n
      FROM (SELECT workspace_id, datatable_id, count(*) AS n FROM new_rows GROUP BY 1, 2) x
     WHERE d.workspace_id = x.workspace_id AND d.id = x.datatable_id;
  END IF;
  RETURN NULL;
END
$fn$;
DROP TRIGGER IF EXISTS datatable_rows_counts_insert ON datatable_rows;
CREATE TRIGGER datatable_rows_counts_insert AFTER INSERT ON datatable_rows
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION datatable_row_counts_apply();
DROP TRIGGER IF EXISTS datatable_rows_counts_delete ON datatable_rows;
CREATE TRIGGER datatable_rows_counts_delete AFTER DELETE ON datatable_rows
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION datatable_row_counts_apply();
`;
const SQL_DOWN = String.raw `
DROP TABLE IF EXISTS webhook_endpoints, email_event_counts, email_events, response_counts, responses,
  datatable_rows, datatable_fields, datatables, questions, forms, api_key_workspaces, api_keys, workspaces CASCADE;
DROP FUNCTION IF EXISTS response_counts_apply(), email_event_counts_apply(), datatable_row_counts_apply();
`;
async function up(knex) {
    await (0, sql_script_1.runSqlScript)(knex, SQL_UP);
}
async function down(knex) {
    await (0, sql_script_1.runSqlScript)(knex, SQL_DOWN);
}
//# sourceMappingURL=20261122_001_schema.js.map