/**
 * What a dashboard page shows (docs/analytics.md, "Dashboard links"), read from the rollups only: the summary
 * counters (`response_counts`), per-question analytics and the time series (`answer_rollups`, `response_daily`,
 * analytics.store.ts), the keywords of the text questions (`keyword_rollups`, keywords.store.ts) and the count of the
 * form's responses per topic (topics.store.ts: a count over the topics' tags joined to their responses). No scan of
 * responses.
 *
 * Privacy on shared pages (docs/analytics.md, "Privacy on shared pages"): the page shows no text answer as written;
 * of the text questions it shows keywords only, each from at least SHARED_MIN_RESPONSES distinct responses, and
 * never one that looks like an email address, a URL or a long number (the rollup never counts those). Topics show
 * names and counts only.
 */
import type { Knex } from 'knex';
import { questionAnalytics, responseDaySpan, timeSeries, type Interval, type PeriodPoint, type QuestionAnalytics } from '../analytics/analytics.store';
import { AppError } from '../errors';
import { formDefinitionFromDb, scoreQuestion, type FormDefinition, type FormQuestion } from '../forms/form-model';
import { DAY_MS } from '../query/dates';
import { questionKeywords, SHARED_MIN_RESPONSES, type QuestionKeywords } from '../analytics/keywords.store';
import { responseTotals } from '../responses/responses.store';
import { topicTotals } from '../topics/topics.store';

/** Terms, and phrases, shown per text question. */
export const DASHBOARD_KEYWORDS = 10;

export interface DashboardQuestion {
  question: FormQuestion;
  analytics: QuestionAnalytics;
  /** `text` questions: the keywords of all time held by at least SHARED_MIN_RESPONSES responses. */
  keywords?: QuestionKeywords;
}

export interface DashboardData {
  workspaceId: string;
  formId: string;
  name: string;
  form: FormDefinition & { languages: string[] };
  totalResponses: number;
  /** The score question (docs/collecting.md, "Score"), undefined when the form has none. */
  scoreQuestion?: FormQuestion;
  /** Of the score question: nps (with promoters…) or the mean of a rating/number question. */
  score?: QuestionAnalytics;
  interval: Interval;
  series: PeriodPoint[];
  questions: DashboardQuestion[];
  /** The workspace's topics with the form's responses tagged with each (docs/analytics.md, "Topics"), by name. */
  topics: Array<{ name: string; responses: number }>;
}

/**
 * The period of the score-over-time chart when the visitor did not pick one: days up to 62 days of data,
 * weeks up to 53 weeks, months beyond (a chart of a few dozen points).
 * @param firstDay, lastDay `YYYY-MM-DD` (UTC) of the first and last day with responses.
 */
export function defaultInterval(firstDay: string | null, lastDay: string | null): Interval {
  if (firstDay === null || lastDay === null) return 'day';
  const days = (Date.parse(`${lastDay}T00:00:00Z`) - Date.parse(`${firstDay}T00:00:00Z`)) / DAY_MS + 1;
  return days <= 62 ? 'day' : days <= 53 * 7 ? 'week' : 'month';
}

/**
 * Everything the page of a dashboard link shows.
 * @param interval the visitor's pick, else undefined (defaultInterval from the span of the data).
 * @returns undefined when the form no longer exists.
 */
export async function dashboardData(db: Knex, workspaceId: string, formId: string, interval: Interval | undefined): Promise<DashboardData | undefined> {
  // Independent reads run side by side (each on its own pooled connection on PostgreSQL): the form; the span of
  // the data (for the default period), then the series; the count; the per-question analytics; the keywords.
  const spanOf = async (): Promise<Interval> => {
    if (interval !== undefined) return interval;
    const span = await responseDaySpan(db, workspaceId, formId);
    return defaultInterval(span?.first ?? null, span?.last ?? null);
  };
  const seriesOf = async () => {
    // The series may come in a coarser interval than the one asked (MAX_SERIES_POINTS): the page shows that one.
    const series = await timeSeries(db, workspaceId, formId, [], await spanOf());
    return { chosen: series.interval, points: series.points };
  };
  // A form deleted meanwhile: the analytics answer 404, the page then too (any other error stays an error).
  const unlessGone = <T>(p: Promise<T>): Promise<T | undefined> =>
    p.catch((err: unknown) => {
      if (err instanceof AppError && err.status === 404) return undefined;
      throw err;
    });
  const [def, summary, analytics, over, keywords, topics] = await Promise.all([
    formDefinitionFromDb(db, workspaceId, formId),
    responseTotals(db, workspaceId, formId),
    unlessGone(questionAnalytics(db, workspaceId, formId, [])),
    unlessGone(seriesOf()),
    unlessGone(questionKeywords(db, workspaceId, formId, [], { limit: DASHBOARD_KEYWORDS, minResponses: SHARED_MIN_RESPONSES })),
    topicTotals(db, workspaceId, formId),
  ]);
  if (!def || !analytics || !over || !keywords) return undefined;
  const { name, workspaceId: _ws, ...form } = def;
  const keywordsById = new Map(keywords.map((k) => [k.questionId, k]));
  const { chosen, points } = over;
  const byId = new Map(analytics.map((a) => [a.questionId, a]));
  const questions: DashboardQuestion[] = [];
  for (const q of form.questions) {
    const a = byId.get(q.id);
    if (!a) continue;
    const k = keywordsById.get(q.id);
    questions.push(k ? { question: q, analytics: a, keywords: k } : { question: q, analytics: a });
  }
  const sq = scoreQuestion(form);
  return {
    workspaceId,
    formId,
    name,
    form,
    totalResponses: summary.n,
    ...(sq ? { scoreQuestion: sq, score: byId.get(sq.id) } : {}),
    interval: chosen,
    series: points,
    questions,
    topics,
  };
}
