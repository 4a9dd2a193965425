/**
 * Style A analytics and migration-insight reads (docs/analytics.md, "Per-question analytics"):
 * `{ws}/forms/{form_id}/analytics/questions`, `…/analytics/timeseries`, `…/analytics/topics` (docs/analytics.md, "Topics over time"),
 * `{ws}/api-keys/{key_id}/usage` and
 * `{ws}/api-keys/{key_id}/migration-report` (docs/analytics.md, "Migration report").
 * The analytics paths are Style A paths that take the date parameters of either style.
 */
import { Router, type Request } from 'express';
import { INTERVALS, questionAnalytics, timeSeries, type Interval } from '../../core/analytics/analytics.store';
import { assertUsageVisible, listKeyUsage, OPERATION_USAGE_WINDOW_DAYS } from '../../core/api-keys/usage.store';
import { migrationReport } from '../../core/migration/report';
import { errors } from '../../core/errors';
import type { DateBound } from '../../core/query/dates';
import type { CoreDeps } from '../deps';
import { single, wholeListA } from '../envelope';
import { callerOf, createdRangeA, createdRangeB, int, param, str, workspaceOf } from '../query-values';
import { presentMigrationReportA, presentPeriodA, presentQuestionAnalyticsA, presentTopicCountsA, presentUsageA } from './analytics.present';
import { assertFormExists } from '../../core/forms/forms.store';
import { topicCountsOverTime } from '../../core/topics/topics.store';

/**
 * `created_after`/`created_before` or `start_date`/`end_date` (docs/analytics.md, "Date ranges, and days cut in two").
 * @throws AppError validation_error naming the parameters when both kinds are given, or for a bad date.
 */
export function analyticsRange(req: Request): DateBound[] {
  const a = ['created_after', 'created_before'].filter((n) => str(req, n) !== undefined);
  const b = ['start_date', 'end_date'].filter((n) => str(req, n) !== undefined);
  if (a.length > 0 && b.length > 0) {
    throw errors.validation(
      [...a, ...b].map((field) => ({
        location: 'query' as const,
        field,
        message: `\`${field}\` cannot be combined with ${a.includes(field) ? b.join(', ') : a.join(', ')}.`,
      })),
      `Date parameters of both kinds in one request: ${[...a, ...b].join(', ')}; use created_after/created_before or start_date/end_date.`,
    );
  }
  return a.length > 0 ? createdRangeA(req) : createdRangeB(req);
}

/** Routes mounted at `/api/v1/workspaces`. */
export function analyticsRouter({ db, styleB }: CoreDeps): Router {
  const r = Router();
  r.get('/:workspace_id/forms/:form_id/analytics/questions', async (req, res) => {
    const items = await questionAnalytics(db, workspaceOf(req), param(req, 'form_id'), analyticsRange(req));
    res.json(wholeListA(req, items.map(presentQuestionAnalyticsA)));
  });
  r.get('/:workspace_id/forms/:form_id/analytics/timeseries', async (req, res) => {
    const interval = (str(req, 'interval') ?? 'day') as Interval;
    if (!INTERVALS.includes(interval)) {
      throw errors.invalid('query', 'interval', `\`interval\` must be day, week, month or year; got "${interval}".`);
    }
    const series = await timeSeries(db, workspaceOf(req), param(req, 'form_id'), analyticsRange(req), interval);
    const page = wholeListA(req, series.points.map(presentPeriodA));
    // The interval used: the one asked, or a coarser one when the span needs more than MAX_SERIES_POINTS.
    res.json({ ...page, meta: { ...page.meta, interval: series.interval } });
  });
  r.get('/:workspace_id/forms/:form_id/analytics/topics', async (req, res) => {
    const [ws, formId] = [workspaceOf(req), param(req, 'form_id')];
    await assertFormExists(db, ws, formId);
    // The document's enum has checked `interval`.
    const counts = await topicCountsOverTime(db, ws, formId, analyticsRange(req), (str(req, 'interval') ?? 'day') as Interval);
    res.json(wholeListA(req, counts.map(presentTopicCountsA)));
  });
  r.get('/:workspace_id/api-keys/:key_id/usage', async (req, res) => {
    const days = int(req, 'days', 1, 90, 30);
    const today = new Date().toISOString().slice(0, 10);
    const usage = await listKeyUsage(db, workspaceOf(req), param(req, 'key_id'), callerOf(req), { days, today });
    res.json(wholeListA(req, usage.map(presentUsageA)));
  });
  // The scope check lets a key read its own report without api_keys:read (x-own-key-param in openapi/).
  r.get('/:workspace_id/api-keys/:key_id/migration-report', async (req, res) => {
    const days = int(req, 'days', 1, OPERATION_USAGE_WINDOW_DAYS, 30);
    const today = new Date().toISOString().slice(0, 10);
    const keyId = param(req, 'key_id');
    await assertUsageVisible(db, workspaceOf(req), keyId, callerOf(req));
    const report = await migrationReport(db, keyId, { days, today, schedule: styleB ?? { deprecation: null, sunset: null } });
    res.json(single(req, presentMigrationReportA(report)));
  });
  return r;
}
