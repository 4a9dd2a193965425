/**
 * Where an import writes (docs/import.md, "Streaming, reading and writing": one transaction): the tables and their columns, and one
 * writer interface with two implementations. On PostgreSQL each batch is one `COPY … FROM STDIN`
 * (src/db/copy-writer.ts); on the embedded PGlite, which has no COPY from a client stream, multi-row INSERTs
 * (insert-writer.ts). Either way the statement-level triggers run once per statement and keep the
 * counters and rollups right. withImportWriter (import-transaction.ts) picks one.
 */
import type { CopyColumn as Column, CopyColumnType as ColumnType } from '../../db/copy-writer';
import type { Rec } from './context';

/** A column's type and a column, as both writers write them. */
export type { CopyColumnType as ColumnType, CopyColumn as Column } from '../../db/copy-writer';

const col = (name: string, type: ColumnType = 'text'): Column => ({ name, type });

/** The tables an import writes, in an order that satisfies their foreign keys, and their columns. */
export const IMPORT_TABLES = {
  workspaces: [col('id'), col('name'), col('link'), col('created_at', 'timestamptz')],
  forms: [
    col('workspace_id'),
    col('id'),
    col('name'),
    col('default_language'),
    col('translations', 'jsonb'),
    col('score_question_id'),
    col('created_at', 'timestamptz'),
    col('updated_at', 'timestamptz'),
  ],
  questions: [
    col('workspace_id'),
    col('form_id'),
    col('id'),
    col('position', 'integer'),
    col('type'),
    col('title'),
    col('required', 'boolean'),
    col('options', 'jsonb'),
    col('validation', 'jsonb'),
  ],
  datatables: [col('workspace_id'), col('id'), col('name'), col('created_at', 'timestamptz'), col('updated_at', 'timestamptz')],
  datatable_fields: [col('workspace_id'), col('datatable_id'), col('name'), col('type'), col('position', 'integer')],
  datatable_rows: [
    col('workspace_id'),
    col('datatable_id'),
    col('row_id'),
    col('data', 'jsonb'),
    col('created_at', 'timestamptz'),
    col('updated_at', 'timestamptz'),
  ],
  webhook_endpoints: [
    col('workspace_id'),
    col('id'),
    col('url'),
    col('events', 'text[]'),
    col('description'),
    col('enabled', 'boolean'),
    col('secret'),
    col('created_at', 'timestamptz'),
    col('updated_at', 'timestamptz'),
  ],
  responses: [
    col('workspace_id'),
    col('id'),
    col('form_id'),
    col('score', 'double precision'),
    col('version', 'integer'),
    col('language'),
    col('answers', 'jsonb'),
    col('respondent_email'),
    col('email_id'),
    col('row_id'),
    col('table_data', 'jsonb'),
    col('table_data_captured_at', 'timestamptz'),
    col('actionlists', 'jsonb'),
    col('created_at', 'timestamptz'),
    col('sentiment_score', 'double precision'),
    col('sentiment_label'),
    col('sentiment_pending', 'boolean'),
  ],
  email_events: [
    col('workspace_id'),
    col('id'),
    col('email_id'),
    col('email'),
    col('type'),
    col('row_id'),
    col('form_id'),
    col('flow_id'),
    col('created_at', 'timestamptz'),
  ],
} as const satisfies Record<string, readonly Column[]>;

export type ImportTable = keyof typeof IMPORT_TABLES;

/** Writes records inside the import's transaction. */
export interface ImportWriter {
  /**
   * Writes one batch of `table` records (keys: the table's columns, IMPORT_TABLES). Resolves when the
   * database has them; rejects with the database's error (e.g. `23505` when an id was taken meanwhile).
   */
  write(table: ImportTable, records: readonly Rec[]): Promise<void>;
  /**
   * Completes the writes once every batch is written (a writer may hold batches back, e.g. in a
   * staging table); rejects like `write`.
   */
  finish(): Promise<void>;
}
