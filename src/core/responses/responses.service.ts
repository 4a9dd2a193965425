/**
 * Responses, style-neutral (API document "Response, Style A/B"; responses endpoints of both styles).
 * Adapters hand over raw parameter strings; this module validates them against the whitelists,
 * narrows, sorts and pages, and returns ResponseRecords.
 */
import type { Knex } from 'knex';
import { errors } from '../errors';
import type { DateBound } from '../query/dates';
import { compileFilter } from '../query/filter';
import { fetchKeysetPage, fetchOffsetPage, type ListPage, type Pagination } from '../query/list';
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
  RESPONSE_ID_FIELD,
  RESPONSE_SORT_FIELDS,
  responsesQuery,
  toRecord,
  type ResponseNarrowing,
} from './responses.repository';
import type { ResponseIncludes, ResponseRecord } from './responses.types';

type Db = Knex | Knex.Transaction;

export interface ResponseListQuery {
  formId?: string | undefined;
  /** Date bounds on created_at (already parsed by the adapter's date rules). */
  created?: readonly DateBound[];
  scoreGte?: number | undefined;
  scoreLte?: number | undefined;
  /** Style B `filter` expression (raw). */
  filter?: string | undefined;
  /** Raw `sort` value. */
  sort?: string | undefined;
  /** Style B accepts several sort fields. */
  multiSort?: boolean;
  include?: ResponseIncludes;
  pagination: Pagination;
}

const DEFAULT_SORT = [{ field: RESPONSE_SORT_FIELDS.get('created_at')!, dir: 'desc' as const }];

/** What a list and an export share: the filters and sort of a responses list, without paging. */
export type ResponseFilterQuery = Omit<ResponseListQuery, 'pagination'>;

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
  const compiled = q.filter === undefined ? undefined : compileFilter(q.filter, { fields: RESPONSE_FILTER_FIELDS });
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

/**
 * Lists a workspace's responses (all forms, or one with `formId`).
 * @returns a keyset page (Style A) or an offset page with `total` and `filteredTotal` (Style B).
 * @throws AppError validation_error for an unknown sort or filter field, a bad filter or cursor.
 */
export async function listResponses(db: Db, workspaceId: string, q: ResponseListQuery): Promise<ListPage<ResponseRecord>> {
  const { keys, compiled, narrowing, include } = prepareList(q);
  const base = responsesQuery(db, workspaceId, narrowing, include);
  const finish = async (rows: Parameters<typeof toRecord>[0][]) => {
    const records = rows.map((r) => toRecord(r, include));
    if (include.formName) await attachFormNames(db, workspaceId, records);
    return records;
  };

  if (q.pagination.kind === 'keyset') {
    const listId = `responses:${workspaceId}`;
    const page = await fetchKeysetPage(db, base, keys, q.pagination.limit, q.pagination.cursor, listId);
    return {
      kind: 'keyset',
      items: await finish(page.rows as never[]),
      limit: q.pagination.limit,
      nextCursor: page.nextCursor,
      prevCursor: page.prevCursor,
    };
  }
  const { page, limit } = q.pagination;
  const countersSuffice = (compiled?.clauses ?? []).every(
    (c) => COUNTABLE_FILTER_FIELDS.has(c.field) && c.op !== '~' && c.values.every((v) => v.quoted || v.text !== 'null'),
  );
  // Pages in created_at order narrowed only by form and score start at the day the counters name.
  const byDay = countersSuffice && narrowing.created.length === 0 && keys.length === 2 && keys[0]!.field.name === 'created_at';
  const seek = byDay ? (offset: number) => findDayStart(db, workspaceId, narrowing, keys[0]!.dir, offset) : undefined;
  const [rows, total, filteredTotal] = await Promise.all([
    fetchOffsetPage(base, keys, page, limit, ['workspace_id', 'id'], seek),
    countAllResponses(db, workspaceId),
    countNarrowed(db, workspaceId, narrowing, countersSuffice),
  ]);
  return { kind: 'page', items: await finish(rows as never[]), page, limit, total, filteredTotal };
}

/**
 * One response of the workspace.
 * @throws AppError resource_not_found when it does not exist in this workspace.
 */
export async function getResponse(db: Db, workspaceId: string, id: string, include: ResponseIncludes = {}): Promise<ResponseRecord> {
  const record = await findResponse(db, workspaceId, id, include);
  if (!record) throw errors.notFound('Response', id);
  if (include.formName) await attachFormNames(db, workspaceId, [record]);
  return record;
}

/** A validated export, ready to stream (see openResponseExport). */
export interface ResponseExport {
  /**
   * Batches of records in list order, read through a server-side cursor (`DECLARE … CURSOR`,
   * `FETCH batchSize`) in one read-only transaction on one connection. Stopping the iteration early
   * (`break`, `return()`) rolls the transaction back, which closes the cursor and frees the connection.
   */
  batches(batchSize?: number): AsyncGenerator<ResponseRecord[], void, undefined>;
}

/**
 * Opens an export of every response a list with the same filters and sort would show, in list order
 * (CONTRACT section 15). Validation happens here, before anything is streamed.
 * @throws AppError validation_error as listResponses does.
 */
export function openResponseExport(db: Knex, workspaceId: string, q: ResponseFilterQuery): ResponseExport {
  const { keys, narrowing, include } = prepareList(q);
  return {
    async *batches(batchSize = 500) {
      const trx = await db.transaction(undefined, { readOnly: true });
      try {
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
      } finally {
        // Read-only: a rollback ends it as well as a commit, and also after an error or an early stop.
        if (!trx.isCompleted()) await trx.rollback();
      }
    },
  };
}
