#!/usr/bin/env node
"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.buildProgram = buildProgram;
exports.main = main;
/**
 * The `feedback-service` executable (CONTRACT section 1): serve, migrate, import, seed --demo,
 * keys create, demo, worker. Results go to stdout (JSON where a program reads them); problems go to stderr as
 * one line each, with exit code 1 and no stack trace for expected errors.
 */
const cli_progress_1 = __importDefault(require("cli-progress"));
const commander_1 = require("commander");
const config_1 = require("./config");
const connection_1 = require("./platform/db/connection");
const server_1 = require("./server");
const worker_1 = require("./delivery/worker");
const logger_1 = require("./platform/logger");
const create_api_key_1 = require("./core/api-keys/create-api-key");
const importer_1 = require("./core/import/importer");
const import_file_1 = require("./cli/import-file");
const demo_1 = require("./core/seed/demo");
const scopes_1 = require("./core/scopes");
const dates_1 = require("./core/query/dates");
const links_1 = require("./core/links/links");
/** An expected failure: printed as one line on stderr, exit 1. */
class CliError extends Error {
    lines;
    constructor(message, 
    /** Extra lines printed before the message (e.g. every problem of an import). */
    lines = []) {
        super(message);
        this.lines = lines;
        this.name = 'CliError';
    }
}
function errorMessage(e) {
    if (e instanceof AggregateError && e.errors.length > 0) {
        // pg reports a refused connection to every address of a host as an AggregateError with no message.
        return [...new Set(e.errors.map((x) => errorMessage(x)))].join('; ');
    }
    if (e instanceof Error)
        return e.message || e.code || e.name;
    return String(e);
}
function print(value) {
    process.stdout.write(`${JSON.stringify(value)}\n`);
}
function readConfig(overrides = {}) {
    try {
        return (0, config_1.loadConfig)(overrides);
    }
    catch (e) {
        throw new CliError(errorMessage(e));
    }
}
/** Opens the database of the configuration, runs `fn`, and always closes it. */
async function withDb(config, migrate, fn) {
    const db = (0, connection_1.createDb)(config);
    try {
        if (migrate)
            await (0, connection_1.migrateLatest)(db);
        return await fn(db);
    }
    finally {
        await db.destroy();
    }
}
function note(message) {
    if (process.stderr.isTTY)
        process.stderr.write(`${message}\n`);
}
/** A bar of records written on stderr, only when stderr is a terminal. */
function writeProgress() {
    if (!process.stderr.isTTY)
        return { stop: () => undefined };
    let bar;
    return {
        onProgress: (done, total) => {
            if (!bar) {
                bar = new cli_progress_1.default.SingleBar({ format: 'Writing  [{bar}] {percentage}% | {value}/{total} records', stream: process.stderr, hideCursor: true }, cli_progress_1.default.Presets.shades_classic);
                bar.start(total, 0);
            }
            bar.update(done);
        },
        stop: () => bar?.stop(),
    };
}
/** Seeds the demo once (into an empty database) with a progress bar on a terminal. */
async function seedWithProgress(db) {
    const progress = writeProgress();
    try {
        return (await (0, demo_1.seedDemo)(db, { onProgress: progress.onProgress })).seeded;
    }
    finally {
        progress.stop();
    }
}
// ---------------------------------------------------------------------------------------------
// Option parsers
function portNumber(value) {
    const n = Number(value);
    if (!/^\d+$/.test(value) || n > 65535)
        throw new commander_1.InvalidArgumentError('must be a port number 0-65535.');
    return n;
}
function positiveInt(value) {
    if (!/^[1-9]\d*$/.test(value))
        throw new commander_1.InvalidArgumentError('must be a positive integer.');
    return Number(value);
}
function collect(value, previous) {
    return [...previous, value];
}
function scopesList(value) {
    const scopes = value
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '');
    const unknown = scopes.filter((s) => !(0, scopes_1.isScope)(s));
    if (unknown.length > 0) {
        throw new commander_1.InvalidArgumentError(`unknown scope "${unknown[0]}"; scopes are ${scopes_1.ALL_SCOPES.join(', ')}.`);
    }
    return scopes;
}
/** A date (`YYYY-MM-DD`, 00:00:00Z of that day) or an ISO 8601 date-time with an offset (CONTRACT section 7). */
function instant(value) {
    const parsed = (0, dates_1.parseInstant)(value);
    if (parsed)
        return parsed;
    throw new commander_1.InvalidArgumentError('must be a date YYYY-MM-DD or an ISO 8601 date-time with an offset, e.g. 2027-01-01T00:00:00Z.');
}
function keyStyle(value) {
    const v = value.toUpperCase();
    if (v !== 'A' && v !== 'B')
        throw new commander_1.InvalidArgumentError('must be A or B.');
    return v;
}
// ---------------------------------------------------------------------------------------------
// Commands
async function runImport(file) {
    const config = readConfig();
    try {
        const summary = await withDb(config, true, (db) => (0, import_file_1.importFixtureFile)(db, file, { progress: process.stderr.isTTY === true }));
        print(summary);
    }
    catch (e) {
        if (e instanceof importer_1.ImportError) {
            throw new CliError(`nothing was imported: the document has ${e.problems.length} problem${e.problems.length === 1 ? '' : 's'}`, e.problems.map((p) => `${p.path}: ${p.message}`));
        }
        throw e;
    }
}
async function runSeed(opts) {
    if (!opts.demo)
        throw new CliError('seed needs --demo (the built-in demo data set is the only one)');
    const config = readConfig();
    const out = await withDb(config, true, async (db) => {
        note(`Seeding the demo data set (${demo_1.DEMO_RESPONSE_COUNT.toLocaleString('en')} responses)…`);
        const seeded = await seedWithProgress(db);
        if (!seeded)
            note('The database already has data: the demo data set was not loaded again.');
        const key = await (0, demo_1.createDemoKey)(db).catch((e) => {
            throw new CliError(errorMessage(e));
        });
        return { seeded, api_key: key.secret, workspace_ids: key.workspaceIds };
    });
    print(out);
}
async function runKeysCreate(opts) {
    if (opts.workspace.length === 0)
        throw new CliError('keys create needs at least one --workspace ID');
    const config = readConfig();
    const key = await withDb(config, true, async (db) => {
        const found = await db('workspaces').select('id').whereIn('id', opts.workspace);
        const missing = opts.workspace.filter((w) => !found.some((f) => f.id === w));
        if (missing.length > 0)
            throw new CliError(`unknown workspace "${missing[0]}"`);
        return (0, create_api_key_1.createApiKey)(db, {
            name: opts.name,
            workspaceIds: opts.workspace,
            scopes: opts.scopes,
            expiresAt: opts.expiresAt ?? null,
            style: opts.style,
            rateLimitPerMinute: opts.rateLimit ?? null,
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
async function runServe(opts) {
    const config = readConfig(opts.port === undefined ? {} : { port: opts.port });
    await (0, server_1.startServer)(config, { migrate: opts.migrate === true, handleSignals: true, worker: opts.worker !== false });
}
/** `worker`: only the webhook delivery worker (CONTRACT sections 1, 13), until SIGINT/SIGTERM. */
async function runWorker(opts) {
    const config = readConfig();
    if (!config.databaseUrl) {
        throw new CliError('the embedded database (no DATABASE_URL) belongs to one process: `serve` runs the worker there; set DATABASE_URL to run workers apart');
    }
    const logger = (0, logger_1.createLogger)(config.logLevel);
    const db = (0, connection_1.createDb)(config);
    if (opts.migrate)
        await (0, connection_1.migrateLatest)(db);
    const worker = (0, worker_1.createDeliveryWorker)({ db, config, logger });
    await worker.start();
    let stopping = false;
    for (const signal of ['SIGINT', 'SIGTERM']) {
        process.on(signal, () => {
            if (stopping)
                process.exit(1);
            stopping = true;
            logger.info({ signal }, 'stopping the webhook worker after its current attempt');
            void worker
                .stop()
                .then(() => db.destroy())
                .then(() => process.exit(0));
        });
    }
}
async function runMigrate() {
    const config = readConfig();
    const applied = await withDb(config, false, (db) => (0, connection_1.migrateLatest)(db));
    process.stdout.write(applied.length === 0 ? 'The database is up to date.\n' : `Applied ${applied.length} migration(s): ${applied.join(', ')}\n`);
}
/**
 * A demo form to answer in the browser (the translated one when it is there) and an email link to it for
 * a demo customer row, minted on PUBLIC_URL: what `demo` prints so a new user can answer a form at once.
 */
async function demoPages(db, workspaceId, publicUrl) {
    const form = (await db('forms').first('id', 'translations').where({ workspace_id: workspaceId, name: 'Customer NPS (Europe)' })) ??
        (await db('forms').first('id', 'translations').where({ workspace_id: workspaceId }).orderBy(['created_at', 'id']));
    if (!form)
        return undefined;
    const row = await db('datatable_rows')
        .first('row_id', 'data')
        .where({ workspace_id: workspaceId })
        .orderBy(['created_at', 'row_id']);
    const email = typeof row?.data.email === 'string' ? row.data.email : 'demo@example.com';
    const link = await (0, links_1.mintLink)(db, workspaceId, { formId: form.id, email, rowId: row?.row_id ?? null, flowId: 'demo' }, publicUrl);
    return {
        formId: form.id,
        languages: Object.keys(form.translations ?? {}),
        formUrl: `${publicUrl}/f/${encodeURIComponent(form.id)}`,
        linkUrl: link.url,
        openUrl: link.openUrl,
    };
}
async function runDemo() {
    const config = readConfig();
    // Our connection is closed before the server opens its own: the embedded database allows one.
    const { seeded, key, embedded, pages } = await withDb(config, true, async (db) => {
        const embeddedDb = (0, connection_1.isEmbedded)(db);
        const anyWorkspace = await db('workspaces').first('id');
        if (!anyWorkspace) {
            process.stderr.write(`Loading the demo data set (${demo_1.DEMO_RESPONSE_COUNT.toLocaleString('en')} responses, once)…\n`);
        }
        const seededNow = await seedWithProgress(db);
        const demoKey = await (0, demo_1.createDemoKey)(db).catch((e) => {
            throw new CliError(`${errorMessage(e)} (this database has other data: point FEEDBACK_DATA_DIR or DATABASE_URL at an empty one)`);
        });
        const pages = await demoPages(db, demoKey.workspaceIds[0], config.publicUrl);
        return { seeded: seededNow, key: demoKey, embedded: embeddedDb, pages };
    });
    const server = await (0, server_1.startServer)(config, { handleSignals: true });
    const base = server.url.replace('//0.0.0.0:', '//127.0.0.1:').replace('//[::]:', '//[::1]:');
    const ws = key.workspaceIds[0];
    const h = `-H 'X-API-Key: ${key.secret}'`;
    process.stdout.write([
        '',
        `feedback-service demo ${seeded ? '(demo data loaded)' : '(demo data already present)'} on ${embedded ? `the embedded database in ${config.dataDir}` : 'PostgreSQL'}`,
        '',
        `  API key       ${key.secret}`,
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
            ]
            : []),
        'Press Ctrl+C to stop.',
        '',
    ].join('\n'));
}
/** The environment settings of `serve --help`, each with its default (CONTRACT section 1). */
function settingsHelp() {
    const width = Math.max(...config_1.SETTINGS.map((s) => s.name.length));
    const lines = config_1.SETTINGS.map((s) => `  ${s.name.padEnd(width)}  ${s.meaning} (default: ${s.fallback})`);
    return ['', 'Environment (checked at start-up; a bad value exits 1 naming the variable):', ...lines].join('\n');
}
/** Builds the command line program (exported for tests). */
function buildProgram() {
    const program = new commander_1.Command('feedback-service')
        .description('Feedback collection and analytics API (Style A and Style B side by side).')
        .showHelpAfterError('(run with --help for usage)');
    program
        .command('serve')
        .description('start the HTTP server (migrations run first on the embedded database, or with --migrate)')
        .addOption(new commander_1.Option('--port <n>', 'listen port (default: PORT or 3000)').argParser(portNumber))
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
        .addOption(new commander_1.Option('--scopes <list>', `comma-separated scopes (default: all): ${scopes_1.ALL_SCOPES.join(',')}`).argParser(scopesList))
        .addOption(new commander_1.Option('--expires-at <iso>', 'expiry: ISO 8601 date-time with offset, or a date').argParser(instant))
        .addOption(new commander_1.Option('--style <A|B>', 'default style of shared paths (default A)').argParser(keyStyle))
        .addOption(new commander_1.Option('--rate-limit <n>', 'requests per minute (default: RATE_LIMIT_PER_MINUTE)').argParser(positiveInt))
        .action(runKeysCreate);
    program
        .command('demo')
        .description('what `npm run demo` runs: migrate, seed the demo once, create a demo key, print curl lines, serve')
        .action(runDemo);
    return program;
}
/**
 * Runs the program. Expected failures print one line (after any problem lines) on stderr and set
 * exit code 1; `serve` and `demo` resolve once listening and keep the process alive.
 */
async function main(argv = process.argv) {
    try {
        await buildProgram().parseAsync(argv);
    }
    catch (e) {
        if (e instanceof CliError) {
            for (const line of e.lines)
                process.stderr.write(`${line}\n`);
        }
        process.stderr.write(`error: ${errorMessage(e)}\n`);
        process.exitCode = 1;
    }
}
if (require.main === module) {
    void main();
}
//# sourceMappingURL=cli.js.map