#!/usr/bin/env node
/**
 * Part of `npm run lint:layers` (beside tools/lint-raw-sql.js): one owner per table (issue 27 item 2).
 * Every table of migrations/ has one owner module, its store in the feature's core folder; a table named in
 * a query anywhere else in src/ fails: `db('t')` / `trx('t')` / `.from('t')` / `.into('t')` / `.table('t')` /
 * `.join('t')` (any join) / `.update('t')`, or a string naming it after FROM, JOIN, INTO, UPDATE or TABLE.
 * Other features reach the table through the owner's named functions (they take the caller's DbHandle, so a
 * transaction stays one). Comments are not read. Named exceptions are in EXCEPT, one line each. Every table a
 * migration creates must have an owner in OWNERS.
 *   node tools/lint-table-owners.js [ROOT]   ROOT: the tree to check (default: this repository)
 */
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(process.argv[2] ?? path.join(__dirname, '..'));
const src = path.join(root, 'src');

/** Table -> the one module of src/ that queries it (docs/architecture.md, "Table owners"). */
const OWNERS = {
  workspaces: 'src/core/workspaces/workspaces.store.ts',
  api_keys: 'src/core/api-keys/api-keys.store.ts',
  api_key_workspaces: 'src/core/api-keys/api-keys.store.ts',
  api_key_usage: 'src/core/api-keys/usage.store.ts',
  api_key_operation_usage: 'src/core/api-keys/usage.store.ts',
  forms: 'src/core/forms/forms.store.ts',
  questions: 'src/core/forms/forms.store.ts',
  datatables: 'src/core/datatables/datatables.store.ts',
  datatable_fields: 'src/core/datatables/datatables.store.ts',
  datatable_rows: 'src/core/datatables/datatables.store.ts',
  responses: 'src/core/responses/responses.store.ts',
  response_counts: 'src/core/responses/responses.store.ts',
  response_day_counts: 'src/core/responses/responses.store.ts',
  sentiment_backfill: 'src/core/responses/responses.store.ts',
  submission_tokens: 'src/core/responses/submission-tokens.store.ts',
  response_deletions: 'src/core/responses/deletions.ts',
  answer_rollups: 'src/core/analytics/analytics.store.ts',
  response_daily: 'src/core/analytics/analytics.store.ts',
  keyword_rollups: 'src/core/analytics/keywords.store.ts',
  keyword_rollups_monthly: 'src/core/analytics/keywords.store.ts',
  email_events: 'src/core/email-events/email-events.store.ts',
  email_event_counts: 'src/core/email-events/email-events.store.ts',
  webhook_endpoints: 'src/core/webhooks/webhooks.store.ts',
  webhook_events: 'src/core/webhooks/webhooks.store.ts',
  webhook_deliveries: 'src/core/webhooks/webhooks.store.ts',
  webhook_recoveries: 'src/core/webhooks/recovery.ts',
  server_secrets: 'src/core/links/server-secrets.store.ts',
  email_link_uses: 'src/core/links/link-uses.store.ts',
  dashboard_links: 'src/core/dashboards/dashboard-links.store.ts',
  dashboard_download_claims: 'src/core/dashboards/dashboard-links.store.ts',
  audit_events: 'src/core/audit/audit.store.ts',
  audit_chain_heads: 'src/core/audit/audit.store.ts',
  event_log: 'src/core/events/event-log.store.ts',
  event_log_pruned: 'src/core/events/event-log.store.ts',
  erasure_requests: 'src/core/respondents/erasure.store.ts',
  email_suppressions: 'src/core/respondents/erasure.store.ts',
  topics: 'src/core/topics/topics.store.ts',
  change_marks: 'src/core/changes/change-marks.store.ts',
  change_totals: 'src/core/changes/change-marks.store.ts',
  response_topics: 'src/core/topics/topics.store.ts',
};

/** Named exceptions: file (or folder, ending in /) -> tables it may query besides their owner, and why. */
const EXCEPT = {
  // The import writes every table in bulk, in one transaction, through its own writers (docs/import.md).
  'src/core/import/': Object.keys(OWNERS),
  // The COPY writer of the import (pg's COPY FROM STDIN), used by src/core/import only.
  'src/db/copy-writer.ts': Object.keys(OWNERS),
  // Partial-day analytics compose their rollup query on a builder over `responses` (partialResponses), which a named read cannot return.
  'src/core/analytics/analytics.store.ts': ['responses'],
  // Partial-day keywords expand responses with response_keyword_terms on the same builder (partialResponses).
  'src/core/analytics/keywords.store.ts': ['responses'],
  // The search's excerpts (ts_headline over a page's text answers) are built where the search SQL is (docs/api-rules.md, "Searching text answers").
  'src/core/responses/search.ts': ['responses'],
  // A topic's tags are written by one INSERT … SELECT over the responses that match it, and counted per day over them (docs/analytics.md, "Topics").
  'src/core/topics/topics.store.ts': ['responses'],
  // A dashboard page checks its link and the minting key in one query (left join), so a revoked key refuses at once.
  'src/core/dashboards/dashboard-links.store.ts': ['api_keys'],
  // A row write reads the table's fields and the enabled endpoints in ONE query (writeContext), one round trip per write.
  'src/core/datatables/datatables.store.ts': ['webhook_endpoints'],
};

const TABLES = Object.keys(OWNERS).join('|');
/** Knex builder calls naming a table: db('t'), trx('t'), .from('t'), .into('t'), .table('t'), .join('t'), .leftJoin('t as x') ... */
const BUILDER = new RegExp(
  `(?:\\b(?:db|trx|knex|handle|tx)|\\.(?:from|into|table|update|\\w*[jJ]oin))\\s*\\(\\s*['"\`](${TABLES})(?:\\s+as\\s+\\w+)?['"\`]`,
  'g',
);
/** SQL text naming a table: FROM t, JOIN t, INTO t, UPDATE t, TABLE t (case-insensitive keywords). */
const RAW = new RegExp(`\\b(?:from|join|into|update|table)\\s+(?:only\\s+)?(${TABLES})\\b`, 'gi');

const allowed = (rel, table) =>
  OWNERS[table] === rel ||
  Object.entries(EXCEPT).some(([where, tables]) => (where.endsWith('/') ? rel.startsWith(where) : rel === where) && tables.includes(table));

const problems = [];
const walk = (dir) => {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(file);
    else if (file.endsWith('.ts') && !file.endsWith('.gen.ts')) {
      const rel = path.relative(root, file).split(path.sep).join('/');
      const lines = fs
        .readFileSync(file, 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' '))
        .split('\n')
        .map((line) => line.replace(/(^|[^:'"`])\/\/.*$/, '$1'));
      lines.forEach((line, i) => {
        const seen = new Set();
        for (const m of [...line.matchAll(BUILDER), ...line.matchAll(RAW)]) {
          const table = m[1].toLowerCase();
          if (OWNERS[table] && !seen.has(table) && !allowed(rel, table)) {
            seen.add(table);
            problems.push(`${rel}:${i + 1}: table ${table} queried outside its owner ${OWNERS[table]}`);
          }
        }
      });
    }
  }
};
if (fs.existsSync(src)) walk(src);
// Every table the migrations create has an owner here, so a new table cannot go unchecked.
const migrations = path.join(root, 'migrations');
if (fs.existsSync(migrations)) {
  for (const name of fs.readdirSync(migrations).filter((f) => f.endsWith('.ts'))) {
    for (const m of fs.readFileSync(path.join(migrations, name), 'utf8').matchAll(/create\s+table\s+(?:if\s+not\s+exists\s+)?(\w+)/gi)) {
      if (!OWNERS[m[1].toLowerCase()]) problems.push(`migrations/${name}: table ${m[1]} has no owner in tools/lint-table-owners.js`);
    }
  }
}
if (problems.length > 0) {
  console.error(problems.join('\n'));
  process.exit(1);
}
