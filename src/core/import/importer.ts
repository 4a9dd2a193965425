/**
 * The fixture importer (docs/import.md, "Running an import"; docs/import.md, "The fixture document"): checks a fixture document against the schema,
 * itself and the database, and writes it in ONE transaction, or writes nothing and reports every
 * problem with its JSON path.
 *
 * The document is read in passes (fixture-source.ts), so only small per-record state stays in memory
 * (ids and where they are), whatever the document's size or key order:
 * 1. the small collections (workspaces, API keys, forms, datatables, webhook endpoints) and the row
 *    ids; these are checked and written;
 * 2. the datatables' rows, a batch at a time, checked and written;
 * 3. responses and email events, a batch at a time, checked and written.
 * Writing stops at the first problem (checking goes on, to report them all) and the transaction is
 * rolled back. The checks per resource are in check-*.ts, the writers in writer.ts.
 */
import type { Knex } from 'knex';
import type { Db } from '../../db';
import { createApiKey, type CreateApiKeyInput } from '../api-keys/create-api-key';
import { ImportContext, type Item, type Rec } from './context';
import { checkApiKeys } from './check-api-keys';
import { checkDatatables, checkRowBatch, registerRow, type RowEntry } from './check-datatables';
import { checkEmailEventBatch, type EmailEventEntry } from './check-email-events';
import { checkForms } from './check-forms';
import { checkResponseBatch, type ResponseEntry } from './check-responses';
import { checkWebhookEndpoints } from './check-webhook-endpoints';
import { checkWorkspaces } from './check-workspaces';
import type { FixtureApiKey, FixtureDatatable, FixtureForm, FixtureWebhookEndpoint, FixtureWorkspace } from './fixture-schema';
import { documentSource, isCollection, type Collection, type FixtureSource, type Part } from './fixture-source';
import { withImportWriter } from './import-transaction';
import { tagNewResponses } from '../topics/topics.store';
import { checkItemSchema, checkTopLevel } from './item-schema';
import { idx, prop } from './json-paths';
import { ImportError, type ImportProblem } from './problems';
import type { ImportTable, ImportWriter } from './writer';

export { ImportError, type ImportProblem } from './problems';
export type { FixtureSource } from './fixture-source';

/** What `import` prints (docs/import.md, "Running an import"): counts of written records and every imported key's secret. */
export interface ImportSummary {
  workspaces: number;
  forms: number;
  questions: number;
  datatables: number;
  rows: number;
  responses: number;
  email_events: number;
  /** Present only when the document has a `webhook_endpoints` array. */
  webhook_endpoints?: number;
  api_keys: { id: string; secret: string; workspace_ids: string[] }[];
}

export interface ImportOptions {
  /**
   * Called after every batch written: records written so far out of all records of the document. The
   * phase is `staging` while records are checked and written, `moving` once before the staged
   * responses and email events are moved into their tables in one statement (minutes at 1M rows).
   */
  onProgress?: (done: number, total: number, phase?: 'staging' | 'moving') => void;
  /** The instant used for absent `created_at` values; default now. */
  now?: Date;
}

/** Items checked and written together (one COPY or a few INSERTs per table). */
const BATCH_SIZE = 5000;

const SMALL: ReadonlySet<Part> = new Set<Part>(['workspaces', 'api_keys', 'forms', 'datatables', 'webhook_endpoints', 'rows']);
const ROWS: ReadonlySet<Part> = new Set<Part>(['rows']);
const STREAMED: ReadonlySet<Part> = new Set<Part>(['responses', 'email_events']);

/** The small collections as read in the first pass, and the sizes of the big ones. */
interface Outline {
  items: Map<Collection, Item<unknown>[]>;
  rows: number;
  lengths: Map<string, number>;
}

/** One import: the passes over the document, the writes, the progress. */
class ImportRun {
  private readonly counts = new Map<ImportTable, number>();
  /** The workspaces that received responses (their topics tag them before the commit). */
  private readonly responseWorkspaces = new Set<string>();
  private done = 0;
  private total = 0;
  private pending: Promise<void> = Promise.resolve();

  constructor(
    private readonly ctx: ImportContext,
    private readonly writer: ImportWriter,
    private readonly source: FixtureSource,
    private readonly opts: ImportOptions & { dryRun: boolean },
  ) {}

  /** Whether records are still written: nothing is wrong so far (and this is not a dry run). */
  private get writing(): boolean {
    return !this.opts.dryRun && this.ctx.problems.count === 0;
  }

  /** Counts `records` and writes them after the previous write (not awaited: reading goes on meanwhile). */
  private write(table: ImportTable, records: Rec[]): void {
    this.counts.set(table, (this.counts.get(table) ?? 0) + records.length);
    if (table === 'responses') for (const r of records) this.responseWorkspaces.add(String(r.workspace_id));
    if (!this.writing || records.length === 0) return;
    this.pending = this.pending.then(async () => {
      await this.writer.write(table, records);
      this.done += records.length;
      this.opts.onProgress?.(this.done, this.total);
    });
    // Handled when awaited (flush); this only keeps a failure from counting as unhandled meanwhile.
    this.pending.catch(() => undefined);
  }

  private async flush(): Promise<void> {
    await this.pending;
  }

  /** Pass 1: the document's keys, the small collections, the row ids and the collections' sizes. */
  async readOutline(): Promise<Outline> {
    const { ctx } = this;
    const outline: Outline = { items: new Map(), rows: 0, lengths: new Map() };
    let structural = false;
    for await (const e of this.source.entries(SMALL)) {
      if (e.kind === 'document') {
        ctx.problems.add('$', 'must be object');
        structural = true;
      } else if (e.kind === 'key') {
        if (ctx.keys.includes(e.key)) ctx.problems.add(prop('$', e.key), 'appears more than once in the document');
        ctx.keys.push(e.key);
        if (!checkTopLevel(e.key, e.array, ctx.problems) && isCollection(e.key)) structural = true;
      } else if (e.kind === 'item') {
        const ok = checkItemSchema(e.collection, e.value, idx(e.collection, e.index), ctx.problems);
        const list = outline.items.get(e.collection) ?? [];
        list.push({ index: e.index, value: e.value, ok });
        outline.items.set(e.collection, list);
      } else if (e.kind === 'row') {
        registerRow(ctx, e);
        outline.rows++;
      } else if (e.kind === 'end') {
        outline.lengths.set(e.key, e.length);
      }
    }
    // A document whose top level is not the expected object of arrays cannot be checked further.
    if (structural) throw new ImportError(ctx.problems.inDocumentOrder(ctx.keys));
    return outline;
  }

  /** Checks the small collections; writes them (in foreign-key order) when nothing is wrong. */
  async checkOutline(outline: Outline): Promise<CreateApiKeyInput[]> {
    const { ctx } = this;
    const items = <T>(c: Collection) => (outline.items.get(c) ?? []) as Item<T>[];
    const workspaces = await checkWorkspaces(ctx, items<FixtureWorkspace>('workspaces'));
    const keyIds = await ctx.claimIds('api_keys', 'apiKey', 'API key', items('api_keys'));
    const formIds = await ctx.claimIds('forms', 'form', 'form', items('forms'));
    const tableIds = await ctx.claimIds('datatables', 'datatable', 'datatable', items('datatables'));
    const hookIds = await ctx.claimIds('webhook_endpoints', 'webhookEndpoint', 'webhook endpoint', items('webhook_endpoints'));
    await ctx.resolveWorkspaces(referencedWorkspaces(outline));
    const { forms, questions } = checkForms(ctx, items<FixtureForm>('forms'), formIds);
    const { datatables, fields } = checkDatatables(ctx, items<FixtureDatatable>('datatables'), tableIds);
    const hooks = checkWebhookEndpoints(ctx, items<FixtureWebhookEndpoint>('webhook_endpoints'), hookIds);
    const keys = await checkApiKeys(ctx, items<FixtureApiKey>('api_keys'), keyIds);
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
  async importRows(): Promise<void> {
    let batch: RowEntry[] = [];
    const flush = async () => {
      await this.flush();
      this.write('datatable_rows', await checkRowBatch(this.ctx, batch));
      batch = [];
    };
    for await (const e of this.source.entries(ROWS)) {
      if (e.kind !== 'row') continue;
      batch.push(e);
      if (batch.length === BATCH_SIZE) await flush();
    }
    await flush();
    await this.flush();
  }

  /** Pass 3: responses and email events, a batch at a time (rows are written: their data is captured). */
  async importResponses(): Promise<void> {
    let responses: ResponseEntry[] = [];
    let events: EmailEventEntry[] = [];
    const flush = async () => {
      await this.flush();
      const capture = this.writing;
      this.write('responses', await checkResponseBatch(this.ctx, responses, capture));
      this.write('email_events', await checkEmailEventBatch(this.ctx, events));
      responses = [];
      events = [];
    };
    for await (const e of this.source.entries(STREAMED)) {
      if (e.kind !== 'item') continue;
      if (e.collection === 'responses') responses.push(e);
      else events.push(e);
      if (responses.length + events.length === BATCH_SIZE) await flush();
    }
    await flush();
    await this.flush();
  }

  /** Creates the keys (last: they link to workspaces) and returns the summary. */
  async finish(trx: Knex.Transaction, keys: CreateApiKeyInput[]): Promise<ImportSummary> {
    const { ctx } = this;
    if (ctx.problems.count > 0) throw new ImportError(ctx.problems.inDocumentOrder(ctx.keys));
    if (!this.opts.dryRun) {
      this.opts.onProgress?.(this.done, this.total, 'moving');
      await this.writer.finish();
      // Imported responses are tagged with their workspace's topics in the import's transaction, as a submission is.
      for (const ws of this.responseWorkspaces) await tagNewResponses(trx, ws);
    }
    const apiKeys: ImportSummary['api_keys'] = [];
    for (const k of this.opts.dryRun ? [] : keys) {
      const created = await createApiKey(trx, k);
      apiKeys.push({ id: created.id, secret: created.secret, workspace_ids: created.workspaceIds });
      this.opts.onProgress?.(++this.done, this.total);
    }
    const n = (t: ImportTable) => this.counts.get(t) ?? 0;
    const summary: ImportSummary = {
      workspaces: n('workspaces'),
      forms: n('forms'),
      questions: n('questions'),
      datatables: n('datatables'),
      rows: n('datatable_rows'),
      responses: n('responses'),
      email_events: n('email_events'),
      api_keys: apiKeys,
    };
    if (!ctx.keys.includes('webhook_endpoints')) return summary;
    const { api_keys: created, ...counts } = summary;
    return { ...counts, webhook_endpoints: n('webhook_endpoints'), api_keys: created };
  }
}

/** Workspace ids the small collections refer to (resolved against the database in one query). */
function referencedWorkspaces(outline: Outline): string[] {
  const refs: string[] = [];
  const add = (v: unknown) => typeof v === 'string' && refs.push(v);
  for (const c of ['forms', 'datatables', 'webhook_endpoints'] as const) {
    for (const item of outline.items.get(c) ?? []) add((item.value as { workspace_id?: unknown } | null)?.workspace_id);
  }
  for (const item of outline.items.get('api_keys') ?? []) {
    const ids = (item.value as { workspace_ids?: unknown } | null)?.workspace_ids;
    if (Array.isArray(ids)) ids.forEach(add);
  }
  return refs;
}

async function run(db: Db, source: FixtureSource, opts: ImportOptions & { dryRun: boolean }): Promise<ImportSummary> {
  try {
    return await withImportWriter(db, async (trx, writer) => {
      const ctx = new ImportContext(trx, opts.now ?? new Date());
      const importRun = new ImportRun(ctx, writer, source, opts);
      const outline = await importRun.readOutline();
      const keys = await importRun.checkOutline(outline);
      if (outline.rows > 0) await importRun.importRows();
      const responses = outline.lengths.get('responses') ?? 0;
      const emailEvents = outline.lengths.get('email_events') ?? 0;
      ctx.expectIds('responses', responses);
      ctx.expectIds('email_events', emailEvents);
      if (responses + emailEvents > 0) await importRun.importResponses();
      return importRun.finish(trx, keys);
    });
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    if (code === '23505' || code === '23503') {
      throw new ImportError([{ path: '$', message: `the database rejected the import: ${(e as Error).message}` }]);
    }
    throw e;
  }
}

/**
 * Imports a fixture document (docs/import.md, "The fixture document") in ONE transaction, reading it in passes
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
export function importFixtureSource(db: Db, source: FixtureSource, opts: ImportOptions = {}): Promise<ImportSummary> {
  return run(db, source, { ...opts, dryRun: false });
}

/** importFixtureSource for a document already in memory (seeds, tests). */
export function importFixture(db: Db, doc: unknown, opts: ImportOptions = {}): Promise<ImportSummary> {
  return importFixtureSource(db, documentSource(doc), opts);
}

/**
 * Checks a fixture document without writing anything.
 * @returns every problem (empty when the document can be imported as it is, against the database now).
 * Spec: docs/import.md, "Running an import".
 */
export async function checkFixture(db: Db, doc: unknown): Promise<ImportProblem[]> {
  try {
    await run(db, documentSource(doc), { dryRun: true });
    return [];
  } catch (e) {
    if (e instanceof ImportError) return e.problems;
    throw e;
  }
}
