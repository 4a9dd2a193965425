/**
 * The import writer of PostgreSQL (core/import/import-transaction.ts picks it): each batch is one
 * `COPY … FROM STDIN` in text format (pg-copy-streams), streamed with back-pressure on the transaction's
 * own connection. The one place pg-copy-streams is imported.
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
import type { Knex } from 'knex';
import type { ClientBase } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { Db } from './index';

/** A column's type as COPY's text format writes it. */
export type CopyColumnType = 'text' | 'timestamptz' | 'jsonb' | 'integer' | 'double precision' | 'boolean' | 'text[]';

/** A column a COPY writes. */
export interface CopyColumn {
  name: string;
  type: CopyColumnType;
}

/** One record: its values by column name. */
type Rec = Record<string, unknown>;

/** What a copy writer writes: each table's columns, and the staged tables with the order of their main keyset index. */
export interface CopyTables<T extends string> {
  columns: Readonly<Record<T, readonly CopyColumn[]>>;
  staged: Partial<Readonly<Record<T, string>>>;
}

/** Writes batches of records by COPY inside the transaction; `finish` moves the staged tables into place. */
export interface CopyWriter<T extends string> {
  write(table: T, records: readonly Rec[]): Promise<void>;
  finish(): Promise<void>;
}

/** Lines sent to the server per write on the stream. */
const LINES_PER_CHUNK = 500;

const SPECIAL = /[\\\n\r\t]/;

/** A text value escaped for COPY's text format (backslash, newline, carriage return, tab). */
function escapeText(s: string): string {
  if (!SPECIAL.test(s)) return s;
  return s.replace(/[\\\n\r\t]/g, (c) => (c === '\\' ? '\\\\' : c === '\n' ? '\\n' : c === '\r' ? '\\r' : '\\t'));
}

/** One field in COPY text format; `\N` is NULL. */
function field(c: CopyColumn, v: unknown): string {
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

function* lines(columns: readonly CopyColumn[], records: readonly Rec[]): Generator<string> {
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

const quoted = (columns: readonly CopyColumn[]) => columns.map((c) => `"${c.name}"`).join(', ');

/** A writer of COPY statements on `connection`, the pg client of the transaction. */
function copyWriter<T extends string>(connection: ClientBase, tables: CopyTables<T>): CopyWriter<T> {
  const staged = new Set<T>();
  return {
    async write(table: T, records: readonly Rec[]): Promise<void> {
      if (records.length === 0) return;
      const columns = tables.columns[table];
      let target = `"${table}"`;
      if (tables.staged[table] !== undefined) {
        target = `"import_${table}"`;
        if (!staged.has(table)) {
          // Table names come from the caller's table list, never from the document.
          await connection.query(`CREATE TEMP TABLE ${target} (LIKE "${table}" INCLUDING DEFAULTS) ON COMMIT DROP`);
          staged.add(table);
        }
      }
      // Column names come from the caller's table list, never from the document.
      await pipeline(Readable.from(lines(columns, records)), connection.query(copyFrom(`COPY ${target} (${quoted(columns)}) FROM STDIN`)));
    },

    async finish(): Promise<void> {
      for (const table of staged) {
        const list = quoted(tables.columns[table]);
        await connection.query(`INSERT INTO "${table}" (${list}) SELECT ${list} FROM "import_${table}" ORDER BY ${tables.staged[table]!}`);
        await connection.query(`DROP TABLE "import_${table}"`);
      }
      staged.clear();
    },
  };
}

/**
 * Runs `fn` in one transaction on PostgreSQL with a COPY writer on the transaction's own connection
 * (COPY must run on the very connection the transaction holds): one of the two transactions opened
 * below the edge (docs/decisions.md, "Who opens transactions"). Committed when `fn` resolves, rolled
 * back when it throws.
 */
export async function withCopyTransaction<T extends string, R>(
  db: Db,
  tables: CopyTables<T>,
  fn: (trx: Knex.Transaction, writer: CopyWriter<T>) => Promise<R>,
): Promise<R> {
  // The transaction runs on a connection taken here, so COPY can use the same pg client knex uses.
  const client = db.client as Knex.Client;
  const connection = (await client.acquireConnection()) as ClientBase;
  try {
    return await db.transaction((trx) => fn(trx, copyWriter(connection, tables)), { connection });
  } finally {
    await client.releaseConnection(connection);
  }
}
