/** Style A presenters of the analytics and usage answers (CONTRACT section 15): snake_case, shaping only. */
import type { PeriodPoint, QuestionAnalytics } from '../../core/analytics/analytics.service';
import type { UsageCount } from '../../core/api-keys/usage';

export function presentQuestionAnalyticsA(q: QuestionAnalytics): Record<string, unknown> {
  const out: Record<string, unknown> = { question_id: q.questionId, type: q.type, title: q.title, answered: q.answered, skipped: q.skipped };
  if (q.options !== undefined) out.options = q.options;
  if (q.type === 'nps') {
    Object.assign(out, { nps: q.nps, promoters: q.promoters, passives: q.passives, detractors: q.detractors, distribution: q.distribution });
  }
  if (q.type === 'rating' || q.type === 'number') {
    Object.assign(out, { mean: q.mean, min: q.min, max: q.max, distribution: q.distribution });
  }
  return out;
}

export function presentPeriodA(p: PeriodPoint): Record<string, unknown> {
  return { period_start: p.periodStart, responses: p.responses, average_score: p.averageScore, nps: p.nps };
}

export function presentUsageA(u: UsageCount): Record<string, unknown> {
  return { date: u.date, style: u.style, requests: u.requests };
}
