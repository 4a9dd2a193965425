"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.ImportError = void 0;
exports.importFixtureSource = importFixtureSource;
exports.importFixture = importFixture;
exports.checkFixture = checkFixture;
const create_api_key_1 = require("../api-keys/create-api-key");
const context_1 = require("./context");
const check_api_keys_1 = require("./check-api-keys");
const check_datatables_1 = require("./check-datatables");
const check_email_events_1 = require("./check-email-events");
const check_forms_1 = require("./check-forms");
const check_responses_1 = require("./check-responses");
const check_webhook_endpoints_1 = require("./check-webhook-endpoints");
const check_workspaces_1 = require("./check-workspaces");
const fixture_source_1 = require("./fixture-source");
const import_transaction_1 = require("./import-transaction");
const item_schema_1 = require("./item-schema");
const paths_1 = require("./paths");
const problems_1 = require("./problems");
var problems_2 = require("./problems");
Object.defineProperty(exports, "ImportError", { enumerable: true, get: function () { return problems_2.ImportError; } });
/** Items checked and written together (one COPY or a few INSERTs per table). */
const BATCH_SIZE = 5000;
const SMALL = new Set(['workspaces', 'api_keys', 'forms', 'datatables', 'webhook_endpoints', 'rows']);
const ROWS = new Set(['rows']);
const STREAMED = new Set(['responses', 'email_events']);
/** One import: the passes over the document, the writes, the progress. */
class ImportRun {
    ctx;
    writer;
    source;
    opts;
    counts = new Map();
    done = 0;
    total = 0;
    pending = Promise.resolve();
    constructor(ctx, writer, source, opts) {
        this.ctx = ctx;
        this.writer = writer;
        this.source = source;
        this.opts = opts;
    }
    /** Whether records are still written: nothing is wrong so far (and this is not a dry run). */
    get writing() {
        return !this.opts.dryRun && this.ctx.problems.count === 0;
    }
    /** Counts `records` and writes them after the previous write (not awaited: reading goes on meanwhile). */
    write(table, records) {
        this.counts.set(table, (this.counts.get(table) ?? 0) + records.length);
        if (!this.writing || records.length === 0)
            return;
        this.pending = this.pending.then(async () => {
            await this.writer.write(table, records);
            this.done += records.length;
            this.opts.onProgress?.(this.done, this.total);
        });
        // Handled when awaited (flush); this only keeps a failure from counting as unhandled meanwhile.
        this.pending.catch(() => undefined);
    }
    async flush() {
        await this.pending;
    }
    /** Pass 1: the document's keys, the small collections, the row ids and the collections' sizes. */
    async readOutline() {
        const { ctx } = this;
        const outline = { items: new Map(), rows: 0, lengths: new Map() };
        let structural = false;
        for await (const e of this.source.entries(SMALL)) {
            if (e.kind === 'document') {
                ctx.problems.add('$', 'must be object');
                structural = true;
            }
            else if (e.kind === 'key') {
                if (ctx.keys.includes(e.key))
                    ctx.problems.add((0, paths_1.prop)('$', e.key), 'appears more than once in the document');
                ctx.keys.push(e.key);
                if (!(0, item_schema_1.checkTopLevel)(e.key, e.array, ctx.problems) && (0, fixture_source_1.isCollection)(e.key))
                    structural = true;
            }
            else if (e.kind === 'item') {
                const ok = (0, item_schema_1.checkItemSchema)(e.collection, e.value, (0, paths_1.idx)(e.collection, e.index), ctx.problems);
                const list = outline.items.get(e.collection) ?? [];
                list.push({ index: e.index, value: e.value, ok });
                outline.items.set(e.collection, list);
            }
            else if (e.kind === 'row') {
                (0, check_datatables_1.registerRow)(ctx, e);
                outline.rows++;
            }
            else if (e.kind === 'end') {
                outline.lengths.set(e.key, e.length);
            }
        }
        // A document whose top level is not the expected object of arrays cannot be checked further.
        if (structural)
            throw new problems_1.ImportError(ctx.problems.inDocumentOrder(ctx.keys));
        return outline;
    }
    /** Checks the small collections; writes them (in foreign-key order) when nothing is wrong. */
    async checkOutline(outline) {
        const { ctx } = this;
        const items = (c) => (outline.items.get(c) ?? []);
        const workspaces = await (0, check_workspaces_1.checkWorkspaces)(ctx, items('workspaces'));
        const keyIds = await ctx.claimIds('api_keys', 'apiKey', 'API key', items('api_keys'));
        const formIds = await ctx.claimIds('forms', 'form', 'form', items('forms'));
        const tableIds = await ctx.claimIds('datatables', 'datatable', 'datatable', items('datatables'));
        const hookIds = await ctx.claimIds('webhook_endpoints', 'webhookEndpoint', 'webhook endpoint', items('webhook_endpoints'));
        await ctx.resolveWorkspaces(referencedWorkspaces(outline));
        const { forms, questions } = (0, check_forms_1.checkForms)(ctx, items('forms'), formIds);
        const { datatables, fields } = (0, check_datatables_1.checkDatatables)(ctx, items('datatables'), tableIds);
        const hooks = (0, check_webhook_endpoints_1.checkWebhookEndpoints)(ctx, items('webhook_endpoints'), hookIds);
        const keys = await (0, check_api_keys_1.checkApiKeys)(ctx, items('api_keys'), keyIds);
        const small = workspaces.length + forms.length + questions.length + datatables.length + fields.length + hooks.length;
        this.total = small + outline.rows + (outline.lengths.get('responses') ?? 0) + (outline.lengths.get('email_events') ?? 0) + keys.length;
        this.opts.onProgress?.(0, this.total);
        this.write('workspaces', workspaces);
        this.write('forms', forms);
        this.write('questions', questions);
        this.write('datatables', datatables);
        this.write('datatable_fields', fields);
        this.write('webhook_endpoints', hooks);
        await this.flush();
        return keys;
    }
    /** Pass 2: the rows of the datatables, a batch at a time. */
    async importRows() {
        let batch = [];
        const flush = async () => {
            await this.flush();
            this.write('datatable_rows', await (0, check_datatables_1.checkRowBatch)(this.ctx, batch));
            batch = [];
        };
        for await (const e of this.source.entries(ROWS)) {
            if (e.kind !== 'row')
                continue;
            batch.push(e);
            if (batch.length === BATCH_SIZE)
                await flush();
        }
        await flush();
        await this.flush();
    }
    /** Pass 3: responses and email events, a batch at a time (rows are written: their data is captured). */
    async importResponses() {
        let responses = [];
        let events = [];
        const flush = async () => {
            await this.flush();
            const capture = this.writing;
            this.write('responses', await (0, check_responses_1.checkResponseBatch)(this.ctx, responses, capture));
            this.write('email_events', await (0, check_email_events_1.checkEmailEventBatch)(this.ctx, events));
            responses = [];
            events = [];
        };
        for await (const e of this.source.entries(STREAMED)) {
            if (e.kind !== 'item')
                continue;
            if (e.collection === 'responses')
                responses.push(e);
            else
                events.push(e);
            if (responses.length + events.length === BATCH_SIZE)
                await flush();
        }
        await flush();
        await this.flush();
    }
    /** Creates the keys (last: they link to workspaces) and returns the summary. */
    async finish(trx, keys) {
        const { ctx } = this;
        if (ctx.problems.count > 0)
            throw new problems_1.ImportError(ctx.problems.inDocumentOrder(ctx.keys));
        const apiKeys = [];
        for (const k of this.opts.dryRun ? [] : keys) {
            const created = await (0, create_api_key_1.createApiKey)(trx, k);
            apiKeys.push({ id: created.id, secret: created.secret, workspace_ids: created.workspaceIds });
            this.opts.onProgress?.(++this.done, this.total);
        }
        const n = (t) => this.counts.get(t) ?? 0;
        const summary = {
            workspaces: n('workspaces'),
            forms: n('forms'),
            questions: n('questions'),
            datatables: n('datatables'),
            rows: n('datatable_rows'),
            responses: n('responses'),
            email_events: n('email_events'),
            api_keys: apiKeys,
        };
        if (!ctx.keys.includes('webhook_endpoints'))
            return summary;
        const { api_keys: created, ...counts } = summary;
        return { ...counts, webhook_endpoints: n('webhook_endpoints'), api_keys: created };
    }
}
/** Workspace ids the small collections refer to (resolved against the database in one query). */
function referencedWorkspaces(outline) {
    const refs = [];
    const add = (v) => typeof v === 'string' && refs.push(v);
    for (const c of ['forms', 'datatables', 'webhook_endpoints']) {
        for (const item of outline.items.get(c) ?? [])
            add(item.value?.workspace_id);
    }
    for (const item of outline.items.get('api_keys') ?? []) {
        const ids = item.value?.workspace_ids;
        if (Array.isArray(ids))
            ids.forEach(add);
    }
    return refs;
}
async function run(db, source, opts) {
    try {
        return await (0, import_transaction_1.withImportWriter)(db, async (trx, writer) => {
            const ctx = new context_1.ImportContext(trx, opts.now ?? new Date());
            const importRun = new ImportRun(ctx, writer, source, opts);
            const outline = await importRun.readOutline();
            const keys = await importRun.checkOutline(outline);
            if (outline.rows > 0)
                await importRun.importRows();
            if ((outline.lengths.get('responses') ?? 0) + (outline.lengths.get('email_events') ?? 0) > 0)
                await importRun.importResponses();
            return importRun.finish(trx, keys);
        });
    }
    catch (e) {
        const code = e.code;
        if (code === '23505' || code === '23503') {
            throw new problems_1.ImportError([{ path: '$', message: `the database rejected the import: ${e.message}` }]);
        }
        throw e;
    }
}
/**
 * Imports a fixture document (CONTRACT section 9) in ONE transaction, reading it in passes
 * (importer.ts header), so a document of any size imports in flat memory.
 *
 * Checked: the JSON Schema, duplicate ids in the document, ids (and workspace links, key secrets) that
 * already exist in the database (rows, responses and email events: in their workspace), references
 * (workspaces, forms, rows; those not in the document must be in the database), answers (rendered in
 * the response's language), row columns against their fields, the email pair. Absent ids are
 * generated, absent `created_at` is `opts.now`, absent `updated_at` is `created_at`.
 * @param source the document (documentSource for one in memory, jsonSource for JSON text).
 * @returns counts of the records written and, per API key, its id, clear secret and workspaces.
 * @throws ImportError with every problem (`{path, message}`, path like `responses[12].form_id`), or
 * one at `$` for malformed JSON; the database is unchanged. A write that still fails (a concurrent
 * writer took an id) is rolled back and reported as an ImportError at `$`.
 */
function importFixtureSource(db, source, opts = {}) {
    return run(db, source, { ...opts, dryRun: false });
}
/** importFixtureSource for a document already in memory (seeds, tests). */
function importFixture(db, doc, opts = {}) {
    return importFixtureSource(db, (0, fixture_source_1.documentSource)(doc), opts);
}
/**
 * Checks a fixture document without writing anything.
 * @returns every problem (empty when the document can be imported as it is, against the database now).
 * Spec: CONTRACT section 9.
 */
async function checkFixture(db, doc) {
    try {
        await run(db, (0, fixture_source_1.documentSource)(doc), { dryRun: true });
        return [];
    }
    catch (e) {
        if (e instanceof problems_1.ImportError)
            return e.problems;
        throw e;
    }
}
//# sourceMappingURL=importer.js.map