/**
 * The store of responses (`responses` and the counts kept with it; API document "Response, Style A/B";
 * responses endpoints of both styles). Adapters hand over raw parameter strings; the list functions
 * validate them against the whitelists, narrow, sort and page, and return ResponseRecords. The list is
 * one index range scan on (workspace_id[, form_id], created_at DESC, id DESC) or the score equivalent;
 * counts for Style B come from `response_counts` (kept by triggers with every write) whenever the
 * narrowing allows, and a deep page in created_at order starts at the day `response_day_counts` places
 * it on.
 */
import type { Knex } from 'knex';
import type { DbHandle } from '../../db';
import { cursorBatches } from '../../db/batches';
import { fieldMap, type ListField, type SortDirection } from '../query/fields';
import { fetchKeysetPage, fetchOffsetPage, type KeysetPage, type KeysetQuery, type OffsetPage, type OffsetQuery, type OffsetStart } from '../query/list';
import { joinSql, sql, type Sql } from '../query/sql';
import type { PersonKey } from '../respondents/person-key';
import type { LoggedEvent } from '../events/event-log.store';
import { compileTypedFilter, keyedFilterParams, typedFilterParams, type TypedFilterParam } from '../query/typed-filter';
import { type DateBound, DAY_MS } from '../query/dates';
import type { ActionlistItem, ResponseIncludes, ResponseRecord, Sentiment, StoredAnswer } from './responses.types';
import { SENTIMENT_LABELS, type SentimentLabel } from './sentiment-labels';
import { errors } from '../errors';
import { formNameAndQuestions, formNames, listQuestionsOf } from '../forms/forms.store';
import { type CompiledFilter, combineExtraFields, compileFilter, type ExtraFields } from '../query/filter';
import { isTopicField, topicFields } from '../topics/topics.store';
import { FilterSyntaxError, parseFilter, type FilterClause } from '../query/filter-parser';
import { snakeCase } from '../query/fields';
import { answerFields, answerRollupKeys, isAnswerField, type AnswerForm, type AnswerRollupCount } from './answer-filter';
import { answerKeysSum } from '../analytics/analytics.store';
import { orderByClause } from '../query/keyset';
import { parseSort } from '../query/sort';
import { EXCERPT_COLUMN, prepareSearch, RELEVANCE_FIELD, searchExcerptColumn, type ResponseSearch } from './search';

const col = (name: string, type: ListField['type'], nullable = false): ListField => ({
  name,
  expr: sql('??', name),
  type,
  nullable,
});

export const RESPONSE_ID_FIELD = col('id', 'text');
/** `sort=sentiment:asc|desc`: the overall score; responses without one come last either way (NULLS LAST). */
const SENTIMENT_SORT: ListField = { name: 'sentiment', expr: sql('??', 'sentiment_score'), type: 'number', nullable: true };
export const RESPONSE_SORT_FIELDS = fieldMap([col('created_at', 'timestamp'), col('score', 'number'), SENTIMENT_SORT]);
/** The filter field `sentiment`: the overall label, one of SENTIMENT_LABELS (docs/api-rules.md, "Sentiment"). */
const SENTIMENT_FILTER: ListField = { name: 'sentiment', expr: sql('??', 'sentiment_label'), type: 'text', nullable: true, values: SENTIMENT_LABELS };
/** Style B `filter` fields on responses (docs/api-rules.md, "Filter language"). */
export const RESPONSE_FILTER_FIELDS = fieldMap([
  col('id', 'text'),
  col('form_id', 'text'),
  col('score', 'number'),
  col('email_id', 'text', true),
  col('row_id', 'text', true),
  col('respondent_email', 'text', true),
  SENTIMENT_FILTER,
]);
/**
 * Style A's typed filter parameters on responses (`id`, `id_ne`, `id_in`, `score_present`, …): one per
 * filter field and operator; `form_id` itself is the list's own parameter (docs/migrating-between-styles.md,
 * "Response filters").
 */
export const RESPONSE_FILTER_PARAMS = typedFilterParams(RESPONSE_FILTER_FIELDS, ['form_id']);
/**
 * Style A's filters on answers (`answer=q_plan:opt_pro`, `answer_in`, `answer_gte`, …): keyed parameters over the
 * fields `answers.<question_id>` (src/core/responses/answer-filter.ts; docs/api-rules.md, "Filters on answers").
 */
export const RESPONSE_ANSWER_PARAMS = keyedFilterParams('answer', 'answers', 'question_id');
/**
 * Style A's filters by topic (`topic`, `topic_ne`, `topic_in`, `topic_present`) over the filter field `topic`
 * (src/core/topics/topics.store.ts, topicFields; docs/api-rules.md, "Filtering by topic").
 */
export const RESPONSE_TOPIC_PARAMS: readonly TypedFilterParam[] = (['', '_ne', '_in', '_present'] as const).map((suffix) => ({
  name: `topic${suffix}`,
  field: 'topic',
  suffix,
}));
/** Filter fields whose clauses `response_counts` can answer without touching responses. */
export const COUNTABLE_FILTER_FIELDS = new Set(['form_id', 'score']);

export interface ResponseNarrowing {
  formId?: string | undefined;
  created: readonly DateBound[];
  scoreGte?: number | undefined;
  scoreLte?: number | undefined;
  /** Compiled `filter` expression. */
  filter?: Sql | undefined;
  /** The full-text search condition (`q`; search.ts): only ever on `responses`, never on the counters. */
  search?: Sql | undefined;
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
  'sentiment_score',
  'sentiment_label',
];

/** Applies every narrowing condition to a query over `responses` or `response_counts` (same column names). */
export function applyNarrowing(q: Knex.QueryBuilder, workspaceId: string, n: ResponseNarrowing, dates = true): Knex.QueryBuilder {
  q.where('workspace_id', workspaceId);
  if (n.formId !== undefined) q.where('form_id', n.formId);
  if (n.scoreGte !== undefined) q.where('score', '>=', n.scoreGte);
  if (n.scoreLte !== undefined) q.where('score', '<=', n.scoreLte);
  if (dates) for (const b of n.created) q.where('created_at', b.op, b.value);
  if (n.filter) q.whereRaw(n.filter.sql, n.filter.bindings);
  if (n.search) q.whereRaw(n.search.sql, n.search.bindings);
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
  sentiment_score: number | null;
  sentiment_label: SentimentLabel | null;
  table_data?: Record<string, unknown> | null;
  table_data_captured_at?: Date | null;
  actionlists?: ActionlistItem[];
}

/** The overall sentiment of a row's columns (null when there is no score). */
export function sentimentOf(row: { sentiment_score: number | null; sentiment_label: SentimentLabel | null }): Sentiment | null {
  return row.sentiment_score === null || row.sentiment_label === null ? null : { score: row.sentiment_score, label: row.sentiment_label };
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
    sentiment: sentimentOf(row),
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

/**
 * Fills `formName` on records with one query for the distinct forms of the page; none for the forms `known` names
 * (id → name, e.g. the form a list filtered on answers read with its questions).
 */
export async function attachFormNames(db: DbHandle, workspaceId: string, records: ResponseRecord[], known?: ReadonlyMap<string, string>): Promise<void> {
  const names = new Map(known);
  const ids = [...new Set(records.map((r) => r.formId))].filter((id) => !names.has(id));
  if (ids.length > 0) for (const f of await formNames(db, workspaceId, ids)) names.set(f.id, f.name);
  for (const r of records) r.formName = names.get(r.formId) ?? '';
}

export async function findResponse(db: DbHandle, workspaceId: string, id: string, include: ResponseIncludes): Promise<ResponseRecord | undefined> {
  const row = (await responsesQuery(db, workspaceId, { created: [] }, include).where('id', id).first()) as ResponseRow | undefined;
  return row && toRecord(row, include);
}

/** `SUM(responses)` of the workspace's counters: its number of responses (a query to run or nest, not run here). */
function allResponsesSum(db: DbHandle, workspaceId: string): Knex.QueryBuilder {
  return db('response_counts').where('workspace_id', workspaceId).sum({ n: 'responses' });
}

/**
 * The count of the responses after narrowing, as a query to run or nest: a sum over the counters when only form and
 * score narrow (a handful of rows); otherwise an index-assisted COUNT over responses.
 */
function narrowedCount(db: DbHandle, workspaceId: string, n: ResponseNarrowing, countersSuffice: boolean): Knex.QueryBuilder {
  if (countersSuffice && n.created.length === 0) return applyNarrowing(db('response_counts'), workspaceId, n, false).sum({ n: 'responses' });
  return applyNarrowing(db('responses'), workspaceId, n).count({ n: '*' });
}

/** Number of responses after narrowing (narrowedCount, run). */
export async function countNarrowed(db: DbHandle, workspaceId: string, n: ResponseNarrowing, countersSuffice: boolean): Promise<number> {
  const row = (await narrowedCount(db, workspaceId, n, countersSuffice).first()) as { n: unknown } | undefined;
  return Number(row?.n ?? 0);
}

/**
 * A Style B page's `total` and `filteredTotal` in one statement (two scalar subqueries: one round trip, not two).
 * @param total, filtered single-value queries whose value is the column `n` (a SUM or COUNT; NULL counts as 0)
 */
async function pageTotals(db: DbHandle, total: Knex.QueryBuilder, filtered: Knex.QueryBuilder): Promise<{ total: number; filteredTotal: number }> {
  const row = (await db.select(total.as('total'), filtered.as('filtered_total')).first()) as { total: unknown; filtered_total: unknown };
  return { total: Number(row.total ?? 0), filteredTotal: Number(row.filtered_total ?? 0) };
}

/** The columns of a page's rows that carry its totals (withTotals). */
const TOTAL_COLUMN = '__total';
const FILTERED_TOTAL_COLUMN = '__filtered_total';
type TotalsColumns = { [TOTAL_COLUMN]?: unknown; [FILTERED_TOTAL_COLUMN]?: unknown };

/**
 * The page's query with its totals as two more columns of every row: uncorrelated scalar subqueries, which
 * PostgreSQL runs once per statement (InitPlans), so a page whose totals are sums over counters needs no statement of
 * its own for them. An empty page carries none: pageTotals then.
 */
function withTotals(page: Knex.QueryBuilder, total: Knex.QueryBuilder, filtered: Knex.QueryBuilder): Knex.QueryBuilder {
  return page.clone().select(total.as(TOTAL_COLUMN), filtered.as(FILTERED_TOTAL_COLUMN));
}

/**
 * Where the row at `offset` of a created_at-ordered list lies, from `response_day_counts`: the list
 * narrowed to that UTC day and the days after it in `dir` order, and how many rows the days before
 * it hold. Reads the counter rows day by day in list order and stops at that day (a running sum),
 * so the cost grows with the days skipped, not with the rows.
 * Only for narrowings the counters answer (form and score, no dates; see countNarrowed).
 * @returns null when the list holds no more than `offset` rows.
 */
export async function findDayStart(db: DbHandle, workspaceId: string, n: ResponseNarrowing, dir: SortDirection, offset: number): Promise<OffsetStart | null> {
  const days = applyNarrowing(db('response_day_counts'), workspaceId, n, false)
    .select(db.raw("to_char(day, 'YYYY-MM-DD') AS day_text"))
    .sum({ n: 'responses' })
    .select(db.raw(`sum(sum(responses)) OVER (ORDER BY day ${dir === 'desc' ? 'DESC' : 'ASC'}) AS through`))
    .groupBy('day')
    .orderBy('day', dir);
  // The outer query keeps the subquery's order; an ORDER BY of its own there makes the planner
  // aggregate every day before the limit instead of stopping at the first day past the offset.
  const row = (await db.select('day_text', db.raw('through - n AS skipped')).from(days.as('d')).where('through', '>', offset).first()) as
    { day_text: string; skipped: unknown } | undefined;
  if (!row) return null;
  const dayStart = Date.parse(`${row.day_text}T00:00:00.000Z`);
  const where = dir === 'desc' ? sql('?? < ?', 'created_at', new Date(dayStart + DAY_MS)) : sql('?? >= ?', 'created_at', new Date(dayStart));
  return { where, skipped: Number(row.skipped) };
}

// The lists: parameters checked against the whitelists, then the queries above.

/** The filters and sort of a responses list (its paging comes with each list function). */
export interface ResponseFilterQuery {
  formId?: string | undefined;
  /** Date bounds on created_at (already parsed by the adapter's date rules). */
  created?: readonly DateBound[];
  scoreGte?: number | undefined;
  scoreLte?: number | undefined;
  /** Style B `filter` expression (raw). */
  filter?: string | undefined;
  /** Style A typed filter parameters (RESPONSE_FILTER_PARAMS, RESPONSE_ANSWER_PARAMS) by name: their raw values, in request order. */
  typed?: Readonly<Record<string, readonly string[]>>;
  /** Raw `sort` value. */
  sort?: string | undefined;
  /** Raw `q`: full-text search over the text answers (search.ts); adds `relevance` to the sort fields and an excerpt to each item. */
  q?: string | undefined;
  /** Style B accepts several sort fields. */
  multiSort?: boolean;
  include?: ResponseIncludes;
}

const DEFAULT_SORT = [{ field: RESPONSE_SORT_FIELDS.get('created_at')!, dir: 'desc' as const }];

const TYPED_PARAMS = [...RESPONSE_FILTER_PARAMS, ...RESPONSE_ANSWER_PARAMS, ...RESPONSE_TOPIC_PARAMS];

/** The clauses of a `filter` expression, or none when it does not parse (compileFilter reports that). */
function clausesOrNone(expression: string | undefined): FilterClause[] {
  if (expression === undefined) return [];
  try {
    return parseFilter(expression);
  } catch (e) {
    if (e instanceof FilterSyntaxError) return [];
    throw e;
  }
}

/**
 * The form whose questions a list's answer fields name (answer-filter.ts): the one form the list is narrowed to, by
 * the `form_id` parameter (or the path), else by the first `form_id = v` condition of `filter` with a value (not
 * null, not empty: the translator reads it so too), with its questions; read only when the list filters on
 * answers, with its name in the same statement when the items carry form names (formNameAndQuestions; undefined for
 * a form the workspace does not have). Undefined without such a form: an answer filter is then a 400 asking for `form_id`.
 */
async function answerFormOf(db: DbHandle, workspaceId: string, q: ResponseFilterQuery): Promise<NamedAnswerForm | undefined> {
  const clauses = clausesOrNone(q.filter);
  const asked = clauses.some((c) => isAnswerField(c.field)) || RESPONSE_ANSWER_PARAMS.some((p) => q.typed?.[p.name] !== undefined);
  if (!asked) return undefined;
  const byFilter = clauses.find((c) => isFormClause(c) && named(c));
  const formId = q.formId ?? byFilter?.values[0]!.text;
  if (formId === undefined) return undefined;
  // The name only when the items carry it (Style B): the join costs a little more than the questions alone.
  if (!q.include?.formName) return { id: formId, name: undefined, questions: await listQuestionsOf(db, workspaceId, formId) };
  const form = await formNameAndQuestions(db, workspaceId, formId);
  return { id: formId, name: form?.name, questions: form?.questions ?? [] };
}

/** The form of a list's answer filters (answerFormOf) and its name, when the workspace has it. */
type NamedAnswerForm = AnswerForm & { name: string | undefined };

/** A `form_id = v` clause (any spelling of the field). */
const isFormClause = (c: FilterClause) => snakeCase(c.field) === 'form_id' && c.op === '=';
/** A clause whose value names something: not null, not empty. */
const named = (c: FilterClause) => c.values[0]!.text !== '' && (c.values[0]!.quoted || c.values[0]!.text.toLowerCase() !== 'null');

/**
 * The `answer_rollups` keys that count a Style B page's `filteredTotal` (answer-filter.ts, answerRollupKeys), or
 * undefined: only for a list narrowed by its form (the parameter, or `form_id = v` clauses naming that form) and one
 * answer clause the rollups count, with no dates, score bounds, other clauses or search.
 */
function rollupCountOf(form: AnswerForm | undefined, clauses: readonly FilterClause[], n: ResponseNarrowing): AnswerRollupCount | undefined {
  if (form === undefined || n.created.length > 0 || n.scoreGte !== undefined || n.scoreLte !== undefined || n.search !== undefined) return undefined;
  const answers = clauses.filter((c) => isAnswerField(c.field));
  const others = clauses.filter((c) => !isAnswerField(c.field));
  if (answers.length !== 1 || !others.every((c) => isFormClause(c) && c.values[0]!.text === form.id)) return undefined;
  return answerRollupKeys(form, answers[0]!);
}

/**
 * The fields a list compiles itself: answers (of `answerForm`, answerFormOf) and `topic` (the workspace's topics, read
 * only when asked for).
 */
async function extraFieldsOf(db: DbHandle, workspaceId: string, q: ResponseFilterQuery, answerForm: AnswerForm | undefined): Promise<ExtraFields> {
  const byTopic = clausesOrNone(q.filter).some((c) => isTopicField(c.field)) || RESPONSE_TOPIC_PARAMS.some((p) => q.typed?.[p.name] !== undefined);
  return combineExtraFields([answerFields(answerForm), await topicFields(db, workspaceId, byTopic)]);
}

/** The `filter` expression and the typed parameters of a list, compiled and ANDed (undefined when neither is given). */
function bothFilters(q: ResponseFilterQuery, extra: ExtraFields): CompiledFilter | undefined {
  const typed = q.typed;
  const parts = [
    q.filter === undefined ? undefined : compileFilter(q.filter, { fields: RESPONSE_FILTER_FIELDS, extra }),
    typed === undefined ? undefined : compileTypedFilter(RESPONSE_FILTER_FIELDS, TYPED_PARAMS, (name) => typed[name], extra),
  ].filter((c): c is CompiledFilter => c !== undefined);
  if (parts.length <= 1) return parts[0];
  return {
    clauses: parts.flatMap((c) => c.clauses),
    where: joinSql(
      parts.map((c) => c.where),
      ' AND ',
    ),
  };
}

/** The sort fields named in a raw `sort` (`relevance:desc,created_at` → relevance, created_at). */
function sortNames(raw: string | undefined): string[] {
  return (raw ?? '').split(',').map((part) => (part.split(':')[0] ?? '').trim());
}

/**
 * The sort of a list with its search: `relevance` joins the sortable fields when `q` is given, and a bare
 * `relevance` means `relevance:desc` (most relevant first).
 * @throws AppError validation_error naming `sort` when it names `relevance` without `q`, or as parseSort does.
 */
function sortOf(q: ResponseFilterQuery, search: ResponseSearch | undefined) {
  if (search === undefined && sortNames(q.sort).includes(RELEVANCE_FIELD)) {
    throw errors.invalid('query', 'sort', '`sort` by relevance orders the matches of a search: give `q`, or sort by created_at or score.');
  }
  const raw = q.sort
    ?.split(',')
    .map((part) => (part.trim() === RELEVANCE_FIELD ? `${RELEVANCE_FIELD}:desc` : part))
    .join(',');
  return parseSort(raw, {
    fields: search === undefined ? RESPONSE_SORT_FIELDS : new Map([...RESPONSE_SORT_FIELDS, [RELEVANCE_FIELD, search.relevance]]),
    tieBreaker: RESPONSE_ID_FIELD,
    defaultSort: DEFAULT_SORT,
    multi: q.multiSort ?? false,
  });
}

/**
 * Validates and compiles a list's filters, search and sort (the one narrowing/sort code of the responses
 * list and export); reads the form's questions when it filters on answers.
 * @throws AppError validation_error for an unknown sort or filter field, a bad filter or score range, an answer
 *   filter without a form, on an unknown question, with an operator or value that does not fit the question; a `q`
 *   too long or without a word; a sort by relevance without `q`.
 */
async function prepareList(db: DbHandle, workspaceId: string, q: ResponseFilterQuery) {
  const search = q.q === undefined ? undefined : await prepareSearch(db, q.q);
  const keys = sortOf(q, search);
  const answerForm = await answerFormOf(db, workspaceId, q);
  const compiled = bothFilters(q, await extraFieldsOf(db, workspaceId, q, answerForm));
  if (q.scoreGte !== undefined && q.scoreLte !== undefined && q.scoreGte > q.scoreLte) {
    throw errors.invalid('query', 'score_gte', '`score_gte` is greater than `score_lte`.');
  }
  const narrowing: ResponseNarrowing = {
    formId: q.formId,
    created: q.created ?? [],
    scoreGte: q.scoreGte,
    scoreLte: q.scoreLte,
    filter: compiled?.where,
    search: search?.where,
  };
  return { keys, compiled, narrowing, search, answerForm, include: q.include ?? {} };
}

/** A list page's query: responsesQuery, plus each row's search excerpt (search.ts, searchExcerptColumn) with a search. */
function pageQuery(db: DbHandle, workspaceId: string, narrowing: ResponseNarrowing, include: ResponseIncludes, search: ResponseSearch | undefined) {
  const q = responsesQuery(db, workspaceId, narrowing, include);
  if (search === undefined) return q;
  const excerpt = searchExcerptColumn(search);
  return q.select(db.raw(excerpt.sql, excerpt.bindings));
}

/**
 * The records of a page's rows (pageQuery's), with form names when asked for (the name of `answerForm` known already)
 * and the search excerpts with a search.
 */
async function recordsOf(
  db: DbHandle,
  workspaceId: string,
  rows: Array<ResponseRow & { [EXCERPT_COLUMN]?: string | null }>,
  { include, search, answerForm }: { include: ResponseIncludes; search: ResponseSearch | undefined; answerForm: NamedAnswerForm | undefined },
): Promise<ResponseRecord[]> {
  const records = rows.map((r) => toRecord(r, include));
  if (search) records.forEach((r, i) => (r.searchExcerpt = rows[i]![EXCERPT_COLUMN] ?? null));
  const known = answerForm?.name === undefined ? undefined : new Map([[answerForm.id, answerForm.name]]);
  if (include.formName) await attachFormNames(db, workspaceId, records, known);
  return records;
}

/**
 * Lists a workspace's responses (all forms, or one with `formId`) as a keyset page (Style A).
 * @throws AppError validation_error for an unknown sort or filter field, a bad filter or cursor.
 */
export async function listResponsesKeyset(db: DbHandle, workspaceId: string, q: KeysetQuery<ResponseFilterQuery>): Promise<KeysetPage<ResponseRecord>> {
  const list = await prepareList(db, workspaceId, q);
  const { keys, narrowing, search, include } = list;
  const base = pageQuery(db, workspaceId, narrowing, include, search);
  const { limit, cursor } = q.pagination;
  // A cursor in relevance order carries a rank of this `q`: it belongs to this search's list only.
  const byRank = search !== undefined && keys.some((k) => k.field.name === RELEVANCE_FIELD);
  const listId = byRank ? `responses:${workspaceId}:q:${search.fingerprint}` : `responses:${workspaceId}`;
  const page = await fetchKeysetPage<ResponseRow & Record<string, unknown>>(db, base, keys, limit, cursor, listId);
  const items = await recordsOf(db, workspaceId, page.rows, list);
  return { kind: 'keyset', items, limit, nextCursor: page.nextCursor, prevCursor: page.prevCursor };
}

/**
 * Lists a workspace's responses (all forms, or one with `formId`) as an offset page (Style B) with
 * `total` and `filteredTotal`.
 * @throws AppError validation_error for an unknown sort or filter field, a bad filter or a `page` too large.
 */
export async function listResponsesOffset(db: DbHandle, workspaceId: string, q: OffsetQuery<ResponseFilterQuery>): Promise<OffsetPage<ResponseRecord>> {
  const list = await prepareList(db, workspaceId, q);
  const { keys, compiled, narrowing, search, answerForm, include } = list;
  const base = pageQuery(db, workspaceId, narrowing, include, search);
  const { page, limit } = q.pagination;
  // A form and one answer filter: filteredTotal from the answer rollups, not a COUNT over the form's responses.
  const rollup = rollupCountOf(answerForm, compiled?.clauses ?? [], narrowing);
  // The counters know nothing of the text: with a search, filteredTotal is an exact COUNT over responses.
  const countersSuffice =
    search === undefined &&
    (compiled?.clauses ?? []).every((c) => COUNTABLE_FILTER_FIELDS.has(c.field) && c.op !== '~' && c.values.every((v) => v.quoted || v.text !== 'null'));
  // Pages in created_at order narrowed only by form and score start at the day the counters name.
  const byDay = countersSuffice && narrowing.created.length === 0 && keys.length === 2 && keys[0]!.field.name === 'created_at';
  const seek = byDay ? (offset: number) => findDayStart(db, workspaceId, narrowing, keys[0]!.dir, offset) : undefined;
  // Fresh builders per statement: a builder nested as a subquery takes that statement's alias.
  const filtered = () =>
    rollup === undefined
      ? narrowedCount(db, workspaceId, narrowing, countersSuffice)
      : answerKeysSum(db, workspaceId, answerForm!.id, rollup.questionId, rollup.valueKeys);
  const totals = () => pageTotals(db, allResponsesSum(db, workspaceId), filtered());
  // Sums over counters ride on the page's statement; a COUNT over responses runs beside it, on its own connection.
  const onPage = rollup !== undefined || (countersSuffice && narrowing.created.length === 0);
  const paged = onPage ? withTotals(base, allResponsesSum(db, workspaceId), filtered()) : base;
  const [rows, beside] = await Promise.all([
    fetchOffsetPage<ResponseRow & TotalsColumns>(paged, keys, page, limit, ['workspace_id', 'id'], seek),
    onPage ? undefined : totals(),
  ]);
  const first = rows[0];
  const { total, filteredTotal } =
    beside ?? (first ? { total: Number(first[TOTAL_COLUMN] ?? 0), filteredTotal: Number(first[FILTERED_TOTAL_COLUMN] ?? 0) } : await totals());
  return { kind: 'page', items: await recordsOf(db, workspaceId, rows, list), page, limit, total, filteredTotal };
}

/**
 * One response of the workspace.
 * @throws AppError resource_not_found when it does not exist in this workspace.
 */
export async function getResponse(db: DbHandle, workspaceId: string, id: string, include: ResponseIncludes = {}): Promise<ResponseRecord> {
  const record = await findResponse(db, workspaceId, id, include);
  if (!record) throw errors.notFound('Response', id);
  if (include.formName) await attachFormNames(db, workspaceId, [record]);
  return record;
}

/** A validated export, ready to stream (see openResponseExport). */
export interface ResponseExport {
  /**
   * Batches of records in list order, read through a server-side cursor (`DECLARE … CURSOR`,
   * `FETCH batchSize`) in `trx`: the caller's read-only transaction (withTransaction with
   * `{ readOnly: true }`), which it ends after the iteration, also an early stop (`break`); ending it
   * closes the cursor and frees the connection. One export per transaction.
   */
  batches(trx: Knex.Transaction, batchSize?: number): AsyncGenerator<ResponseRecord[], void, undefined>;
}

/**
 * Opens an export of every response a list with the same filters and sort would show, in list order
 * (docs/analytics.md, "Exports"). Validation happens here (reading the form's questions for answer filters on
 * `db`), before anything is streamed.
 * @throws AppError validation_error as the lists do.
 */
export async function openResponseExport(db: DbHandle, workspaceId: string, q: ResponseFilterQuery): Promise<ResponseExport> {
  const { keys, narrowing, include } = await prepareList(db, workspaceId, q);
  return {
    async *batches(trx, batchSize = 500) {
      const order = orderByClause(keys);
      const query = responsesQuery(trx, workspaceId, narrowing, include).orderByRaw(order.sql, order.bindings);
      for await (const rows of cursorBatches<ResponseRow>(trx, 'response_export', query, batchSize)) {
        const records = rows.map((r) => toRecord(r, include));
        if (include.formName) await attachFormNames(trx, workspaceId, records);
        yield records;
      }
    },
  };
}

/** The number of responses of a form and the sum of their scores, from `response_counts` (a few rows per form). */
export async function responseTotals(db: DbHandle, workspaceId: string, formId: string): Promise<{ n: number; scoreSum: number }> {
  const agg = (await db('response_counts')
    .where({ workspace_id: workspaceId, form_id: formId })
    .select(db.raw('COALESCE(SUM(responses), 0)::bigint AS n'), db.raw('SUM(score * responses) AS total'))
    .first()) as { n: unknown; total: unknown } | undefined;
  return { n: Number(agg?.n ?? 0), scoreSum: Number(agg?.total ?? 0) };
}

/** The newest response of a form (id, score, created_at), undefined when none (the form summary). */
export function lastResponse(db: DbHandle, workspaceId: string, formId: string): Promise<{ id: string; score: number; created_at: Date } | undefined> {
  return db('responses')
    .select('id', 'score', 'created_at')
    .where({ workspace_id: workspaceId, form_id: formId })
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .first() as Promise<{ id: string; score: number; created_at: Date } | undefined>;
}

/** Inserts one response row in the caller's transaction (storeSubmission). */
export async function insertResponse(trx: Knex.Transaction, row: Record<string, unknown>): Promise<void> {
  await trx('responses').insert(row);
}

/**
 * The condition "this response is the person's" (docs/data-rights.md, "Whose data is it"): its `respondent_email` is
 * `address`, or one of its answers or its captured table data holds `address` (an email question's answer, a text
 * answer that mentions it, a row's address column), compared in lower case. `address` must be lower case already.
 * No index answers the mentions: a person's request scans the workspace's responses once.
 */
function personFilter(address: string): Sql {
  return sql(
    "(lower(respondent_email) = ? OR strpos(lower(answers::text), ?) > 0 OR strpos(lower(coalesce(table_data::text, '')), ?) > 0)",
    address,
    address,
    address,
  );
}

/** The narrowing of the person's responses (personFilter): every date, every form. */
export const personNarrowing = (address: string): ResponseNarrowing => ({ created: [], filter: personFilter(address) });

/** The narrowing of a person key's responses: the address's (personFilter) or those linked to the row (`row_id`), or both. */
export function personKeyNarrowing(p: PersonKey): ResponseNarrowing {
  const parts = [...(p.address === null ? [] : [personFilter(p.address)]), ...(p.rowId === null ? [] : [sql('row_id = ?', p.rowId)])];
  const either = joinSql(parts, ' OR ');
  return { created: [], filter: sql(`(${either.sql})`, ...either.bindings) };
}

/** How many responses are the person's (an erasure's dry run). */
export function countPersonResponses(db: DbHandle, workspaceId: string, p: PersonKey): Promise<number> {
  return countNarrowed(db, workspaceId, personKeyNarrowing(p), false);
}

/** The `email_id`s and `row_id`s the person's responses point at (an erasure removes what they name). */
export async function personResponseLinks(db: DbHandle, workspaceId: string, p: PersonKey): Promise<{ emailIds: string[]; rowIds: string[] }> {
  const rows = (await applyNarrowing(db('responses').distinct('email_id', 'row_id'), workspaceId, personKeyNarrowing(p))) as Array<{
    email_id: string | null;
    row_id: string | null;
  }>;
  return {
    emailIds: [...new Set(rows.flatMap((r) => (r.email_id === null ? [] : [r.email_id])))],
    rowIds: [...new Set(rows.flatMap((r) => (r.row_id === null ? [] : [r.row_id])))],
  };
}

/**
 * The person's responses (personFilter), with table data and form names, oldest first (created_at, id), in batches read through a
 * server-side cursor in `trx` (a read-only transaction the caller ends; cursorBatches).
 * @param address the person's email address in lower case.
 */
export async function* personResponses(
  trx: Knex.Transaction,
  workspaceId: string,
  address: string,
  batchSize = 500,
): AsyncGenerator<ResponseRecord[], void, undefined> {
  const include: ResponseIncludes = { tableData: true };
  const query = responsesQuery(trx, workspaceId, personNarrowing(address), include).orderBy([
    { column: 'created_at', order: 'asc' },
    { column: 'id', order: 'asc' },
  ]);
  for await (const rows of cursorBatches<ResponseRow>(trx, 'person_responses', query, batchSize)) {
    const records = rows.map((r) => toRecord(r, include));
    await attachFormNames(trx, workspaceId, records);
    yield records;
  }
}

// Deletes (docs/api-rules.md, "Deleting responses"). The counters move in the same statement: `responses` has
// statement-level AFTER DELETE triggers for response_counts, response_day_counts, response_daily and answer_rollups.

/** What a delete removed: enough for the `response.deleted` event. */
export interface DeletedResponse {
  id: string;
  formId: string;
}

/**
 * Validates a list's filters as the list and the export do and returns the narrowing they select (no sort, no page).
 * @throws AppError validation_error as the lists do.
 */
export async function prepareNarrowing(db: DbHandle, workspaceId: string, q: ResponseFilterQuery): Promise<ResponseNarrowing> {
  return (await prepareList(db, workspaceId, { ...q, sort: undefined })).narrowing;
}

/**
 * The new responses among a range of the event log that a narrowing (prepareNarrowing) selects: a responses stream's
 * filter (docs/live.md, "Stream"), applied as SQL over the responses of the `response.created` events read (no query
 * when the narrowing selects every response). A response deleted since its event was written matches nothing.
 * @returns the matching events with their responses, in the events' order.
 */
export async function createdResponsesMatching(
  db: DbHandle,
  workspaceId: string,
  narrowing: ResponseNarrowing,
  events: readonly LoggedEvent[],
): Promise<Array<{ event: LoggedEvent; response: ResponseRecord }>> {
  const created = events.flatMap((event) =>
    event.type === 'response.created' && event.resource.kind === 'response' ? [{ event, response: event.resource.response }] : [],
  );
  const n = narrowing;
  if (
    created.length === 0 ||
    (n.formId === undefined && n.created.length === 0 && n.scoreGte === undefined && n.scoreLte === undefined && !n.filter && !n.search)
  )
    return created;
  const ids = created.map((c) => c.response.id);
  const rows = (await applyNarrowing(db('responses').select('id'), workspaceId, narrowing).whereIn('id', ids)) as Array<{ id: string }>;
  const keep = new Set(rows.map((r) => r.id));
  return created.filter((c) => keep.has(c.response.id));
}

/** Deletes one response in the caller's transaction; undefined when the workspace has no response of that id. */
export async function deleteResponseRow(trx: Knex.Transaction, workspaceId: string, id: string): Promise<DeletedResponse | undefined> {
  const rows = (await trx('responses').where({ workspace_id: workspaceId, id }).delete().returning(['id', 'form_id'])) as Array<{
    id: string;
    form_id: string;
  }>;
  const row = rows[0];
  return row && { id: row.id, formId: row.form_id };
}

/**
 * Deletes the responses of the narrowing (at most `limit` when given) in the caller's transaction, in two
 * statements: `SELECT id … ORDER BY created_at, id LIMIT n FOR UPDATE` picks and locks the batch, oldest first
 * along the keyset index and always in that one order (two deletes of overlapping sets wait on each other
 * instead of deadlocking), then one `DELETE … WHERE id IN (…)` removes it, the narrowing checked again. (One
 * `DELETE … WHERE id IN (SELECT … LIMIT n FOR UPDATE)` may run its subquery again and take more than `n`.) A row
 * another transaction deleted meanwhile is skipped, so two deletes at once never count a row twice.
 * @returns the rows deleted (fewer than `limit`, maybe none, when the narrowing holds fewer).
 */
export async function deleteResponsesMatching(trx: Knex.Transaction, workspaceId: string, n: ResponseNarrowing, limit?: number): Promise<DeletedResponse[]> {
  const picked = applyNarrowing(trx('responses').select('id'), workspaceId, n)
    .orderBy([
      { column: 'created_at', order: 'asc' },
      { column: 'id', order: 'asc' },
    ])
    .forUpdate();
  if (limit !== undefined) picked.limit(limit);
  const ids = ((await picked) as Array<{ id: string }>).map((r) => r.id);
  if (ids.length === 0) return [];
  const rows = (await applyNarrowing(trx('responses'), workspaceId, n).whereIn('id', ids).delete().returning(['id', 'form_id'])) as Array<{
    id: string;
    form_id: string;
  }>;
  return rows.map((r) => ({ id: r.id, formId: r.form_id }));
}

/** Responses of the narrowing (an exact COUNT over `responses`: the bulk delete's `matched`). */
export function countMatching(db: DbHandle, workspaceId: string, n: ResponseNarrowing): Promise<number> {
  return countNarrowed(db, workspaceId, n, false);
}

// The sentiment backfill (src/core/responses/sentiment-backfill.ts): its work list, its writes and its progress row.

/** A response whose sentiment is not computed yet: its key, language and answers. */
export interface PendingSentimentRow {
  workspace_id: string;
  id: string;
  language: string;
  answers: StoredAnswer[];
}

/**
 * Up to `limit` responses whose sentiment is pending, after the key `after` (workspace_id, id) in key order
 * (the partial index `responses_sentiment_pending_idx` holds exactly these rows, in this order).
 */
export async function pendingSentimentRows(db: DbHandle, after: { workspaceId: string; id: string } | null, limit: number): Promise<PendingSentimentRow[]> {
  const q = db('responses').select('workspace_id', 'id', 'language', 'answers').where('sentiment_pending', true);
  if (after !== null) q.whereRaw('(workspace_id, id) > (?, ?)', [after.workspaceId, after.id]);
  return (await q.orderBy([{ column: 'workspace_id' }, { column: 'id' }]).limit(limit)) as PendingSentimentRow[];
}

/** A computed sentiment for one pending response (answers with their `sentiment`, and the overall columns). */
export interface SentimentUpdate {
  workspace_id: string;
  id: string;
  answers: StoredAnswer[];
  sentiment_score: number | null;
  sentiment_label: SentimentLabel | null;
}

/**
 * Stores computed sentiments in one statement and clears their pending mark; a row no longer pending (another
 * instance filled it) or deleted meanwhile is left alone.
 * @returns the rows updated.
 */
export async function storeSentiments(db: DbHandle, updates: readonly SentimentUpdate[]): Promise<number> {
  if (updates.length === 0) return 0;
  const result = (await db.raw(
    `UPDATE responses AS r
        SET answers = x.answers, sentiment_score = x.sentiment_score, sentiment_label = x.sentiment_label, sentiment_pending = false
       FROM jsonb_to_recordset(?::jsonb) AS x(workspace_id text, id text, answers jsonb, sentiment_score double precision, sentiment_label text)
      WHERE r.workspace_id = x.workspace_id AND r.id = x.id AND r.sentiment_pending
      RETURNING r.id`,
    [JSON.stringify(updates)],
  )) as { rows: unknown[] };
  // Counted from RETURNING: PostgreSQL and PGlite report the rows alike (docs/api-rules.md, "Both databases answer alike").
  return result.rows.length;
}

/** The backfill's stored progress (table `sentiment_backfill`, one row per job). */
export interface SentimentBackfillProgress {
  /** The last key finished; null before the first batch of a pass. */
  after: { workspaceId: string; id: string } | null;
  /** Rows filled by the job since it first ran. */
  filled: number;
  passStartedAt: Date | null;
  passFinishedAt: Date | null;
}

/** The job's progress row, or a fresh one when it never ran. */
export async function readSentimentProgress(db: DbHandle, job: string): Promise<SentimentBackfillProgress> {
  const row = (await db('sentiment_backfill').where('job', job).first()) as
    { last_workspace_id: string | null; last_id: string | null; filled: unknown; pass_started_at: Date | null; pass_finished_at: Date | null } | undefined;
  if (!row) return { after: null, filled: 0, passStartedAt: null, passFinishedAt: null };
  const after = row.last_workspace_id === null || row.last_id === null ? null : { workspaceId: row.last_workspace_id, id: row.last_id };
  return { after, filled: Number(row.filled), passStartedAt: row.pass_started_at, passFinishedAt: row.pass_finished_at };
}

/** Stores the job's progress (insert or replace its one row). */
export async function writeSentimentProgress(db: DbHandle, job: string, p: SentimentBackfillProgress): Promise<void> {
  await db('sentiment_backfill')
    .insert({
      job,
      last_workspace_id: p.after?.workspaceId ?? null,
      last_id: p.after?.id ?? null,
      filled: p.filled,
      pass_started_at: p.passStartedAt,
      pass_finished_at: p.passFinishedAt,
      updated_at: new Date(),
    })
    .onConflict('job')
    .merge();
}

/** Responses whose sentiment is still pending (the partial index; the `sentiment_backfill_pending` gauge). */
export async function countPendingSentiments(db: DbHandle): Promise<number> {
  const row = (await db('responses').where('sentiment_pending', true).count({ n: '*' }).first()) as { n: unknown } | undefined;
  return Number(row?.n ?? 0);
}
