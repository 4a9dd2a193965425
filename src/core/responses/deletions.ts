/**
 * Deleting responses (docs/api-rules.md, "Deleting responses"; docs/data-rights.md): one by id, many by the list's
 * filters (a dry run counts them first), and the retention's old ones. Every way runs the same two steps in the
 * caller's transaction: one DELETE on `responses`, whose statement-level AFTER DELETE triggers move
 * `response_counts`, `response_day_counts`, `response_daily` and `answer_rollups` in that statement, and the
 * `response.deleted` events through the outbox (core/webhooks/outbox.ts). So a committed delete has moved every
 * total, summary and analytics number, and a rolled-back one moved nothing.
 *
 * A bulk delete larger than `RESPONSE_DELETE_INLINE_MAX` is a job: a `response_deletions` row and a pg-boss job on
 * `response-deletion` (the one job machinery of the service, src/db/pg-boss.ts), inserted in one transaction. The
 * worker runs it in batches (`runDeletionBatch`), one transaction each that deletes, records the events and moves
 * the row's `deleted`: a crash loses at most the batch in progress, whole, and the retried job goes on from what is
 * left. Two deletes at once (two jobs, a job and a single delete) each delete a row at most once: a row another
 * transaction deleted first is skipped by the DELETE, and the counters move by the rows each statement removed.
 */
import type { Knex } from 'knex';
import type { DbHandle } from '../../db';
import { insertJobs } from '../../db/pg-boss';
import { errors } from '../errors';
import { newId } from '../ids';
import type { DateBound } from '../query/dates';
import { recordEvents } from '../webhooks/outbox';
import {
  countMatching,
  deleteResponseRow,
  deleteResponsesMatching,
  prepareNarrowing,
  type DeletedResponse,
  type ResponseFilterQuery,
  type ResponseNarrowing,
} from './responses.store';

/** The pg-boss queue of bulk delete jobs (created by migration 20261127_016). */
export const DELETION_QUEUE = 'response-deletion';

/** A job is retried after a crash or an error (each retry goes on from the rows left); it may run 15 minutes per try. */
export const DELETION_JOB_OPTIONS = { retryLimit: 10, retryDelay: 30, expireInSeconds: 900 } as const;

/** The filters of a bulk delete, as the list reads them (no sort, no page, no includes). */
export type DeletionFilters = Pick<ResponseFilterQuery, 'formId' | 'created' | 'scoreGte' | 'scoreLte' | 'filter' | 'typed'>;

export type DeletionStatus = 'dry_run' | 'queued' | 'running' | 'succeeded' | 'failed';

/** A bulk delete as the API shows it (`id` null for a dry run, which stores nothing). */
export interface ResponseDeletion {
  id: string | null;
  status: DeletionStatus;
  dryRun: boolean;
  /** Responses the filters selected when it was asked. */
  matched: number;
  /** Responses deleted so far. */
  deleted: number;
  createdAt: Date;
  finishedAt: Date | null;
}

/** The data of one job on DELETION_QUEUE. */
export interface DeletionJob {
  workspaceId: string;
  deletionId: string;
}

/** A bulk delete checked and counted, ready to run (planResponseDeletion). */
export interface DeletionPlan {
  filters: DeletionFilters;
  /** Only responses with `created_at` up to this instant are selected (a response arriving later stays). */
  requestedAt: Date;
  narrowing: ResponseNarrowing;
  matched: number;
}

interface DeletionRow {
  id: string;
  status: Exclude<DeletionStatus, 'dry_run'>;
  filters: DeletionFilters | string;
  requested_at: Date;
  matched: string | number;
  deleted: string | number;
  created_at: Date;
  finished_at: Date | null;
}

const toDeletion = (r: DeletionRow): ResponseDeletion => ({
  id: r.id,
  status: r.status,
  dryRun: false,
  matched: Number(r.matched),
  deleted: Number(r.deleted),
  createdAt: r.created_at,
  finishedAt: r.finished_at,
});

/** Records one `response.deleted` event per deleted response (outbox; nothing when no endpoint subscribes). */
async function recordDeleted(trx: Knex.Transaction, workspaceId: string, rows: readonly DeletedResponse[]): Promise<void> {
  if (rows.length === 0) return;
  await recordEvents(
    trx,
    workspaceId,
    rows.map((r) => ({ type: 'response.deleted' as const, resource: { kind: 'response_deleted' as const, responseId: r.id, formId: r.formId } })),
  );
}

/**
 * Deletes one response in the caller's transaction, with its `response.deleted` event; the counters move with it.
 * @throws AppError resource_not_found when the workspace has no response of that id (also one deleted already).
 * Spec: DELETE {ws}/responses/{response_id} (openapi/, `deleteResponse`).
 */
export async function deleteResponse(trx: Knex.Transaction, workspaceId: string, responseId: string): Promise<DeletedResponse> {
  const row = await deleteResponseRow(trx, workspaceId, responseId);
  if (!row) throw errors.notFound('Response', responseId);
  await recordDeleted(trx, workspaceId, [row]);
  return row;
}

/**
 * The names of the filters a bulk delete was given (`form_id`, `created`, `score_gte`, `score_lte`, `filter`, and each
 * typed parameter such as `id_in` or `answer`), never their values: what its audit record names.
 */
export function deletionFilterNames(f: DeletionFilters): string[] {
  const names: string[] = [];
  if (f.formId !== undefined) names.push('form_id');
  if ((f.created?.length ?? 0) > 0) names.push('created');
  if (f.scoreGte !== undefined) names.push('score_gte');
  if (f.scoreLte !== undefined) names.push('score_lte');
  if (f.filter !== undefined && f.filter.trim() !== '') names.push('filter');
  for (const [name, values] of Object.entries(f.typed ?? {})) if (values.length > 0) names.push(name);
  return names;
}

/** True when the filters narrow at all (a bulk delete of a whole workspace by an empty body is refused). */
function anyFilter(f: DeletionFilters): boolean {
  return (
    f.formId !== undefined ||
    (f.created?.length ?? 0) > 0 ||
    f.scoreGte !== undefined ||
    f.scoreLte !== undefined ||
    (f.filter !== undefined && f.filter.trim() !== '') ||
    Object.values(f.typed ?? {}).some((v) => v.length > 0)
  );
}

/** The filters plus the bound `created_at <= requestedAt`. */
function bounded(filters: DeletionFilters, requestedAt: Date): ResponseFilterQuery {
  const cutoff: DateBound = { op: '<=', value: requestedAt.toISOString() };
  return { ...filters, created: [...(filters.created ?? []), cutoff] };
}

/**
 * Checks a bulk delete's filters as the list does and counts the responses they select (an exact COUNT).
 * @param emptyField the body field a 400 names when no filter is given (the style's spelling).
 * @throws AppError validation_error when no filter is given, or as the lists do for a bad filter.
 */
export async function planResponseDeletion(
  db: DbHandle,
  workspaceId: string,
  filters: DeletionFilters,
  opts: { emptyField: string; now?: Date },
): Promise<DeletionPlan> {
  if (!anyFilter(filters)) {
    throw errors.invalid('body', opts.emptyField, `A bulk delete needs at least one filter (\`${opts.emptyField}\`, dates, score, answers or \`ids\`).`);
  }
  const requestedAt = opts.now ?? new Date();
  const narrowing = await prepareNarrowing(db, workspaceId, bounded(filters, requestedAt));
  return { filters, requestedAt, narrowing, matched: await countMatching(db, workspaceId, narrowing) };
}

/** The answer of a dry run: the count, nothing stored. */
export function dryRunResult(plan: DeletionPlan): ResponseDeletion {
  return { id: null, status: 'dry_run', dryRun: true, matched: plan.matched, deleted: 0, createdAt: plan.requestedAt, finishedAt: plan.requestedAt };
}

async function insertDeletion(trx: Knex.Transaction, workspaceId: string, plan: DeletionPlan, row: Record<string, unknown>): Promise<ResponseDeletion> {
  const [stored] = (await trx('response_deletions')
    .insert({
      workspace_id: workspaceId,
      id: newId('responseDeletion'),
      filters: JSON.stringify(plan.filters),
      requested_at: plan.requestedAt,
      matched: plan.matched,
      ...row,
    })
    .returning(['id', 'status', 'filters', 'requested_at', 'matched', 'deleted', 'created_at', 'finished_at'])) as DeletionRow[];
  return toDeletion(stored!);
}

/**
 * Runs a small bulk delete whole in the caller's transaction (one DELETE, its events) and records it as `succeeded`.
 * @param requestedBy the key that asked (`key_…`), kept with the record.
 */
export async function runInlineDeletion(trx: Knex.Transaction, workspaceId: string, plan: DeletionPlan, requestedBy: string | null): Promise<ResponseDeletion> {
  const rows = await deleteResponsesMatching(trx, workspaceId, plan.narrowing);
  await recordDeleted(trx, workspaceId, rows);
  return insertDeletion(trx, workspaceId, plan, { status: 'succeeded', deleted: rows.length, requested_by: requestedBy, finished_at: trx.fn.now() });
}

/** Records a large bulk delete as `queued` and inserts its job, both in the caller's transaction. */
export async function queueDeletion(trx: Knex.Transaction, workspaceId: string, plan: DeletionPlan, requestedBy: string | null): Promise<ResponseDeletion> {
  const deletion = await insertDeletion(trx, workspaceId, plan, { status: 'queued', requested_by: requestedBy });
  const data: DeletionJob = { workspaceId, deletionId: deletion.id! };
  await insertJobs(trx, [{ name: DELETION_QUEUE, data, ...DELETION_JOB_OPTIONS }]);
  return deletion;
}

/**
 * One batch of a bulk delete job in the caller's transaction: locks the deletion's row (two workers on one job take
 * turns), deletes at most `batchSize` responses its filters still select, records their events and adds them to
 * `deleted`. When nothing is left the deletion becomes `succeeded`.
 * @returns 'done' when the deletion is finished (or unknown, or finished before), else 'more'.
 * @throws AppError validation_error when the stored filters no longer hold (the form of an answer filter was deleted).
 */
export async function runDeletionBatch(trx: Knex.Transaction, job: DeletionJob, batchSize: number): Promise<'done' | 'more'> {
  const row = (await trx('response_deletions').where({ workspace_id: job.workspaceId, id: job.deletionId }).forUpdate().first()) as DeletionRow | undefined;
  if (!row || row.status === 'succeeded' || row.status === 'failed') return 'done';
  const filters = (typeof row.filters === 'string' ? JSON.parse(row.filters) : row.filters) as DeletionFilters;
  const narrowing = await prepareNarrowing(trx, job.workspaceId, bounded(filters, row.requested_at));
  const rows = await deleteResponsesMatching(trx, job.workspaceId, narrowing, batchSize);
  await recordDeleted(trx, job.workspaceId, rows);
  // A batch whose rows another delete took first is empty while others may remain: count before finishing.
  const done = rows.length === 0 && (await countMatching(trx, job.workspaceId, narrowing)) === 0;
  await trx('response_deletions')
    .where({ workspace_id: job.workspaceId, id: job.deletionId })
    .update({
      status: done ? 'succeeded' : 'running',
      deleted: trx.raw('deleted + ?', [rows.length]),
      updated_at: trx.fn.now(),
      finished_at: done ? trx.fn.now() : null,
    });
  return done ? 'done' : 'more';
}

/** Marks a job `failed` with the reason (its filters no longer hold); the rows it deleted stay deleted. */
export async function failDeletion(db: DbHandle, job: DeletionJob, message: string): Promise<void> {
  await db('response_deletions')
    .where({ workspace_id: job.workspaceId, id: job.deletionId })
    .whereIn('status', ['queued', 'running'])
    .update({ status: 'failed', error: message, updated_at: db.fn.now(), finished_at: db.fn.now() });
}

/**
 * One bulk delete of the workspace.
 * @throws AppError resource_not_found when the workspace has none of that id.
 * Spec: GET {ws}/response-deletions/{deletion_id} (openapi/, `getResponseDeletion`).
 */
export async function getResponseDeletion(db: DbHandle, workspaceId: string, id: string): Promise<ResponseDeletion> {
  const row = (await db('response_deletions').where({ workspace_id: workspaceId, id }).first()) as DeletionRow | undefined;
  if (!row) throw errors.notFound('Response deletion', id);
  return toDeletion(row);
}

/**
 * Deletes at most `limit` responses of the workspace created before `before`, in the caller's transaction, with
 * their events (the retention's batch: src/core/responses/retention.ts).
 * @returns how many went.
 */
export function deleteResponsesBefore(trx: Knex.Transaction, workspaceId: string, before: Date, limit: number): Promise<number> {
  return deleteNarrowedResponses(trx, workspaceId, { created: [{ op: '<', value: before.toISOString() }] }, limit);
}

/**
 * Deletes at most `limit` responses of the narrowing, oldest first, in the caller's transaction, with their
 * `response.deleted` events (the retention's and an erasure's batch: src/core/respondents/erasure.ts).
 * @returns how many went (fewer than `limit`: none are left).
 */
export async function deleteNarrowedResponses(trx: Knex.Transaction, workspaceId: string, n: ResponseNarrowing, limit: number): Promise<number> {
  const rows = await deleteResponsesMatching(trx, workspaceId, n, limit);
  await recordDeleted(trx, workspaceId, rows);
  return rows.length;
}

/** An address inside any text of a stored filter, replaced (case-insensitively) by `[erased]`. */
function withoutAddress(value: unknown, address: RegExp): unknown {
  if (typeof value === 'string') return value.replace(address, '[erased]');
  if (Array.isArray(value)) return value.map((v) => withoutAddress(v, address));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withoutAddress(v, address)]));
  return value;
}

/**
 * Forgets an erased address (lower case) in the stored filters of the workspace's bulk deletes, in the erasure's
 * transaction: each place it appears in a filter (a Style B `respondent_email = …`, an answer filter) reads
 * `[erased]`, and a delete still `queued` or `running` with such a filter is stopped as `failed` (its filters no
 * longer say what the caller asked; the erasure deleted the person's responses anyway). The rows stay: they record
 * who deleted how many, and when.
 * @returns how many bulk deletes held the address.
 */
export async function forgetAddressInDeletions(trx: Knex.Transaction, workspaceId: string, address: string): Promise<number> {
  const rows = (await trx('response_deletions')
    .where('workspace_id', workspaceId)
    .whereRaw('strpos(lower(filters::text), ?) > 0', [address])
    .forUpdate()
    .select('id', 'status', 'filters')) as Array<Pick<DeletionRow, 'id' | 'status' | 'filters'>>;
  const pattern = new RegExp(address.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'gi');
  for (const row of rows) {
    const filters = typeof row.filters === 'string' ? (JSON.parse(row.filters) as unknown) : row.filters;
    const unfinished = row.status === 'queued' || row.status === 'running';
    await trx('response_deletions')
      .where({ workspace_id: workspaceId, id: row.id })
      .update({
        filters: JSON.stringify(withoutAddress(filters, pattern)),
        updated_at: trx.fn.now(),
        ...(unfinished ? { status: 'failed', error: 'Stopped by an erasure request: its filters named the erased address.', finished_at: trx.fn.now() } : {}),
      });
  }
  return rows.length;
}
