/**
 * The migration report of one API key (docs/analytics.md, "Migration report"): every Style B operation
 * the key called in the last `days` UTC days (from `api_key_operation_usage`), with its requests, the
 * first and last instant seen, its Style A equivalent (operation-map.ts) and a status; the key's default
 * style, the Style B deprecation and sunset dates when set, and one verdict. Read by
 * GET {ws}/api-keys/{key_id}/migration-report and `feedback-service keys report`.
 */
import type { DbHandle } from '../../db';
import { apiKeyStyle } from '../api-keys/api-keys.store';
import { daysBefore, type OperationUsageSum, styleBOperationUsage } from '../api-keys/usage.store';
import { errors } from '../errors';
import { mappingFor, type StyleAEquivalent } from './operation-map';

export interface ReportedOperation {
  /** The Style B operationId, method and path template. */
  operation: string;
  method: string;
  path: string;
  requests: number;
  firstSeen: Date;
  lastSeen: Date;
  styleA: StyleAEquivalent;
  /** `ready`: a mechanical translation exists; `attention`: `reason` says what stands in the way. */
  status: 'ready' | 'attention';
  reason: string | null;
}

export interface MigrationReport {
  keyId: string;
  defaultStyle: 'A' | 'B';
  /** `YYYY-MM-DD`, or null without `STYLE_B_SUNSET`. */
  deprecation: string | null;
  sunset: string | null;
  /** `days` UTC days, `from` … `to` (today), both included. */
  window: { days: number; from: string; to: string };
  /** Most requests first, then by operationId. */
  operations: ReportedOperation[];
  verdict: { noStyleBCalls: boolean; message: string };
}

/** The Style B schedule as dates: `STYLE_B_DEPRECATED_AT`, else 180 days before `STYLE_B_SUNSET` (docs/analytics.md, "Deprecation headers"). */
export interface StyleBSchedule {
  deprecation: string | null;
  sunset: string | null;
}

/**
 * The dates of the Style B schedule from the settings (already checked to be `YYYY-MM-DD` at start-up).
 * Without a sunset both are null: the deprecation headers are off then too.
 */
export function styleBSchedule(sunset: string | undefined, deprecatedAt: string | undefined): StyleBSchedule {
  if (!sunset) return { deprecation: null, sunset: null };
  return { deprecation: deprecatedAt ?? daysBefore(sunset, 180), sunset };
}

type UsageRow = OperationUsageSum;

/** Rows grouped by operation, in order (Map.groupBy is not in Node 20). */
function byOperation(rows: readonly UsageRow[]): Map<string, UsageRow[]> {
  const groups = new Map<string, UsageRow[]>();
  for (const r of rows) groups.set(r.operation, [...(groups.get(r.operation) ?? []), r]);
  return groups;
}

/** `'<n> of <total> requests: <part>: <category>'` per recorded gap of one operation's requests. */
function attentionReasons(group: readonly UsageRow[], total: number): string[] {
  return group.filter((r) => r.attention !== '').map((r) => `${Number(r.requests)} of ${total} requests: ${r.attention}`);
}

/** The verdict's sentence. */
function verdictMessage(ops: readonly ReportedOperation[], window: MigrationReport['window']): string {
  // No dates in the sentence: `window` has them (and the captured examples stay the same from day to day).
  const span = `the last ${window.days} day${window.days === 1 ? '' : 's'}`;
  if (ops.length === 0) return `No Style B call in ${span}: this key's clients already call Style A only.`;
  const requests = ops.reduce((n, o) => n + o.requests, 0);
  const attention = ops.filter((o) => o.status === 'attention').length;
  const rest = attention === 0 ? 'each has a mechanical Style A equivalent' : `${attention} of them need attention (see reason)`;
  return `${requests} Style B request${requests === 1 ? '' : 's'} to ${ops.length} operation${ops.length === 1 ? '' : 's'} in ${span}: ${rest}.`;
}

/**
 * The report of key `keyId` over the `days` UTC days ending on `today`.
 * @param days 1–400, already validated.
 * @param today the current UTC date `YYYY-MM-DD`.
 * @throws AppError resource_not_found when the key does not exist.
 */
export async function migrationReport(db: DbHandle, keyId: string, opts: { days: number; today: string; schedule: StyleBSchedule }): Promise<MigrationReport> {
  const key = await apiKeyStyle(db, keyId);
  if (!key) throw errors.notFound('API key', keyId);
  const window = { days: opts.days, from: daysBefore(opts.today, opts.days - 1), to: opts.today };
  const rows = await styleBOperationUsage(db, keyId, window.from, window.to);
  const operations: ReportedOperation[] = [];
  for (const [operation, group] of byOperation(rows)) {
    // A request answered in Style B by an operation with no Style B side (none today) has nothing to switch.
    const mapping = mappingFor(operation);
    const requests = group.reduce((n, r) => n + Number(r.requests), 0);
    if (!mapping || requests === 0) continue;
    const reasons = [mapping.attention, ...attentionReasons(group, requests)].filter((r): r is string => r !== null);
    operations.push({
      operation: mapping.operation,
      method: mapping.method,
      path: mapping.path,
      requests,
      firstSeen: new Date(Math.min(...group.map((r) => new Date(r.first_seen as string | Date).getTime()))),
      lastSeen: new Date(Math.max(...group.map((r) => new Date(r.last_seen as string | Date).getTime()))),
      styleA: mapping.equivalent,
      status: reasons.length === 0 ? 'ready' : 'attention',
      reason: reasons.length === 0 ? null : reasons.join('; '),
    });
  }
  operations.sort((a, b) => b.requests - a.requests || (a.operation < b.operation ? -1 : 1));
  return {
    keyId,
    defaultStyle: key.style,
    deprecation: opts.schedule.deprecation,
    sunset: opts.schedule.sunset,
    window,
    operations,
    verdict: { noStyleBCalls: operations.length === 0, message: verdictMessage(operations, window) },
  };
}
