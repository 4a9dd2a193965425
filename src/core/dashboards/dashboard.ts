/**
 * What a dashboard page shows (docs/analytics.md, "Dashboard links"), read from the rollups only: the summary
 * counters (`response_counts`), per-question analytics and the time series (`answer_rollups`, `response_daily`,
 * analytics.store.ts), plus one query per text question for its latest 20 answers, which walks the index
 * `responses_form_keyset_created_idx` newest first and stops at 20, and the count of the form's responses per topic
 * (topics.store.ts: a count over the topics' tags joined to their responses). No scan of responses.
 */
import type { Knex } from 'knex';
import { questionAnalytics, responseDaySpan, timeSeries, type Interval, type PeriodPoint, type QuestionAnalytics } from '../analytics/analytics.store';
import { AppError } from '../errors';
import { formDefinitionFromDb, scoreQuestion, type FormDefinition, type FormQuestion } from '../forms/form-model';
import { DAY_MS } from '../query/dates';
import { latestStringAnswers, responseTotals } from '../responses/responses.store';
import { topicTotals } from '../topics/topics.store';

/** Text answers shown per text question. */
export const LATEST_TEXT_ANSWERS = 20;

export interface TextAnswer {
  value: string;
  createdAt: Date;
}

export interface DashboardQuestion {
  question: FormQuestion;
  analytics: QuestionAnalytics;
  /** `text` questions: the latest answers, newest first. */
  latest?: TextAnswer[];
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

/** The latest answers of a text question, newest first (index `responses_form_keyset_created_idx`, LIMIT 20). */
async function latestTextAnswers(db: Knex, workspaceId: string, formId: string, questionId: string): Promise<TextAnswer[]> {
  const rows = await latestStringAnswers(db, workspaceId, formId, questionId, LATEST_TEXT_ANSWERS);
  return rows.map((r) => ({ value: r.value, createdAt: r.created_at }));
}

/**
 * Everything the page of a dashboard link shows.
 * @param interval the visitor's pick, else undefined (defaultInterval from the span of the data).
 * @returns undefined when the form no longer exists.
 */
export async function dashboardData(db: Knex, workspaceId: string, formId: string, interval: Interval | undefined): Promise<DashboardData | undefined> {
  // Independent reads run side by side (each on its own pooled connection on PostgreSQL): the form, then its
  // text questions' latest answers; the span of the data (for the default period), then the series; the count;
  // the per-question analytics.
  const spanOf = async (): Promise<Interval> => {
    if (interval !== undefined) return interval;
    const span = await responseDaySpan(db, workspaceId, formId);
    return defaultInterval(span?.first ?? null, span?.last ?? null);
  };
  const formAndTexts = async () => {
    const def = await formDefinitionFromDb(db, workspaceId, formId);
    if (!def) return undefined;
    const textQuestions = def.questions.filter((q) => q.type === 'text');
    const latest = await Promise.all(textQuestions.map((q) => latestTextAnswers(db, workspaceId, formId, q.id)));
    return { def, latest: new Map(textQuestions.map((q, i) => [q.id, latest[i]!])) };
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
  const [loaded, summary, analytics, over, topics] = await Promise.all([
    formAndTexts(),
    responseTotals(db, workspaceId, formId),
    unlessGone(questionAnalytics(db, workspaceId, formId, [])),
    unlessGone(seriesOf()),
    topicTotals(db, workspaceId, formId),
  ]);
  if (!loaded || !analytics || !over) return undefined;
  const { name, workspaceId: _ws, ...form } = loaded.def;
  const latestById = loaded.latest;
  const { chosen, points } = over;
  const byId = new Map(analytics.map((a) => [a.questionId, a]));
  const questions: DashboardQuestion[] = [];
  for (const q of form.questions) {
    const a = byId.get(q.id);
    if (!a) continue;
    const texts = latestById.get(q.id);
    questions.push(texts ? { question: q, analytics: a, latest: texts } : { question: q, analytics: a });
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
