/**
 * API key usage per UTC day and answer style (docs/analytics.md, "Migration insight"), and per UTC day,
 * style and operation (docs/analytics.md, "Usage per operation"): written in batches by the platform's
 * usage counter, read by GET {ws}/api-keys/{key_id}/usage and by the migration report
 * (core/migration/report.ts). The worker prunes both.
 */
import type { DbHandle } from '../../db';
import { deleteOlderInBatches, type BatchOptions } from '../../db/batches';
import { errors } from '../errors';
import { keyWorkspaceRows } from './api-keys.store';
import { DAY_MS } from '../query/dates';

export interface UsageCount {
  keyId: string;
  /** UTC date `YYYY-MM-DD`. */
  date: string;
  style: 'A' | 'B';
  requests: number;
}

/** The requests of one key, UTC day, style and operation, with the first and last instant seen. */
export interface OperationUsageCount extends UsageCount {
  /** The openapi/ `operationId` the request matched, or `unmatched` (UNMATCHED_OPERATION). */
  operation: string;
  /** Why a Style B request has no mechanical Style A translation (core/migration/attention.ts), else ''. */
  attention: string;
  firstSeen: Date;
  lastSeen: Date;
}

/** The operation of a request that matched no operation of openapi/ (an unknown path or method). */
export const UNMATCHED_OPERATION = 'unmatched';

/** Orders rows by their primary key columns, so concurrent flushes lock rows in the same order. */
function byKey(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  return 0;
}

/**
 * Adds counts to `api_key_usage` with one additive upsert, rows in key order (no deadlocks between
 * instances flushing at once).
 */
export async function addUsage(db: DbHandle, counts: readonly UsageCount[]): Promise<void> {
  if (counts.length === 0) return;
  const rows = [...counts]
    .sort((a, b) => byKey([a.keyId, a.date, a.style], [b.keyId, b.date, b.style]))
    .map((c) => ({ api_key_id: c.keyId, day: c.date, style: c.style, requests: c.requests }));
  await db('api_key_usage')
    .insert(rows)
    .onConflict(['api_key_id', 'day', 'style'])
    .merge({ requests: db.raw('api_key_usage.requests + excluded.requests') });
}

/**
 * Adds counts to `api_key_operation_usage` with one additive upsert in key order: requests add up,
 * `first_seen` keeps the earliest and `last_seen` the latest instant (several instances add up).
 */
export async function addOperationUsage(db: DbHandle, counts: readonly OperationUsageCount[]): Promise<void> {
  if (counts.length === 0) return;
  const rows = [...counts]
    .sort((a, b) => byKey([a.keyId, a.date, a.style, a.operation, a.attention], [b.keyId, b.date, b.style, b.operation, b.attention]))
    .map((c) => ({
      api_key_id: c.keyId,
      day: c.date,
      style: c.style,
      operation: c.operation,
      attention: c.attention,
      requests: c.requests,
      first_seen: c.firstSeen,
      last_seen: c.lastSeen,
    }));
  await db('api_key_operation_usage')
    .insert(rows)
    .onConflict(['api_key_id', 'day', 'style', 'operation', 'attention'])
    .merge({
      requests: db.raw('api_key_operation_usage.requests + excluded.requests'),
      first_seen: db.raw('LEAST(api_key_operation_usage.first_seen, excluded.first_seen)'),
      last_seen: db.raw('GREATEST(api_key_operation_usage.last_seen, excluded.last_seen)'),
    });
}

/** The per-style totals (`api_key_usage`) of per-operation counts. */
export function styleTotals(counts: readonly OperationUsageCount[]): UsageCount[] {
  const totals = new Map<string, UsageCount>();
  for (const c of counts) {
    const k = `${c.keyId}\n${c.date}\n${c.style}`;
    const t = totals.get(k);
    if (t) t.requests += c.requests;
    else totals.set(k, { keyId: c.keyId, date: c.date, style: c.style, requests: c.requests });
  }
  return [...totals.values()];
}

/**
 * Writes per-operation counts and their per-style totals: both tables or neither, so a caller that
 * keeps a failed batch for its next try never counts a request twice.
 * @param trx a transaction (the caller opens it).
 */
export async function addAllUsage(trx: DbHandle, counts: readonly OperationUsageCount[]): Promise<void> {
  await addUsage(trx, styleTotals(counts));
  await addOperationUsage(trx, counts);
}

/**
 * Checks that key `keyId` opens workspace `workspaceId` and that `viewer` may read its usage: the counts of a
 * key are kept per key, not per workspace, so only a viewer that opens every workspace of the key may read
 * them (the usage reads of `{ws}/api-keys/{key_id}/…`; docs/analytics.md, "Migration insight"). A key
 * always reads its own.
 * @throws AppError resource_not_found when the key does not exist or has no access to the workspace;
 * workspace_access_denied when the key opens a workspace `viewer` does not.
 */
export async function assertUsageVisible(
  db: DbHandle,
  workspaceId: string,
  keyId: string,
  viewer: { id: string; workspaceIds: readonly string[] },
): Promise<void> {
  const rows = await keyWorkspaceRows(db, keyId);
  const opens = rows.map((r) => r.workspace_id);
  if (!opens.includes(workspaceId)) throw errors.notFound('API key', keyId);
  if (keyId !== viewer.id && opens.some((w) => !viewer.workspaceIds.includes(w))) throw errors.usageNotShared(keyId);
}

/**
 * Requests of a key per UTC day and style over the last `days` days (today included), newest first,
 * Style A before B within a day; only days and styles with requests.
 * @param days 1–90, already validated.
 * @param today the current UTC date `YYYY-MM-DD`.
 * @throws AppError resource_not_found when the key does not exist or has no access to the workspace;
 * workspace_access_denied when the key opens a workspace `viewer` does not (assertUsageVisible).
 */
export async function listKeyUsage(
  db: DbHandle,
  workspaceId: string,
  keyId: string,
  viewer: { id: string; workspaceIds: readonly string[] },
  window: { days: number; today: string },
): Promise<UsageCount[]> {
  await assertUsageVisible(db, workspaceId, keyId, viewer);
  const { days, today } = window;
  const from = daysBefore(today, days - 1);
  const rows = (await db('api_key_usage')
    .select(db.raw('day::text AS day'), 'style', 'requests')
    .where('api_key_id', keyId)
    .where('day', '>=', from)
    .where('day', '<=', today)
    .where('requests', '>', 0)
    .orderBy([
      { column: 'day', order: 'desc' },
      { column: 'style', order: 'asc' },
    ])) as Array<{ day: string; style: 'A' | 'B'; requests: unknown }>;
  return rows.map((r) => ({ keyId, date: r.day, style: r.style, requests: Number(r.requests) }));
}

/** The longest window GET …/usage shows (`days` 1–90, openapi/ `UsageDays`). */
export const USAGE_WINDOW_DAYS = 90;

/** The longest window the migration report shows (`days` 1–400); `api_key_operation_usage` keeps as long. */
export const OPERATION_USAGE_WINDOW_DAYS = 400;

/** The UTC date `days` days before `today` (both `YYYY-MM-DD`). */
export function daysBefore(today: string, days: number): string {
  return new Date(Date.parse(`${today}T00:00:00Z`) - days * DAY_MS).toISOString().slice(0, 10);
}

/**
 * Deletes usage days the API can no longer show: before the 90-day window ending on `today`, one day
 * of grace on top (docs/operations.md "What grows, and what bounds it"). Rows of deleted keys age out
 * the same way. In batches; safe on several instances at once.
 * @param today the current UTC date `YYYY-MM-DD`.
 * @returns rows deleted.
 */
export function pruneKeyUsage(db: DbHandle, today: string, opts: BatchOptions = {}): Promise<number> {
  return deleteOlderInBatches(
    db,
    { table: 'api_key_usage', key: ['api_key_id', 'day', 'style'], column: 'day', before: daysBefore(today, USAGE_WINDOW_DAYS) },
    opts,
  );
}

/**
 * Deletes per-operation usage days the migration report can no longer show: before the 400-day window
 * ending on `today`, one day of grace on top (docs/operations.md "What grows, and what bounds it").
 * In batches; safe on several instances at once.
 * @param today the current UTC date `YYYY-MM-DD`.
 * @returns rows deleted.
 */
export function pruneOperationUsage(db: DbHandle, today: string, opts: BatchOptions = {}): Promise<number> {
  const key = ['api_key_id', 'day', 'style', 'operation', 'attention'];
  return deleteOlderInBatches(db, { table: 'api_key_operation_usage', key, column: 'day', before: daysBefore(today, OPERATION_USAGE_WINDOW_DAYS) }, opts);
}

/** One row of styleBOperationUsage: sums as the driver returns them (the report converts). */
export type OperationUsageSum = { operation: string; attention: string; requests: unknown; first_seen: unknown; last_seen: unknown };

/** A key's Style B requests per operation and attention between two UTC days (inclusive), the unmatched ones left out, summed with first and last seen (the migration report). */
export async function styleBOperationUsage(db: DbHandle, keyId: string, from: string, to: string): Promise<OperationUsageSum[]> {
  return (await db('api_key_operation_usage')
    .select('operation', 'attention')
    .sum({ requests: 'requests' })
    .min({ first_seen: 'first_seen' })
    .max({ last_seen: 'last_seen' })
    .where({ api_key_id: keyId, style: 'B' })
    .whereNot('operation', UNMATCHED_OPERATION)
    .where('day', '>=', from)
    .where('day', '<=', to)
    .groupBy('operation', 'attention')
    .orderBy(['operation', 'attention'])) as OperationUsageSum[];
}
