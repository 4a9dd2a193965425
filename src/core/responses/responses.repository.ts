/**
 * Response queries (knex). The list is one index range scan on
 * (workspace_id[, form_id], created_at DESC, id DESC) or the score equivalent; counts for Style B
 * come from `response_counts` (kept by triggers with every write) whenever the narrowing allows, and
 * a deep page in created_at order starts at the day `response_day_counts` places it on.
 */
import type { Knex } from 'knex';
import type { DbHandle } from '../../db';
import { fieldMap, type ListField, type SortDirection } from '../query/fields';
import type { OffsetStart } from '../query/list';
import { sql, type Sql } from '../query/sql';
import { typedFilterParams } from '../query/typed-filter';
import type { DateBound } from '../query/dates';
import type { ActionlistItem, ResponseIncludes, ResponseRecord, StoredAnswer } from './responses.types';

const col = (name: string, type: ListField['type'], nullable = false): ListField => ({
  name,
  expr: sql('??', name),
  type,
  nullable,
});

export const RESPONSE_ID_FIELD = col('id', 'text');
export const RESPONSE_SORT_FIELDS = fieldMap([col('created_at', 'timestamp'), col('score', 'number')]);
/** Style B `filter` fields on responses (docs/api-rules.md, "Filter language"). */
export const RESPONSE_FILTER_FIELDS = fieldMap([
  col('id', 'text'),
  col('form_id', 'text'),
  col('score', 'number'),
  col('email_id', 'text', true),
  col('row_id', 'text', true),
  col('respondent_email', 'text', true),
]);
/**
 * Style A's typed filter parameters on responses (`id`, `id_ne`, `id_in`, `score_present`, …): one per
 * filter field and operator; `form_id` itself is the list's own parameter (docs/migrating-between-styles.md,
 * "Response filters").
 */
export const RESPONSE_FILTER_PARAMS = typedFilterParams(RESPONSE_FILTER_FIELDS, ['form_id']);
/** Filter fields whose clauses `response_counts` can answer without touching responses. */
export const COUNTABLE_FILTER_FIELDS = new Set(['form_id', 'score']);

export interface ResponseNarrowing {
  formId?: string | undefined;
  created: readonly DateBound[];
  scoreGte?: number | undefined;
  scoreLte?: number | undefined;
  /** Compiled `filter` expression. */
  filter?: Sql | undefined;
}

const BASE_COLUMNS = [
  'id',
  'form_id',
  'score',
  'version',
  'language',
  'created_at',
  'answers',
  'respondent_email',
  'email_id',
  'row_id',
];

/** Applies every narrowing condition to a query over `responses` or `response_counts` (same column names). */
export function applyNarrowing(q: Knex.QueryBuilder, workspaceId: string, n: ResponseNarrowing, dates = true): Knex.QueryBuilder {
  q.where('workspace_id', workspaceId);
  if (n.formId !== undefined) q.where('form_id', n.formId);
  if (n.scoreGte !== undefined) q.where('score', '>=', n.scoreGte);
  if (n.scoreLte !== undefined) q.where('score', '<=', n.scoreLte);
  if (dates) for (const b of n.created) q.where('created_at', b.op, b.value);
  if (n.filter) q.whereRaw(n.filter.sql, n.filter.bindings);
  return q;
}

/** The base list query: selected columns per `include`, narrowing applied, no order or limit. */
export function responsesQuery(db: DbHandle, workspaceId: string, n: ResponseNarrowing, include: ResponseIncludes): Knex.QueryBuilder {
  const columns = [...BASE_COLUMNS];
  if (include.tableData) columns.push('table_data', 'table_data_captured_at');
  if (include.actionlists) columns.push('actionlists');
  return applyNarrowing(db('responses').select(columns), workspaceId, n);
}

interface ResponseRow {
  id: string;
  form_id: string;
  score: number;
  version: number;
  language: string;
  created_at: Date;
  answers: StoredAnswer[];
  respondent_email: string | null;
  email_id: string | null;
  row_id: string | null;
  table_data?: Record<string, unknown> | null;
  table_data_captured_at?: Date | null;
  actionlists?: ActionlistItem[];
}

export function toRecord(row: ResponseRow, include: ResponseIncludes): ResponseRecord {
  const r: ResponseRecord = {
    id: row.id,
    formId: row.form_id,
    score: row.score,
    version: row.version,
    language: row.language,
    createdAt: row.created_at,
    answers: row.answers,
    respondentEmail: row.respondent_email,
    emailId: row.email_id,
    rowId: row.row_id,
  };
  if (include.tableData) {
    r.tableData =
      row.table_data === null || row.table_data === undefined
        ? null
        : { rowId: row.row_id, capturedAt: row.table_data_captured_at ?? null, columns: row.table_data };
  }
  if (include.actionlists) r.actionlists = row.actionlists ?? [];
  return r;
}

/** Fills `formName` on records with one query for the distinct forms of the page. */
export async function attachFormNames(db: DbHandle, workspaceId: string, records: ResponseRecord[]): Promise<void> {
  const ids = [...new Set(records.map((r) => r.formId))];
  if (ids.length === 0) return;
  const forms = (await db('forms').select('id', 'name').where('workspace_id', workspaceId).whereIn('id', ids)) as Array<{
    id: string;
    name: string;
  }>;
  const names = new Map(forms.map((f) => [f.id, f.name]));
  for (const r of records) r.formName = names.get(r.formId) ?? '';
}

export async function findResponse(db: DbHandle, workspaceId: string, id: string, include: ResponseIncludes): Promise<ResponseRecord | undefined> {
  const row = (await responsesQuery(db, workspaceId, { created: [] }, include).where('id', id).first()) as ResponseRow | undefined;
  return row && toRecord(row, include);
}

/** Number of responses of the workspace, from the counters. */
export async function countAllResponses(db: DbHandle, workspaceId: string): Promise<number> {
  const row = (await db('response_counts').where('workspace_id', workspaceId).sum({ n: 'responses' }).first()) as { n: unknown };
  return Number(row?.n ?? 0);
}

/**
 * Number of responses after narrowing. From the counters when only form and score narrow
 * (a sum over a handful of rows); otherwise an index-assisted COUNT over responses.
 */
export async function countNarrowed(db: DbHandle, workspaceId: string, n: ResponseNarrowing, countersSuffice: boolean): Promise<number> {
  if (countersSuffice && n.created.length === 0) {
    const q = applyNarrowing(db('response_counts'), workspaceId, n, false).sum({ n: 'responses' }).first();
    const row = (await q) as { n: unknown } | undefined;
    return Number(row?.n ?? 0);
  }
  const row = (await applyNarrowing(db('responses'), workspaceId, n).count({ n: '*' }).first()) as { n: unknown } | undefined;
  return Number(row?.n ?? 0);
}

const DAY_MS = 86_400_000;

/**
 * Where the row at `offset` of a created_at-ordered list lies, from `response_day_counts`: the list
 * narrowed to that UTC day and the days after it in `dir` order, and how many rows the days before
 * it hold. Reads the counter rows day by day in list order and stops at that day (a running sum),
 * so the cost grows with the days skipped, not with the rows.
 * Only for narrowings the counters answer (form and score, no dates; see countNarrowed).
 * @returns null when the list holds no more than `offset` rows.
 */
export async function findDayStart(
  db: DbHandle,
  workspaceId: string,
  n: ResponseNarrowing,
  dir: SortDirection,
  offset: number,
): Promise<OffsetStart | null> {
  const days = applyNarrowing(db('response_day_counts'), workspaceId, n, false)
    .select(db.raw("to_char(day, 'YYYY-MM-DD') AS day_text"))
    .sum({ n: 'responses' })
    .select(db.raw(`sum(sum(responses)) OVER (ORDER BY day ${dir === 'desc' ? 'DESC' : 'ASC'}) AS through`))
    .groupBy('day')
    .orderBy('day', dir);
  // The outer query keeps the subquery's order; an ORDER BY of its own there makes the planner
  // aggregate every day before the limit instead of stopping at the first day past the offset.
  const row = (await db
    .select('day_text', db.raw('through - n AS skipped'))
    .from(days.as('d'))
    .where('through', '>', offset)
    .first()) as { day_text: string; skipped: unknown } | undefined;
  if (!row) return null;
  const dayStart = Date.parse(`${row.day_text}T00:00:00.000Z`);
  const where =
    dir === 'desc' ? sql('?? < ?', 'created_at', new Date(dayStart + DAY_MS)) : sql('?? >= ?', 'created_at', new Date(dayStart));
  return { where, skipped: Number(row.skipped) };
}
