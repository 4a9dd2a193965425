/**
 * The import writer of PostgreSQL: each batch is one `COPY … FROM STDIN` in text format
 * (pg-copy-streams), streamed with back-pressure on the transaction's own connection.
 *
 * The big tables (responses, email events) are staged: their batches are copied into a temporary
 * table of the same shape (no indexes, triggers or foreign keys: no WAL, no index maintenance while
 * the document is read), and `finish` moves each into its table with ONE `INSERT … SELECT` in the
 * order of the table's main keyset index. The indexes then grow mostly in order, the foreign-key
 * checks look up the same few forms on warm pages, and the statement-level counter and rollup
 * triggers run once over one transition table instead of once per batch. Readers of the table are
 * never blocked (no index is dropped, no trigger disabled); the temporary table goes with the commit.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ClientBase } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { Rec } from './context';
import { IMPORT_TABLES, type Column, type ImportTable, type ImportWriter } from './writer';

/** Lines sent to the server per write on the stream. */
const LINES_PER_CHUNK = 500;

/** Tables written through a staging table, with the order of their main keyset index. */
const STAGED: Partial<Record<ImportTable, string>> = {
  responses: 'workspace_id, created_at DESC, id DESC',
  email_events: 'workspace_id, created_at DESC, id DESC',
};

const SPECIAL = /[\\\n\r\t]/;

/** A text value escaped for COPY's text format (backslash, newline, carriage return, tab). */
function escapeText(s: string): string {
  if (!SPECIAL.test(s)) return s;
  return s.replace(/[\\\n\r\t]/g, (c) => (c === '\\' ? '\\\\' : c === '\n' ? '\\n' : c === '\r' ? '\\r' : '\\t'));
}

/** One field in COPY text format; `\N` is NULL. */
function field(c: Column, v: unknown): string {
  if (v === null || v === undefined) return '\\N';
  switch (c.type) {
    case 'jsonb':
      return escapeText(JSON.stringify(v));
    case 'boolean':
      return v ? 't' : 'f';
    case 'integer':
    case 'double precision':
      return String(v as number);
    case 'text[]':
      return escapeText(`{${(v as string[]).map((s) => `"${s.replace(/[\\"]/g, '\\$&')}"`).join(',')}}`);
    default:
      // The remaining column types (text, uuid, timestamptz) hold scalars.
      return escapeText(String(v as string | number));
  }
}

function* lines(columns: readonly Column[], records: readonly Rec[]): Generator<string> {
  let chunk = '';
  let n = 0;
  for (const r of records) {
    let line = '';
    for (let i = 0; i < columns.length; i++) {
      const c = columns[i]!;
      line += (i === 0 ? '' : '\t') + field(c, r[c.name]);
    }
    chunk += `${line}\n`;
    if (++n === LINES_PER_CHUNK) {
      yield chunk;
      chunk = '';
      n = 0;
    }
  }
  if (chunk !== '') yield chunk;
}

const quoted = (columns: readonly Column[]) => columns.map((c) => `"${c.name}"`).join(', ');

/** A writer of COPY statements on `connection`, the pg client of the import's transaction. */
export function copyWriter(connection: ClientBase): ImportWriter {
  const staged = new Set<ImportTable>();
  return {
    async write(table: ImportTable, records: readonly Rec[]): Promise<void> {
      if (records.length === 0) return;
      const columns = IMPORT_TABLES[table];
      let target = `"${table}"`;
      if (STAGED[table] !== undefined) {
        target = `"import_${table}"`;
        if (!staged.has(table)) {
          // Table names come from IMPORT_TABLES, never from the document.
          await connection.query(`CREATE TEMP TABLE ${target} (LIKE "${table}" INCLUDING DEFAULTS) ON COMMIT DROP`);
          staged.add(table);
        }
      }
      // Column names come from IMPORT_TABLES, never from the document.
      await pipeline(Readable.from(lines(columns, records)), connection.query(copyFrom(`COPY ${target} (${quoted(columns)}) FROM STDIN`)));
    },

    async finish(): Promise<void> {
      for (const table of staged) {
        const list = quoted(IMPORT_TABLES[table]);
        await connection.query(`INSERT INTO "${table}" (${list}) SELECT ${list} FROM "import_${table}" ORDER BY ${STAGED[table]!}`);
        await connection.query(`DROP TABLE "import_${table}"`);
      }
      staged.clear();
    },
  };
}
