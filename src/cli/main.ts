#!/usr/bin/env node
/**
 * The `feedback-service` executable (README.md, "CLI"): serve, migrate, import, seed --demo,
 * keys create, keys report, audit verify, workspaces retention, demo, worker, mcp. Results go to stdout (JSON where a program reads them); problems go to stderr as
 * one line each, with exit code 1 and no stack trace for expected errors.
 */
// First, before any module that loads express, pg or ioredis: the memory restart and the traces (preload.ts).
import './preload';
import path from 'node:path';
import cliProgress from 'cli-progress';
import { Command, InvalidArgumentError, Option } from 'commander';
import { loadConfig, SETTINGS, type Config } from '../config';
import { setSentimentEnabled } from '../core/responses/sentiment';
import { createDb, isEmbedded, migrateLatest, withTransaction, type Db } from '../db/connection';
import type { DbTransaction } from '../db';
import { lockDataDir } from '../db/data-dir-lock';
import { settleFollowUps } from '../db/follow-up';
import { startServer } from '../server';
import { createDeliveryWorker } from '../delivery/worker';
import { createLogger } from '../platform/logger';
import { logTracingState, stopTracing } from '../platform/tracing-state';
import { createApiKey, type ApiKeyStyle } from '../core/api-keys/create-api-key';
import { OPERATION_USAGE_WINDOW_DAYS } from '../core/api-keys/usage.store';
import { AppError } from '../core/errors';
import { migrationReport, styleBSchedule } from '../core/migration/report';
import { presentMigrationReportA } from '../adapters/style-a/analytics.present';
import { ImportError } from '../core/import/importer';
import { importFixtureFile } from './import-file';
import { createDemoKey, DEMO_KEY_RATE_LIMIT_PER_MINUTE, DEMO_RESPONSE_COUNT, demoPageTargets, seedDemo, seedDemoTopics } from '../core/seed/demo';
import { hasWorkspaces, setResponseRetention, unknownWorkspaces } from '../core/workspaces/workspaces.store';
import { DEMO_KEY_FILE, readDemoKey, writeDemoKey } from './demo-key-file';
import { ALL_SCOPES, isScope, type Scope } from '../core/scopes';
import { parseInstant } from '../core/query/dates';
import { mintLink } from '../core/links/links';
import { MCP_KEY_VARIABLE, McpStartError, runStdioMcp } from './mcp-stdio';
import { apiKeyCreated, demoKeyCreated, retentionChanged } from '../core/audit/audit-events';
import { CLI_ORIGIN, recordAudit, verifyAuditChains } from '../core/audit/audit.store';

/** An expected failure: printed as one line on stderr, exit 1. */
class CliError extends Error {
  constructor(
    message: string,
    /** Extra lines printed before the message (e.g. every problem of an import). */
    readonly lines: string[] = [],
  ) {
    super(message);
    this.name = 'CliError';
  }
}

function errorMessage(e: unknown): string {
  if (e instanceof AggregateError && e.errors.length > 0) {
    // pg reports a refused connection to every address of a host as an AggregateError with no message.
    return [...new Set(e.errors.map((x) => errorMessage(x)))].join('; ');
  }
  if (e instanceof Error) return e.message || (e as NodeJS.ErrnoException).code || e.name;
  return String(e);
}

function print(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

function readConfig(overrides: Partial<Config> = {}): Config {
  try {
    const config = loadConfig(overrides);
    // Process-wide: the import, the demo seed and `serve` write responses with sentiment unless SENTIMENT=off.
    setSentimentEnabled(config.sentimentEnabled);
    return config;
  } catch (e) {
    throw new CliError(errorMessage(e));
  }
}

/** Opens the database of the configuration, runs `fn`, and always closes it. */
async function withDb<T>(config: Config, migrate: boolean, fn: (db: Db) => Promise<T>): Promise<T> {
  const db = createDb(config);
  try {
    if (migrate) await migrateLatest(db);
    return await fn(db);
  } finally {
    // The audit seals the command's writes started (docs/security.md, "The audit trail") finish before the exit.
    await settleFollowUps(db);
    await db.destroy();
  }
}

function note(message: string): void {
  if (process.stderr.isTTY) process.stderr.write(`${message}\n`);
}

/** A bar of records written on stderr, only when stderr is a terminal. */
function writeProgress(): { onProgress?: (done: number, total: number) => void; stop(): void } {
  if (!process.stderr.isTTY) return { stop: () => undefined };
  let bar: cliProgress.SingleBar | undefined;
  return {
    onProgress: (done, total) => {
      if (!bar) {
        bar = new cliProgress.SingleBar(
          { format: 'Writing  [{bar}] {percentage}% | {value}/{total} records', stream: process.stderr, hideCursor: true },
          cliProgress.Presets.shades_classic,
        );
        bar.start(total, 0);
      }
      bar.update(done);
    },
    stop: () => bar?.stop(),
  };
}

/** Seeds the demo once (into an empty database) with a progress bar on a terminal. */
async function seedWithProgress(db: Db): Promise<boolean> {
  const progress = writeProgress();
  try {
    const result = await seedDemo(db, { onProgress: progress.onProgress });
    // The demo's topics (docs/analytics.md, "Topics"), their tags written in the same transaction.
    if (result.seeded) await withTransaction(db, (trx) => seedDemoTopics(trx, result.workspaceIds));
    return result.seeded;
  } finally {
    progress.stop();
  }
}

// ---------------------------------------------------------------------------------------------
// Option parsers

function portNumber(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535) throw new InvalidArgumentError('must be a port number 0-65535.');
  return n;
}

function positiveInt(value: string): number {
  if (!/^[1-9]\d*$/.test(value)) throw new InvalidArgumentError('must be a positive integer.');
  return Number(value);
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function scopesList(value: string): Scope[] {
  const scopes = value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const unknown = scopes.filter((s) => !isScope(s));
  if (unknown.length > 0) {
    throw new InvalidArgumentError(`unknown scope "${unknown[0]}"; scopes are ${ALL_SCOPES.join(', ')}.`);
  }
  return scopes as Scope[];
}

/** A date (`YYYY-MM-DD`, 00:00:00Z of that day) or an ISO 8601 date-time with an offset (docs/api-rules.md, "Dates"). */
function instant(value: string): Date {
  const parsed = parseInstant(value);
  if (parsed) return parsed;
  throw new InvalidArgumentError('must be a date YYYY-MM-DD or an ISO 8601 date-time with an offset, e.g. 2027-01-01T00:00:00Z.');
}

function keyStyle(value: string): ApiKeyStyle {
  const v = value.toUpperCase();
  if (v !== 'A' && v !== 'B') throw new InvalidArgumentError('must be A or B.');
  return v;
}

// ---------------------------------------------------------------------------------------------
// Commands

async function runImport(file: string): Promise<void> {
  const config = readConfig();
  try {
    const summary = await withDb(config, true, (db) => importFixtureFile(db, file, { progress: process.stderr.isTTY === true }));
    print(summary);
  } catch (e) {
    if (e instanceof ImportError) {
      throw new CliError(
        `nothing was imported: the document has ${e.problems.length} problem${e.problems.length === 1 ? '' : 's'}`,
        e.problems.map((p) => `${p.path}: ${p.message}`),
      );
    }
    throw e;
  }
}

async function runSeed(opts: { demo?: boolean }): Promise<void> {
  if (!opts.demo) throw new CliError('seed needs --demo (the built-in demo data set is the only one)');
  const config = readConfig();
  const out = await withDb(config, true, async (db) => {
    note(`Seeding the demo data set (${DEMO_RESPONSE_COUNT.toLocaleString('en')} responses)…`);
    const seeded = await seedWithProgress(db);
    if (!seeded) note('The database already has data: the demo data set was not loaded again.');
    const key = await withTransaction(db, (trx) => createDemoKeyAudited(trx)).catch((e: unknown) => {
      throw new CliError(errorMessage(e));
    });
    return { seeded, api_key: key.secret, workspace_ids: key.workspaceIds };
  });
  print(out);
}

interface KeysCreateOptions {
  workspace: string[];
  name: string;
  scopes?: Scope[];
  expiresAt?: Date;
  style?: ApiKeyStyle;
  rateLimit?: number;
}

async function runKeysCreate(opts: KeysCreateOptions): Promise<void> {
  if (opts.workspace.length === 0) throw new CliError('keys create needs at least one --workspace ID');
  const config = readConfig();
  const key = await withDb(config, true, async (db) => {
    const missing = await unknownWorkspaces(db, opts.workspace);
    if (missing.length > 0) throw new CliError(`unknown workspace "${missing[0]}"`);
    return withTransaction(db, async (trx) => {
      const created = await createApiKey(trx, {
        name: opts.name,
        workspaceIds: opts.workspace,
        scopes: opts.scopes,
        expiresAt: opts.expiresAt ?? null,
        style: opts.style,
        rateLimitPerMinute: opts.rateLimit ?? null,
      });
      await recordAudit(trx, CLI_ORIGIN, apiKeyCreated(created));
      return created;
    });
  });
  print({
    id: key.id,
    secret: key.secret,
    name: key.name,
    scopes: key.scopes,
    workspace_ids: key.workspaceIds,
    style: key.style,
    expires_at: key.expiresAt?.toISOString() ?? null,
    rate_limit_per_minute: key.rateLimitPerMinute,
  });
}

/** The demo key (createDemoKey) and, when a new one was made, its `api_key.created` records, in the caller's transaction. */
async function createDemoKeyAudited(trx: DbTransaction, previous?: { secret: string }): ReturnType<typeof createDemoKey> {
  const key = await createDemoKey(trx, previous);
  if (!key.reused) await recordAudit(trx, CLI_ORIGIN, demoKeyCreated(key));
  return key;
}

/**
 * `audit verify` (docs/security.md, "The audit trail"): seals what waits, walks every workspace's chain (or one) and
 * prints one line per workspace (records committed meanwhile as pending); a broken chain names its first bad record on
 * stderr and exits 1.
 */
async function runAuditVerify(opts: { workspace?: string }): Promise<void> {
  const config = readConfig();
  const checks = await withDb(config, true, (db) => verifyAuditChains(db, { workspaceId: opts.workspace }));
  const broken = checks.filter((c) => c.firstBad !== undefined);
  for (const c of checks) {
    const line = c.firstBad
      ? `${c.workspaceId}: BROKEN at record ${c.firstBad.id ?? '(none)'} (seq ${c.firstBad.seq}): ${c.firstBad.problem}`
      : `${c.workspaceId}: ${c.records} record${c.records === 1 ? '' : 's'}, chain intact, head ${c.headHash}${c.pending ? ` (${c.pending} committed since, not sealed yet)` : ''}`;
    process.stdout.write(`${line}\n`);
  }
  if (checks.length === 0) note(opts.workspace ? `no audit records for workspace "${opts.workspace}"` : 'no audit records yet');
  if (broken.length > 0) {
    const first = broken[0]!;
    throw new CliError(
      `the audit chain of ${first.workspaceId} is broken at record ${first.firstBad!.id ?? '(none)'} (seq ${first.firstBad!.seq}): ${first.firstBad!.problem}`,
    );
  }
}

/**
 * `keys report`: the key's migration report (docs/analytics.md, "Migration report") as the `data` of
 * GET {ws}/api-keys/{key_id}/migration-report, for any workspace of the key.
 */
async function runKeysReport(opts: { keyId: string; days?: number }): Promise<void> {
  const days = opts.days ?? 30;
  if (days > OPERATION_USAGE_WINDOW_DAYS) throw new CliError(`--days must be 1-${OPERATION_USAGE_WINDOW_DAYS}; got ${days}`);
  const config = readConfig();
  const today = new Date().toISOString().slice(0, 10);
  const schedule = styleBSchedule(config.styleBSunset, config.styleBDeprecatedAt);
  const report = await withDb(config, true, async (db) => {
    try {
      return await migrationReport(db, opts.keyId, { days, today, schedule });
    } catch (e) {
      if (e instanceof AppError && e.code === 'resource_not_found') throw new CliError(`unknown key "${opts.keyId}"`);
      throw e;
    }
  });
  print(presentMigrationReportA(report));
}

/** A retention in days (1-36500), or `off` (kept as the word: commander takes a parsed null for a missing value). */
function retentionDaysArg(value: string): number | 'off' {
  if (value === 'off') return 'off';
  if (!/^[1-9]\d*$/.test(value) || Number(value) > 36_500) throw new InvalidArgumentError('must be a number of days from 1 to 36500, or "off".');
  return Number(value);
}

/**
 * `workspaces retention`: sets a workspace's response retention (docs/data-rights.md, "Retention"); the worker then
 * deletes its responses and email events older than that many days. Recorded in the audit trail (actor "cli",
 * `workspace.retention_changed`). Prints `{workspace_id, response_retention_days}`.
 */
async function runWorkspaceRetention(opts: { workspace: string; days: number | 'off' }): Promise<void> {
  const config = readConfig();
  const days = opts.days === 'off' ? null : opts.days;
  await withDb(config, true, async (db) => {
    try {
      await withTransaction(db, async (trx) => {
        await setResponseRetention(trx, opts.workspace, days);
        await recordAudit(trx, CLI_ORIGIN, retentionChanged(opts.workspace, days));
      });
    } catch (e) {
      if (e instanceof AppError && e.code === 'resource_not_found') throw new CliError(`unknown workspace "${opts.workspace}"`);
      throw e;
    }
  });
  print({ workspace_id: opts.workspace, response_retention_days: days });
}

async function runServe(opts: { port?: number; migrate?: boolean; worker?: boolean }): Promise<void> {
  const config = readConfig(opts.port === undefined ? {} : { port: opts.port });
  await startServer(config, { migrate: opts.migrate === true, handleSignals: true, worker: opts.worker !== false });
}

/** `mcp`: the MCP server on stdio for the key in FEEDBACK_API_KEY (docs/agents.md, "Over stdio"). */
async function runMcp(): Promise<void> {
  const config = readConfig();
  try {
    // The secret is read here, not kept in the configuration object (which holds no secret).
    await runStdioMcp(config, process.env[MCP_KEY_VARIABLE]);
  } catch (e) {
    if (e instanceof McpStartError) throw new CliError(e.message);
    throw e;
  }
}

/** `worker`: only the webhook delivery worker (README.md, "CLI"; docs/webhooks.md, "Running the worker"), until SIGINT/SIGTERM. */
async function runWorker(opts: { migrate?: boolean }): Promise<void> {
  const config = readConfig();
  if (!config.databaseUrl) {
    throw new CliError('the embedded database (no DATABASE_URL) belongs to one process: `serve` runs the worker there; set DATABASE_URL to run workers apart');
  }
  const logger = createLogger(config.logLevel);
  logTracingState(logger);
  const db = createDb(config);
  if (opts.migrate) await migrateLatest(db);
  const worker = createDeliveryWorker({ db, config, logger });
  await worker.start();
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (stopping) process.exit(1);
      stopping = true;
      logger.info({ signal }, 'stopping the webhook worker after its current attempt');
      void worker
        .stop()
        .then(() => db.destroy())
        .then(() => stopTracing())
        .then(() => process.exit(0));
    });
  }
}

async function runMigrate(): Promise<void> {
  const config = readConfig();
  const applied = await withDb(config, false, (db) => migrateLatest(db));
  process.stdout.write(applied.length === 0 ? 'The database is up to date.\n' : `Applied ${applied.length} migration(s): ${applied.join(', ')}\n`);
}

/**
 * A demo form to answer in the browser (the translated one when it is there) and an email link to it for
 * a demo customer row, minted on PUBLIC_URL: what `demo` prints so a new user can answer a form at once.
 */
async function demoPages(
  db: Db,
  workspaceId: string,
  publicUrl: string,
): Promise<{ formId: string; languages: string[]; formUrl: string; linkUrl: string; openUrl: string } | undefined> {
  const targets = await demoPageTargets(db, workspaceId);
  if (!targets) return undefined;
  const { form, row } = targets;
  const email = row?.email ?? 'demo@example.com';
  const link = await mintLink(db, workspaceId, { formId: form.id, email, rowId: row?.rowId ?? null, flowId: 'demo' }, publicUrl);
  return {
    formId: form.id,
    languages: Object.keys(form.translations ?? {}),
    formUrl: `${publicUrl}/f/${encodeURIComponent(form.id)}`,
    linkUrl: link.url,
    openUrl: link.openUrl,
  };
}

type DemoPages = Awaited<ReturnType<typeof demoPages>>;

/**
 * The banner's lines that find responses of the demo form by an answer, by words in its text answers and by
 * sentiment, each in Style A then Style B (docs/api-rules.md, "Filters on answers", "Searching text answers",
 * "Sentiment"); `curl -G` puts each `--data-urlencode` value into the query, encoded.
 */
function findLines(h: string, list: string, formId: string): string[] {
  const get = (style: 'A' | 'B', ...params: string[]) =>
    `  curl -s -G ${h} -H 'X-API-Style: ${style}' '${list}' -d form_id=${formId} -d limit=5 ${params.map((p) => `--data-urlencode '${p}'`).join(' ')}`;
  return [
    'Find responses by an answer (scores of 6 or less), by words in the text answers, by sentiment (Style A, then B):',
    get('A', 'answer_lte=q_score:6'),
    get('B', 'filter=answers.q_score <= 6'),
    get('A', 'q=slow or langsam', 'sort=relevance'),
    get('B', 'q="too expensive" or teuer', 'sort=relevance:desc'),
    get('A', 'sentiment=negative', 'answer_present=q_reason:true'),
    get('B', 'filter=sentiment = negative, answers.q_reason != null'),
    '',
  ];
}

/** What `demo` prints once the server listens: the key, its limit, the server and ready curl lines. */
function demoBanner(
  config: Config,
  base: string,
  demo: { seeded: boolean; embedded: boolean; key: { secret: string; workspaceIds: string[]; reused: boolean }; pages: DemoPages },
): string {
  const { key, pages } = demo;
  const ws = key.workspaceIds[0]!;
  const h = `-H 'X-API-Key: ${key.secret}'`;
  return [
    '',
    `feedback-service demo ${demo.seeded ? '(demo data loaded)' : '(demo data already present)'} on ${demo.embedded ? `the embedded database in ${config.dataDir}` : 'PostgreSQL'}`,
    '',
    `  API key       ${key.secret}  (${key.reused ? 'the same as last time' : 'new'}; kept in ${path.join(config.dataDir, DEMO_KEY_FILE)} for the next start)`,
    `  rate limit    ${DEMO_KEY_RATE_LIMIT_PER_MINUTE} requests per minute for this key (other keys: RATE_LIMIT_PER_MINUTE, ${config.rateLimitPerMinute})`,
    `  workspace id  ${ws}  (Acme Inc.; the key also opens Globex: ${key.workspaceIds[1]})`,
    `  server        ${base}`,
    '',
    'Try:',
    `  curl -s ${h} '${base}/api/v1/workspaces'`,
    `  curl -s ${h} '${base}/api/v1/workspaces/${ws}/responses?limit=5'`,
    `  curl -s ${h} '${base}/api/v1/workspaces/${ws}/responses?page=2&limit=5'`,
    '',
    ...(pages
      ? [
          'Answer a form in your browser:',
          `  form page     ${pages.formUrl}${pages.languages.length > 0 ? `  (also ${pages.languages.map((l) => `?lang=${l}`).join(', ')})` : ''}`,
          `  email link    ${pages.linkUrl}`,
          `                (following it records a click, ${pages.openUrl} an open)`,
          'then see your response at the top of the first list above (newest first) and in the form summary:',
          `  curl -s ${h} '${base}/api/v1/workspaces/${ws}/forms/${pages.formId}/analytics/summary'`,
          `  curl -s ${h} '${base}/api/v1/workspaces/${ws}/email-events?limit=2'`,
          '',
          'See its results as charts in a browser, without a key: mint a dashboard link and open its data.url',
          `  curl -s -X POST ${h} '${base}/api/v1/workspaces/${ws}/forms/${pages.formId}/dashboard-links'`,
          '',
          ...findLines(h, `${base}/api/v1/workspaces/${ws}/responses`, pages.formId),
        ]
      : []),
    'Press Ctrl+C to stop.',
    '',
  ].join('\n');
}

async function runDemo(): Promise<void> {
  const config = readConfig();
  // Held until exit, so no other process slips in between our connection and the server's.
  if (!config.databaseUrl) lockDataDir(config.dataDir);
  // Our connection is closed before the server opens its own: the embedded database allows one.
  const { seeded, key, embedded, pages } = await withDb(config, true, async (db) => {
    const embeddedDb = isEmbedded(db);
    if (!(await hasWorkspaces(db))) {
      process.stderr.write(`Loading the demo data set (${DEMO_RESPONSE_COUNT.toLocaleString('en')} responses, once)…\n`);
    }
    const seededNow = await seedWithProgress(db);
    // A restart offers the key it kept: one demo key per data set, not one more all-scope key per start.
    const demoKey = await withTransaction(db, (trx) => createDemoKeyAudited(trx, readDemoKey(config.dataDir))).catch((e: unknown) => {
      throw new CliError(`${errorMessage(e)} (this database has other data: point FEEDBACK_DATA_DIR or DATABASE_URL at an empty one)`);
    });
    if (!demoKey.reused) writeDemoKey(config.dataDir, demoKey);
    const pages = await demoPages(db, demoKey.workspaceIds[0]!, config.publicUrl);
    return { seeded: seededNow, key: demoKey, embedded: embeddedDb, pages };
  });

  const server = await startServer(config, { handleSignals: true });
  const base = server.url.replace('//0.0.0.0:', '//127.0.0.1:').replace('//[::]:', '//[::1]:');
  // Through the log's own stream: after the start-up log lines and in one piece, never with a log line in its middle.
  server.printAfterLog(demoBanner(config, base, { seeded, embedded, key, pages }));
}

/** The environment settings of `serve --help`, each with its default (README.md, "Configuration"). */
function settingsHelp(): string {
  const width = Math.max(...SETTINGS.map((s) => s.name.length));
  const lines = SETTINGS.map((s) => `  ${s.name.padEnd(width)}  ${s.meaning} (default: ${s.fallback})`);
  return ['', 'Environment (checked at start-up; a bad value exits 1 naming the variable):', ...lines].join('\n');
}

/** Builds the command line program (exported for tests). */
export function buildProgram(): Command {
  const program = new Command('feedback-service')
    .description('Feedback collection and analytics API (Style A and Style B side by side).')
    .showHelpAfterError('(run with --help for usage)');

  program
    .command('serve')
    .description('start the HTTP server (migrations run first on the embedded database, or with --migrate)')
    .addOption(new Option('--port <n>', 'listen port (default: PORT or 3000)').argParser(portNumber))
    .option('--migrate', 'apply pending migrations first')
    .option('--no-worker', 'do not run the webhook delivery worker in this process')
    .addHelpText('after', settingsHelp())
    .action(runServe);

  program
    .command('worker')
    .description('run only the webhook delivery worker (needs DATABASE_URL; stops on SIGINT/SIGTERM after its current attempt)')
    .option('--migrate', 'apply pending migrations first')
    .action(runWorker);

  program.command('migrate').description('apply pending migrations and exit').action(runMigrate);

  program
    .command('mcp')
    .description(`serve the MCP tools on stdin/stdout for a local agent, as the API key in ${MCP_KEY_VARIABLE} (docs/agents.md); the log goes to stderr`)
    .action(runMcp);

  program
    .command('import')
    .description('import a fixture document in one transaction ("-" reads stdin); prints a JSON summary')
    .argument('<file>', 'fixture JSON file, or - for stdin')
    .action(runImport);

  program
    .command('seed')
    .description('load the demo data set into an empty database and print a demo API key')
    .option('--demo', 'the built-in demo data set')
    .action(runSeed);

  const keys = program.command('keys').description('manage API keys');
  keys
    .command('create')
    .description('create an API key and print it (with its secret, shown once) as JSON')
    .option('--workspace <id>', 'workspace the key opens (repeat for several)', collect, [])
    .option('--name <name>', 'display name', 'CLI key')
    .addOption(new Option('--scopes <list>', `comma-separated scopes (default: all): ${ALL_SCOPES.join(',')}`).argParser(scopesList))
    .addOption(new Option('--expires-at <iso>', 'expiry: ISO 8601 date-time with offset, or a date').argParser(instant))
    .addOption(new Option('--style <A|B>', 'default style of shared paths (default A)').argParser(keyStyle))
    .addOption(new Option('--rate-limit <n>', 'requests per minute (default: RATE_LIMIT_PER_MINUTE)').argParser(positiveInt))
    .action(runKeysCreate);
  keys
    .command('report')
    .description("print a key's migration report as JSON: the Style B operations it called and their Style A equivalents")
    .requiredOption('--key-id <id>', 'the key (key_…)')
    .addOption(new Option('--days <n>', `UTC days back, today included, 1-${OPERATION_USAGE_WINDOW_DAYS} (default 30)`).argParser(positiveInt))
    .action(runKeysReport);

  program
    .command('audit')
    .description('the audit trail')
    .command('verify')
    .description("check every workspace's audit hash chain (or one's); exits 1 naming the first bad record")
    .option('--workspace <id>', 'check this workspace only')
    .action(runAuditVerify);

  program
    .command('workspaces')
    .description('workspace settings')
    .command('retention')
    .description("set a workspace's response retention: the worker deletes its responses and email events older than --days")
    .requiredOption('--workspace <id>', 'the workspace (ws_…)')
    .addOption(
      new Option('--days <n|off>', 'days to keep, 1-36500, or "off" (the default: kept until deleted)').argParser(retentionDaysArg).makeOptionMandatory(),
    )
    .action(runWorkspaceRetention);

  program.command('demo').description('what `npm run demo` runs: migrate, seed the demo once, create a demo key, print curl lines, serve').action(runDemo);

  return program;
}

/**
 * Runs the program. Expected failures print one line (after any problem lines) on stderr and set
 * exit code 1; `serve` and `demo` resolve once listening and keep the process alive.
 */
export async function main(argv: string[] = process.argv): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (e) {
    if (e instanceof CliError) {
      for (const line of e.lines) process.stderr.write(`${line}\n`);
    }
    process.stderr.write(`error: ${errorMessage(e)}\n`);
    process.exitCode = 1;
  }
}

if (require.main === module) void main();
