/** Style A presenters of the analytics and usage answers (docs/analytics.md, "Per-question analytics"): snake_case, shaping only. */
import type { PeriodPoint, QuestionAnalytics } from '../../core/analytics/analytics.store';
import type { UsageCount } from '../../core/api-keys/usage.store';
import type { MigrationReport } from '../../core/migration/report';
import type { TopicCounts } from '../../core/topics/topics.store';
import type { KeyUsageA, MigrationReportA, QuestionAnalyticsA, TimeseriesPointA, TopicCountsA } from '../../wire/types.gen';

export function presentQuestionAnalyticsA(q: QuestionAnalytics): QuestionAnalyticsA {
  const out: QuestionAnalyticsA = { question_id: q.questionId, type: q.type, title: q.title, answered: q.answered, skipped: q.skipped };
  if (q.options !== undefined) out.options = q.options;
  if (q.type === 'nps') {
    Object.assign(out, { nps: q.nps, promoters: q.promoters, passives: q.passives, detractors: q.detractors, distribution: q.distribution });
  }
  if (q.type === 'rating' || q.type === 'number') {
    Object.assign(out, { mean: q.mean, min: q.min, max: q.max, distribution: q.distribution });
  }
  return out;
}

export function presentPeriodA(p: PeriodPoint): TimeseriesPointA {
  return { period_start: p.periodStart, responses: p.responses, average_score: p.averageScore, nps: p.nps };
}

/** A topic's counts over time (docs/analytics.md, "Topics over time"), snake_case. */
export function presentTopicCountsA(c: TopicCounts): TopicCountsA {
  return {
    topic_id: c.topicId,
    name: c.name,
    responses: c.responses,
    periods: c.periods.map((p) => ({ period_start: p.periodStart, responses: p.responses })),
  };
}

export function presentUsageA(u: UsageCount): KeyUsageA {
  return { date: u.date, style: u.style, requests: u.requests };
}

/** The migration report (docs/analytics.md, "Migration report"), snake_case; the CLI's `keys report` prints the same. */
export function presentMigrationReportA(r: MigrationReport): MigrationReportA {
  return {
    key_id: r.keyId,
    default_style: r.defaultStyle,
    deprecation: r.deprecation,
    sunset: r.sunset,
    window: r.window,
    operations: r.operations.map((o) => ({
      operation: o.operation,
      method: o.method,
      path: o.path,
      requests: o.requests,
      first_seen: o.firstSeen.toISOString(),
      last_seen: o.lastSeen.toISOString(),
      style_a: {
        operation: o.styleA.operation,
        method: o.styleA.method,
        path: o.styleA.path,
        params: o.styleA.params.map((p) => ({ b: p.b, a: p.a, how: p.how })),
      },
      status: o.status,
      ...(o.reason === null ? {} : { reason: o.reason }),
    })),
    verdict: { no_style_b_calls: r.verdict.noStyleBCalls, message: r.verdict.message },
  };
}
