/**
 * Responses, style-neutral (API document "Response, Style A/B"; responses endpoints of both styles).
 * Adapters hand over raw parameter strings; this module validates them against the whitelists,
 * narrows, sorts and pages, and returns ResponseRecords.
 */
import type { Knex } from 'knex';
import type { DbHandle } from '../../db';
import { errors } from '../errors';
import type { DateBound } from '../query/dates';
import { compileFilter, type CompiledFilter } from '../query/filter';
import { joinSql } from '../query/sql';
import { compileTypedFilter } from '../query/typed-filter';
import { fetchKeysetPage, fetchOffsetPage, type KeysetPage, type KeysetQuery, type OffsetPage, type OffsetQuery } from '../query/list';
import { orderByClause } from '../query/keyset';
import { parseSort } from '../query/sort';
import {
  attachFormNames,
  COUNTABLE_FILTER_FIELDS,
  countAllResponses,
  countNarrowed,
  findDayStart,
  findResponse,
  RESPONSE_FILTER_FIELDS,
  RESPONSE_FILTER_PARAMS,
  RESPONSE_ID_FIELD,
  RESPONSE_SORT_FIELDS,
  responsesQuery,
  toRecord,
  type ResponseNarrowing,
} from './responses.repository';
import type { ResponseIncludes, ResponseRecord } from './responses.types';

/** The filters and sort of a responses list (its paging comes with each list function). */
export interface ResponseFilterQuery {
  formId?: string | undefined;
  /** Date bounds on created_at (already parsed by the adapter's date rules). */
  created?: readonly DateBound[];
  scoreGte?: number | undefined;
  scoreLte?: number | undefined;
  /** Style B `filter` expression (raw). */
  filter?: string | undefined;
  /** Style A typed filter parameters (RESPONSE_FILTER_PARAMS) by name: their raw values, in request order. */
  typed?: Readonly<Record<string, readonly string[]>>;
  /** Raw `sort` value. */
  sort?: string | undefined;
  /** Style B accepts several sort fields. */
  multiSort?: boolean;
  include?: ResponseIncludes;
}

export { RESPONSE_FILTER_PARAMS };

const DEFAULT_SORT = [{ field: RESPONSE_SORT_FIELDS.get('created_at')!, dir: 'desc' as const }];

/** The `filter` expression and the typed parameters of a list, compiled and ANDed (undefined when neither is given). */
function bothFilters(q: ResponseFilterQuery): CompiledFilter | undefined {
  const typed = q.typed;
  const parts = [
    q.filter === undefined ? undefined : compileFilter(q.filter, { fields: RESPONSE_FILTER_FIELDS }),
    typed === undefined ? undefined : compileTypedFilter(RESPONSE_FILTER_FIELDS, RESPONSE_FILTER_PARAMS, (name) => typed[name]),
  ].filter((c): c is CompiledFilter => c !== undefined);
  if (parts.length <= 1) return parts[0];
  return { clauses: parts.flatMap((c) => c.clauses), where: joinSql(parts.map((c) => c.where), ' AND ') };
}

/**
 * Validates and compiles a list's filters and sort (the one narrowing/sort code of the responses
 * list and export).
 * @throws AppError validation_error for an unknown sort or filter field, a bad filter or score range.
 */
function prepareList(q: ResponseFilterQuery) {
  const keys = parseSort(q.sort, {
    fields: RESPONSE_SORT_FIELDS,
    tieBreaker: RESPONSE_ID_FIELD,
    defaultSort: DEFAULT_SORT,
    multi: q.multiSort ?? false,
  });
  const compiled = bothFilters(q);
  if (q.scoreGte !== undefined && q.scoreLte !== undefined && q.scoreGte > q.scoreLte) {
    throw errors.invalid('query', 'score_gte', '`score_gte` is greater than `score_lte`.');
  }
  const narrowing: ResponseNarrowing = {
    formId: q.formId,
    created: q.created ?? [],
    scoreGte: q.scoreGte,
    scoreLte: q.scoreLte,
    filter: compiled?.where,
  };
  return { keys, compiled, narrowing, include: q.include ?? {} };
}

/** The records of a page's rows, with form names when asked for. */
/** A `responses` row as responsesQuery selects it. */
type ResponseRow = Parameters<typeof toRecord>[0];

async function recordsOf(db: DbHandle, workspaceId: string, rows: ResponseRow[], include: ResponseIncludes): Promise<ResponseRecord[]> {
  const records = rows.map((r) => toRecord(r, include));
  if (include.formName) await attachFormNames(db, workspaceId, records);
  return records;
}

/**
 * Lists a workspace's responses (all forms, or one with `formId`) as a keyset page (Style A).
 * @throws AppError validation_error for an unknown sort or filter field, a bad filter or cursor.
 */
export async function listResponsesKeyset(
  db: DbHandle,
  workspaceId: string,
  q: KeysetQuery<ResponseFilterQuery>,
): Promise<KeysetPage<ResponseRecord>> {
  const { keys, narrowing, include } = prepareList(q);
  const base = responsesQuery(db, workspaceId, narrowing, include);
  const { limit, cursor } = q.pagination;
  const page = await fetchKeysetPage<ResponseRow & Record<string, unknown>>(db, base, keys, limit, cursor, `responses:${workspaceId}`);
  const items = await recordsOf(db, workspaceId, page.rows, include);
  return { kind: 'keyset', items, limit, nextCursor: page.nextCursor, prevCursor: page.prevCursor };
}

/**
 * Lists a workspace's responses (all forms, or one with `formId`) as an offset page (Style B) with
 * `total` and `filteredTotal`.
 * @throws AppError validation_error for an unknown sort or filter field, a bad filter or a `page` too large.
 */
export async function listResponsesOffset(
  db: DbHandle,
  workspaceId: string,
  q: OffsetQuery<ResponseFilterQuery>,
): Promise<OffsetPage<ResponseRecord>> {
  const { keys, compiled, narrowing, include } = prepareList(q);
  const base = responsesQuery(db, workspaceId, narrowing, include);
  const { page, limit } = q.pagination;
  const countersSuffice = (compiled?.clauses ?? []).every(
    (c) => COUNTABLE_FILTER_FIELDS.has(c.field) && c.op !== '~' && c.values.every((v) => v.quoted || v.text !== 'null'),
  );
  // Pages in created_at order narrowed only by form and score start at the day the counters name.
  const byDay = countersSuffice && narrowing.created.length === 0 && keys.length === 2 && keys[0]!.field.name === 'created_at';
  const seek = byDay ? (offset: number) => findDayStart(db, workspaceId, narrowing, keys[0]!.dir, offset) : undefined;
  const [rows, total, filteredTotal] = await Promise.all([
    fetchOffsetPage<ResponseRow>(base, keys, page, limit, ['workspace_id', 'id'], seek),
    countAllResponses(db, workspaceId),
    countNarrowed(db, workspaceId, narrowing, countersSuffice),
  ]);
  return { kind: 'page', items: await recordsOf(db, workspaceId, rows, include), page, limit, total, filteredTotal };
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
 * (docs/analytics.md, "Exports"). Validation happens here, before anything is streamed.
 * @throws AppError validation_error as the lists do.
 */
export function openResponseExport(workspaceId: string, q: ResponseFilterQuery): ResponseExport {
  const { keys, narrowing, include } = prepareList(q);
  return {
    async *batches(trx, batchSize = 500) {
      const order = orderByClause(keys);
      const query = responsesQuery(trx, workspaceId, narrowing, include).orderByRaw(order.sql, order.bindings);
      const compiled = query.toSQL();
      await trx.raw(`DECLARE response_export NO SCROLL CURSOR FOR ${compiled.sql}`, compiled.bindings as Knex.RawBinding[]);
      for (;;) {
        const result = (await trx.raw(`FETCH ${Math.floor(batchSize)} FROM response_export`)) as { rows: unknown[] };
        const rows = result.rows as Parameters<typeof toRecord>[0][];
        if (rows.length === 0) break;
        const records = rows.map((r) => toRecord(r, include));
        if (include.formName) await attachFormNames(trx, workspaceId, records);
        yield records;
      }
    },
  };
}
