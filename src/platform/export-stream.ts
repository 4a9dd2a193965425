/**
 * The streaming of a responses export to an HTTP answer (docs/analytics.md, "Exports"), style-neutral: the API's
 * `GET {ws}/responses/export` (src/adapters/responses-export.ts, called by each style's handler with its list
 * filters, sort and presenter) and the dashboard page's download (src/pages/dashboard.router.ts, with the
 * presenter the composition root hands it) both call `streamResponsesExport`. Rows
 * stream from a server-side cursor in list order; every write waits for 'drain' when the socket's buffer is
 * full, so memory stays flat; a client that goes away stops the cursor (the iteration ends, the read-only
 * transaction the handler opened ends, the connection returns to the pool), and so does one that reads nothing
 * for EXPORT_STALL_TIMEOUT_MS (the transaction rolls back). Exports at once are capped per key and per instance
 * (export-slots.ts; docs/analytics.md, "Exports, slow clients and caps").
 */
import { once } from 'node:events';
import type { Request, Response } from 'express';
import { stringify } from 'csv-stringify/sync';
import { AppError } from '../core/errors';
import { listQuestions, type Question } from '../core/forms/forms.store';
import { openResponseExport, type ResponseExport, type ResponseFilterQuery } from '../core/responses/responses.store';
import type { ResponseRecord, StoredAnswer } from '../core/responses/responses.types';
import { withTransaction, type Db, type DbTransaction } from '../db';
import type { ExportSlots } from './export-slots';

/** How a style presents exported responses (its presenter and its spelling of the creation time). */
export interface ExportPresentation {
  present(record: ResponseRecord): Record<string, unknown>;
  /** The CSV column of the creation time, as the style's responses name it (`created_at`, `createdAt`). */
  createdColumn: string;
}

/** One export: what is read, in which format, and how it is presented. */
export interface ResponsesExportRequest extends ExportPresentation {
  workspaceId: string;
  format: 'ndjson' | 'csv';
  /** The filters and sort (a style's `{ws}/responses` list filters, or a dashboard link's form). */
  filters: ResponseFilterQuery;
  /** Changes each record before it is written (a dashboard link's download drops addresses). */
  record?: (r: ResponseRecord) => ResponseRecord;
  /** The owner whose export slot to take (`key:<id>`); absent: the caller holds one already (a dashboard download
   *  takes its link's before claiming its token). */
  slotOwner?: string;
}

const CSV_OPTIONS = { record_delimiter: 'windows', quoted_match: /[\r\n]/ } as const;

/** What a spreadsheet reads as the start of a formula (OWASP, "CSV Injection"): `=`, `+`, `-`, `@`, tab, carriage return. */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * A text cell of a CSV export, safe to open in a spreadsheet (docs/analytics.md, "Exports"): text starting with
 * `=`, `+`, `-`, `@`, tab or carriage return gets a leading `'` (OWASP's advice), so it shows as text and never runs
 * as a formula. Only text goes through here: a number (a score, a JSON number answer such as -5) is written as is.
 */
export function csvText(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}

/** A per-question CSV cell: choices as their values joined by "; "; numbers and booleans as written, text neutralised. */
function cellOf(answer: StoredAnswer | undefined): string {
  if (answer === undefined || answer.value === null || answer.value === undefined) return '';
  const v: unknown = answer.value; // stored JSON: wider than StoredAnswerValue (a boolean, say)
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  // A choice's value is a string or a number; what is left after these cases is text.
  if (Array.isArray(v)) return csvText(v.map((o) => String((o as { value?: string | number }).value ?? '')).join('; '));
  if (typeof v === 'object') return csvText(String((v as { value?: string | number }).value ?? ''));
  return csvText(String(v as string));
}

/** CSV header and row builder, with one column per question when the form is known. */
function csvLayout(createdColumn: string, questions: Question[] | undefined) {
  const header = ['id', 'form_id', createdColumn, 'score', 'language', 'respondent_email', 'email_id', 'row_id'];
  header.push(...(questions ? questions.map((q) => csvText(q.id)) : ['answers']));
  const row = (r: ResponseRecord, presented: Record<string, unknown>): unknown[] => {
    // Every text column, ids too (a row_id or email_id is the caller's own text); the time and the score are typed.
    const text = [r.id, r.formId, r.language, r.respondentEmail ?? '', r.emailId ?? '', r.rowId ?? ''].map(csvText);
    const base = [text[0], text[1], r.createdAt.toISOString(), r.score, ...text.slice(2)];
    // The JSON of the answers starts with `[`: never a formula.
    if (!questions) return [...base, JSON.stringify(presented.answers)];
    const byId = new Map(r.answers.map((a) => [a.question_id, a]));
    return [...base, ...questions.map((q) => cellOf(byId.get(q.id)))];
  };
  return { header, row };
}

/** The client read nothing for the stall timeout: the export is aborted and its transaction rolled back. */
class ExportStalled extends Error {
  constructor(readonly stallTimeoutMs: number) {
    super(`the client read nothing for ${stallTimeoutMs} ms`);
  }
}

/**
 * Resolves when the socket can take more, or when the client has gone.
 * @throws ExportStalled when neither happens within `stallTimeoutMs` (a client that stopped reading).
 */
async function drained(res: Response, stallTimeoutMs: number): Promise<void> {
  if (res.destroyed || res.writableEnded) return;
  const ac = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const stalled = new Promise<'stalled'>((resolve) => {
    timer = setTimeout(() => resolve('stalled'), stallTimeoutMs);
  });
  const moved = Promise.race([once(res, 'drain', { signal: ac.signal }), once(res, 'close', { signal: ac.signal })]).then(
    () => 'moved' as const,
    () => 'moved' as const,
  );
  const outcome = await Promise.race([moved, stalled]);
  clearTimeout(timer);
  ac.abort();
  if (outcome === 'stalled') throw new ExportStalled(stallTimeoutMs);
}

/** What one export streams: its rows, their format and layout. */
interface ExportRun {
  exported: ResponseExport;
  format: 'ndjson' | 'csv';
  layout: ReturnType<typeof csvLayout>;
  present: (r: ResponseRecord) => Record<string, unknown>;
  /** ExportStyle.record, applied to each row read. */
  record?: ((r: ResponseRecord) => ResponseRecord) | undefined;
}

/** The chunks of one export's rows, as the response's export writes them. */
async function* exportChunks(trx: DbTransaction, run: ExportRun): AsyncGenerator<string, void, undefined> {
  for await (const read of run.exported.batches(trx)) {
    const batch = run.record ? read.map(run.record) : read;
    yield run.format === 'csv'
      ? stringify(
          batch.map((r) => run.layout.row(r, run.present(r))),
          CSV_OPTIONS,
        )
      : batch.map((r) => `${JSON.stringify(run.present(r))}\n`).join('');
  }
}

/**
 * Writes the chunks `chunks` yields in one read-only transaction to `res`, waiting for 'drain' when the socket's
 * buffer is full. Ends when the chunks do or the client goes; a client that reads nothing for `stallTimeoutMs`
 * throws ExportStalled out of the transaction, which rolls it back. A failure after the first byte cuts the
 * connection (the headers are out: no envelope can follow).
 */
async function streamChunks(db: Db, req: Request, res: Response, chunks: (trx: DbTransaction) => AsyncIterable<string>, stallTimeoutMs: number): Promise<void> {
  let gone = false;
  res.once('close', () => {
    gone = !res.writableFinished;
  });
  const stream = async (trx: DbTransaction) => {
    for await (const chunk of chunks(trx)) {
      if (gone || res.destroyed) break;
      if (chunk.length > 0 && !res.write(chunk)) await drained(res, stallTimeoutMs);
      if (gone || res.destroyed) break;
    }
  };
  try {
    await withTransaction(db, stream, { readOnly: true });
  } catch (err) {
    if (err instanceof ExportStalled) req.log?.info?.({ stallTimeoutMs: err.stallTimeoutMs }, 'export aborted: the client stopped reading');
    else req.log?.error?.({ err }, 'export failed after streaming began');
    res.destroy();
    return;
  }
  if (!gone && !res.destroyed) res.end();
}

/** An NDJSON export other than the responses list's (a person's data: src/adapters/respondents-export.ts). */
export interface NdjsonExportRequest {
  /** The attachment's file name. */
  filename: string;
  /** The owner whose export slot to take (`key:<id>`). */
  slotOwner: string;
  /** The lines, each a JSON text ending in a newline, read in the export's read-only transaction. */
  lines(trx: DbTransaction): AsyncIterable<string>;
}

/**
 * Streams an NDJSON export as the answer to `req`: a 200 with `application/x-ndjson`, then the lines, with the
 * responses export's flow control, stall timeout and export slot (docs/analytics.md, "Exports, slow clients and caps").
 * @throws AppError rate_limit_exceeded (429) over an export cap, before the first byte.
 */
export async function streamNdjsonExport(
  { db, exportSlots }: { db: Db; exportSlots: ExportSlots },
  req: Request,
  res: Response,
  request: NdjsonExportRequest,
): Promise<void> {
  const release = exportSlots.acquire(request.slotOwner);
  try {
    res.status(200);
    res.setHeader('Content-Type', 'application/x-ndjson; charset=utf-8');
    res.setHeader('Content-Disposition', `attachment; filename="${request.filename}"`);
    res.setHeader('Cache-Control', 'no-store');
    await streamChunks(db, req, res, (trx) => request.lines(trx), exportSlots.stallTimeoutMs);
  } finally {
    release();
  }
}

/**
 * Streams the export `request` describes as the answer to `req`: a 200 with its content type, then the rows.
 * Takes an export slot of `request.slotOwner` (released when the stream ends) unless the caller holds one.
 * @throws AppError validation_error for a bad filter or sort (before the first byte); rate_limit_exceeded (429) over
 *   an export cap. A failure once the rows stream cuts the connection instead.
 */
export async function streamResponsesExport(
  { db, exportSlots }: { db: Db; exportSlots: ExportSlots },
  req: Request,
  res: Response,
  request: ResponsesExportRequest,
): Promise<void> {
  const { workspaceId: ws, format, filters } = request;
  // Validates filters and sort now, before the first byte is sent.
  const exported = await openResponseExport(db, ws, filters);
  const release = request.slotOwner === undefined ? undefined : exportSlots.acquire(request.slotOwner);
  try {
    let questions: Question[] | undefined;
    if (format === 'csv' && filters.formId !== undefined) {
      questions = await listQuestions(db, ws, filters.formId).catch((err: unknown) => {
        if (err instanceof AppError && err.status === 404) return [];
        throw err;
      });
    }
    const layout = csvLayout(request.createdColumn, questions);
    res.status(200);
    res.setHeader('Content-Type', format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8');
    res.setHeader('Content-Disposition', `attachment; filename="responses.${format === 'csv' ? 'csv' : 'ndjson'}"`);
    res.setHeader('Cache-Control', 'no-store');
    if (format === 'csv') res.write(stringify([layout.header], CSV_OPTIONS));
    const run: ExportRun = { exported, format, layout, present: (r) => request.present(r), record: request.record };
    await streamChunks(db, req, res, (trx) => exportChunks(trx, run), exportSlots.stallTimeoutMs);
  } finally {
    release?.();
  }
}
