/**
 * Per-question analytics and the time series of a form (docs/analytics.md, "Per-question analytics", "Time series").
 *
 * Both read the rollups the triggers of migration 005 keep with every write (`answer_rollups`,
 * `response_daily`, per UTC day), so their cost grows with the number of days and distinct values,
 * never with the number of responses. A date bound that cuts a UTC day in two (a date-time that is
 * not midnight UTC, or an inclusive `end_date` instant) cannot be answered from per-day rows: the
 * responses of that partial day are read and expanded by the same SQL function the triggers use
 * (`response_answer_keys`), so the answer is exact for every bound.
 */
import type { Knex } from 'knex';
import type { DbHandle } from '../../db';
import { type DateBound, DAY_MS, utcDay } from '../query/dates';
import { listQuestions, type Question } from '../forms/forms.store';

export interface OptionCount {
  id: string;
  /** In the form's default language. */
  value: string;
  count: number;
  /** count / answered, 4 decimals; 0 when nothing was answered. */
  share: number;
}

export interface QuestionAnalytics {
  questionId: string;
  type: Question['type'];
  title: string;
  answered: number;
  skipped: number;
  /** Choice questions: every option in form order. */
  options?: OptionCount[];
  /** nps: −100..100, 1 decimal; null when nothing was answered. */
  nps?: number | null;
  promoters?: number;
  passives?: number;
  detractors?: number;
  /** nps: "0".."10"; rating/number: the integer values that occur. */
  distribution?: Record<string, number>;
  /** rating/number: 2 decimals; null when nothing was answered. */
  mean?: number | null;
  min?: number | null;
  max?: number | null;
}

export type Interval = 'day' | 'week' | 'month' | 'year';

/** The intervals from finest to coarsest. */
export const INTERVALS: readonly Interval[] = ['day', 'week', 'month', 'year'];

/**
 * The most points a time series has (docs/analytics.md, "Time series"): enough for one per year over the
 * whole calendar (0001–9999), so the coarsest interval always fits whatever the stored dates.
 */
export const MAX_SERIES_POINTS = 10_000;

export interface PeriodPoint {
  /** UTC date `YYYY-MM-DD` of the period's first day (weeks start Monday). */
  periodStart: string;
  responses: number;
  /** 2 decimals; null for an empty period. */
  averageScore: number | null;
  /** 1 decimal; null for an empty period, a period without nps answers, or a form without an nps question. */
  nps: number | null;
}

/** Rounds half away from zero to `decimals` places (never −0). */
export function roundTo(x: number, decimals: number): number {
  const f = 10 ** decimals;
  const r = (Math.sign(x) * Math.round(Math.abs(x) * f)) / f;
  return r === 0 ? 0 : r;
}

/** A range over created_at split into whole UTC days (answered by rollups) and partial-day ranges. */
interface SplitRange {
  /** Whole days [fromDay, toDay) as `YYYY-MM-DD`; undefined ends are open; null: no whole day at all. */
  days: { fromDay?: string; toDay?: string } | null;
  /** Ranges read from `responses` (each a list of bounds on created_at). */
  partial: DateBound[][];
}

const isoDay = (dayNumber: number) => utcDay(dayNumber * DAY_MS);

/** Whether a bound's instant is exactly a UTC midnight (sub-millisecond digits count). */
function boundDay(b: DateBound): { day: number; midnight: boolean } {
  const ms = Date.parse(b.value);
  const subMs = /\.\d{3}\d*[1-9]/.test(b.value);
  return { day: Math.floor(ms / DAY_MS), midnight: ms % DAY_MS === 0 && !subMs };
}

/**
 * Splits date bounds (at most one lower `>=` and one upper `<`/`<=`, as the rules of docs/api-rules.md, "Dates" make them)
 * into whole days and the partial days at either end.
 */
export function splitRange(bounds: readonly DateBound[]): SplitRange {
  const lower = bounds.find((b) => b.op === '>=');
  const upper = bounds.find((b) => b.op !== '>=');
  if (!lower && !upper) return { days: {}, partial: [] };
  const lo = lower && boundDay(lower);
  const hi = upper && boundDay(upper);
  const fromDay = lo === undefined ? undefined : lo.midnight ? lo.day : lo.day + 1;
  const toDay = hi?.day;
  if (fromDay !== undefined && toDay !== undefined && fromDay >= toDay) {
    // No whole day inside: read the whole range from responses (at most two days of them).
    return { days: null, partial: [[lower!, upper!]] };
  }
  const partial: DateBound[][] = [];
  if (lower && !lo!.midnight) partial.push([lower, { op: '<', value: `${isoDay(fromDay!)}T00:00:00Z` }]);
  if (upper && !(upper.op === '<' && hi!.midnight)) partial.push([{ op: '>=', value: `${isoDay(toDay!)}T00:00:00Z` }, upper]);
  return {
    days: { fromDay: fromDay === undefined ? undefined : isoDay(fromDay), toDay: toDay === undefined ? undefined : isoDay(toDay) },
    partial,
  };
}

/** Narrows a rollup query to the whole days of a split range (`day` column). */
export function dayRange(q: Knex.QueryBuilder, days: NonNullable<SplitRange['days']>): Knex.QueryBuilder {
  if (days.fromDay !== undefined) q.where('day', '>=', days.fromDay);
  if (days.toDay !== undefined) q.where('day', '<', days.toDay);
  return q;
}

/** The responses of a form within one partial-day range (alias `r`). */
export function partialResponses(db: DbHandle, workspaceId: string, formId: string, range: readonly DateBound[]): Knex.QueryBuilder {
  const q = db('responses as r').where({ 'r.workspace_id': workspaceId, 'r.form_id': formId });
  for (const b of range) q.where('r.created_at', b.op, b.value);
  return q;
}

/** Per (question, value key) answer counts and the number of responses in range. */
async function keyCounts(db: DbHandle, workspaceId: string, formId: string, range: SplitRange) {
  const counts = new Map<string, Map<string, number>>();
  const add = (questionId: string, key: string, n: number) => {
    let m = counts.get(questionId);
    if (!m) counts.set(questionId, (m = new Map<string, number>()));
    m.set(key, (m.get(key) ?? 0) + n);
  };
  let responses = 0;
  if (range.days) {
    const rows = (await dayRange(db('answer_rollups').where({ workspace_id: workspaceId, form_id: formId }), range.days)
      .select('question_id', 'value_key')
      .sum({ n: 'answers' })
      .groupBy('question_id', 'value_key')) as Array<{ question_id: string; value_key: string; n: unknown }>;
    for (const r of rows) add(r.question_id, r.value_key, Number(r.n));
    const total = (await dayRange(db('response_daily').where({ workspace_id: workspaceId, form_id: formId }), range.days)
      .sum({ n: 'responses' })
      .first()) as { n: unknown } | undefined;
    responses += Number(total?.n ?? 0);
  }
  for (const part of range.partial) {
    const rows = (await partialResponses(db, workspaceId, formId, part)
      .joinRaw('CROSS JOIN LATERAL response_answer_keys(r.answers) AS k')
      .select('k.question_id', 'k.value_key')
      .count({ n: '*' })
      .groupBy('k.question_id', 'k.value_key')) as Array<{ question_id: string; value_key: string; n: unknown }>;
    for (const r of rows) add(r.question_id, r.value_key, Number(r.n));
    const total = (await partialResponses(db, workspaceId, formId, part).count({ n: '*' }).first()) as { n: unknown } | undefined;
    responses += Number(total?.n ?? 0);
  }
  return { counts, responses };
}

/** Numeric value keys with a positive count, as [value, count] in ascending value order. */
function numericEntries(keys: Map<string, number>): Array<[number, number]> {
  return [...keys.entries()]
    .filter(([k, n]) => k !== '' && n > 0 && Number.isFinite(Number(k)))
    .map(([k, n]): [number, number] => [Number(k), n])
    .sort((a, b) => a[0] - b[0]);
}

interface NpsBuckets {
  promoters: number;
  passives: number;
  detractors: number;
  answered: number;
}

function npsScore(b: NpsBuckets): number | null {
  return b.answered > 0 ? roundTo(((b.promoters - b.detractors) * 100) / b.answered, 1) : null;
}

function bucketsOf(entries: Array<[number, number]>): NpsBuckets {
  const b = { promoters: 0, passives: 0, detractors: 0, answered: 0 };
  for (const [v, n] of entries) {
    if (v >= 9) b.promoters += n;
    else if (v >= 7) b.passives += n;
    else b.detractors += n;
    b.answered += n;
  }
  return b;
}

function analyseQuestion(q: Question, keys: Map<string, number>, responses: number): QuestionAnalytics {
  const answered = Math.max(0, keys.get('') ?? 0);
  const out: QuestionAnalytics = { questionId: q.id, type: q.type, title: q.title, answered, skipped: Math.max(0, responses - answered) };
  if (q.type === 'single_choice' || q.type === 'multiple_choice') {
    out.options = q.options.map((o) => {
      const count = Math.max(0, keys.get(o.id) ?? 0);
      return { id: o.id, value: o.value, count, share: answered > 0 ? roundTo(count / answered, 4) : 0 };
    });
  } else if (q.type === 'nps') {
    const entries = numericEntries(keys);
    const b = bucketsOf(entries);
    const distribution: Record<string, number> = {};
    for (let i = 0; i <= 10; i++) distribution[String(i)] = 0;
    for (const [v, n] of entries) if (Number.isInteger(v) && v >= 0 && v <= 10) distribution[String(v)]! += n;
    Object.assign(out, { nps: npsScore(b), promoters: b.promoters, passives: b.passives, detractors: b.detractors, distribution });
  } else if (q.type === 'rating' || q.type === 'number') {
    const entries = numericEntries(keys);
    const n = entries.reduce((s, [, c]) => s + c, 0);
    const sum = entries.reduce((s, [v, c]) => s + v * c, 0);
    const distribution: Record<string, number> = {};
    for (const [v, c] of entries) if (Number.isInteger(v)) distribution[String(v)] = (distribution[String(v)] ?? 0) + c;
    Object.assign(out, {
      mean: n > 0 ? roundTo(sum / n, 2) : null,
      min: n > 0 ? entries[0]![0] : null,
      max: n > 0 ? entries[entries.length - 1]![0] : null,
      distribution,
    });
  }
  return out;
}

/**
 * Per-question analytics of a form over a created_at range (docs/analytics.md, "Per-question analytics").
 * @param created date bounds by the rules of docs/api-rules.md, "Dates" (at most one lower and one upper), [] for all time.
 * @returns one item per question in form order; `answered + skipped` = the responses in range.
 * @throws AppError resource_not_found when the form is not in the workspace.
 */
export async function questionAnalytics(db: DbHandle, workspaceId: string, formId: string, created: readonly DateBound[]): Promise<QuestionAnalytics[]> {
  const questions = await listQuestions(db, workspaceId, formId);
  const { counts, responses } = await keyCounts(db, workspaceId, formId, splitRange(created));
  return questions.map((q) => analyseQuestion(q, counts.get(q.id) ?? new Map<string, number>(), responses));
}

/** The first day of the period holding `day` (`YYYY-MM-DD`, UTC); weeks start Monday. */
export function periodStart(day: string, interval: Interval): string {
  if (interval === 'day') return day;
  if (interval === 'month') return `${day.slice(0, 7)}-01`;
  if (interval === 'year') return `${day.slice(0, 4)}-01-01`;
  const t = Date.parse(`${day}T00:00:00Z`);
  const weekday = (new Date(t).getUTCDay() + 6) % 7; // Monday 0 … Sunday 6
  return isoDay(Math.floor(t / DAY_MS) - weekday);
}

function nextPeriod(start: string, interval: Interval): string {
  const t = new Date(`${start}T00:00:00Z`);
  if (interval === 'day') t.setUTCDate(t.getUTCDate() + 1);
  else if (interval === 'week') t.setUTCDate(t.getUTCDate() + 7);
  else if (interval === 'month') t.setUTCMonth(t.getUTCMonth() + 1);
  else t.setUTCFullYear(t.getUTCFullYear() + 1);
  return utcDay(t.getTime());
}

/** The number of periods from the one holding `first` to the one holding `last` (`YYYY-MM-DD`, first ≤ last). */
export function periodCount(first: string, last: string, interval: Interval): number {
  const years = Number(last.slice(0, 4)) - Number(first.slice(0, 4));
  if (interval === 'year') return years + 1;
  if (interval === 'month') return years * 12 + Number(last.slice(5, 7)) - Number(first.slice(5, 7)) + 1;
  const days = (Date.parse(`${periodStart(last, interval)}T00:00:00Z`) - Date.parse(`${periodStart(first, interval)}T00:00:00Z`)) / DAY_MS;
  return interval === 'day' ? days + 1 : days / 7 + 1;
}

/**
 * The interval a series from `first` to `last` is answered in: `asked`, or the first coarser one whose series
 * has at most MAX_SERIES_POINTS points (`year` always has: the calendar holds 9,999 years).
 */
export function seriesInterval(first: string, last: string, asked: Interval): Interval {
  const from = INTERVALS.indexOf(asked);
  return INTERVALS.slice(from).find((iv) => periodCount(first, last, iv) <= MAX_SERIES_POINTS) ?? 'year';
}

interface DayTotals {
  responses: number;
  scoreSum: number;
  nps: Map<number, number>;
}

/** A time series and the interval it is in (the one asked, or a coarser one: seriesInterval). */
export interface TimeSeries {
  interval: Interval;
  points: PeriodPoint[];
}

/**
 * The time series of a form (docs/analytics.md, "Time series"): responses, average score and NPS per period,
 * ascending, from the period of the first response in range to that of the last, empty periods
 * included. NPS is that of the form's first nps question (null without one).
 * @param interval the interval asked; a span that needs more than MAX_SERIES_POINTS periods of it is answered
 *   in the first coarser interval that fits, and `interval` of the answer says which.
 * @throws AppError resource_not_found when the form is not in the workspace.
 */
export async function timeSeries(db: DbHandle, workspaceId: string, formId: string, created: readonly DateBound[], interval: Interval): Promise<TimeSeries> {
  const questions = await listQuestions(db, workspaceId, formId);
  const npsQuestion = questions.find((q) => q.type === 'nps')?.id;
  const range = splitRange(created);
  const days = new Map<string, DayTotals>();
  const dayOf = (day: string) => {
    let d = days.get(day);
    if (!d) days.set(day, (d = { responses: 0, scoreSum: 0, nps: new Map() }));
    return d;
  };
  const addNps = (day: string, key: string, n: number) => {
    const v = Number(key);
    if (!Number.isFinite(v)) return;
    const m = dayOf(day).nps;
    m.set(v, (m.get(v) ?? 0) + n);
  };
  if (range.days) {
    const rows = (await dayRange(db('response_daily').where({ workspace_id: workspaceId, form_id: formId }), range.days)
      .where('responses', '<>', 0)
      .select(db.raw('day::text AS day'), 'responses', 'score_sum')) as Array<{ day: string; responses: unknown; score_sum: unknown }>;
    for (const r of rows) {
      const d = dayOf(r.day);
      d.responses += Number(r.responses);
      d.scoreSum += Number(r.score_sum);
    }
    if (npsQuestion !== undefined) {
      const keys = (await dayRange(db('answer_rollups').where({ workspace_id: workspaceId, form_id: formId, question_id: npsQuestion }), range.days)
        .where('value_key', '<>', '')
        .where('answers', '<>', 0)
        .select(db.raw('day::text AS day'), 'value_key', 'answers')) as Array<{ day: string; value_key: string; answers: unknown }>;
      for (const k of keys) addNps(k.day, k.value_key, Number(k.answers));
    }
  }
  const dayExpr = "(r.created_at AT TIME ZONE 'UTC')::date::text";
  for (const part of range.partial) {
    const rows = (await partialResponses(db, workspaceId, formId, part)
      .select(db.raw(`${dayExpr} AS day`))
      .count({ n: '*' })
      .sum({ s: 'r.score' })
      .groupByRaw(dayExpr)) as Array<{ day: string; n: unknown; s: unknown }>;
    for (const r of rows) {
      const d = dayOf(r.day);
      d.responses += Number(r.n);
      d.scoreSum += Number(r.s);
    }
    if (npsQuestion !== undefined) {
      const keys = (await partialResponses(db, workspaceId, formId, part)
        .joinRaw('CROSS JOIN LATERAL response_answer_keys(r.answers) AS k')
        .where('k.question_id', npsQuestion)
        .where('k.value_key', '<>', '')
        .select(db.raw(`${dayExpr} AS day`), 'k.value_key')
        .count({ n: '*' })
        .groupByRaw(`${dayExpr}, k.value_key`)) as Array<{ day: string; value_key: string; n: unknown }>;
      for (const k of keys) addNps(k.day, k.value_key, Number(k.n));
    }
  }

  return seriesPoints(days, interval, npsQuestion !== undefined);
}

/**
 * Per-day totals as the series' points in `asked` or the coarser interval seriesInterval chooses, empty
 * periods included (at most MAX_SERIES_POINTS).
 */
function seriesPoints(days: Map<string, DayTotals>, asked: Interval, withNps: boolean): TimeSeries {
  const withResponses = [...days].filter(([, d]) => d.responses > 0).map(([day]) => day);
  if (withResponses.length === 0) return { interval: asked, points: [] };
  const interval = seriesInterval(
    withResponses.reduce((a, b) => (b < a ? b : a)),
    withResponses.reduce((a, b) => (b > a ? b : a)),
    asked,
  );
  const periods = new Map<string, DayTotals>();
  for (const [day, d] of days) {
    if (d.responses <= 0) continue;
    const start = periodStart(day, interval);
    let p = periods.get(start);
    if (!p) periods.set(start, (p = { responses: 0, scoreSum: 0, nps: new Map() }));
    p.responses += d.responses;
    p.scoreSum += d.scoreSum;
    for (const [v, n] of d.nps) p.nps.set(v, (p.nps.get(v) ?? 0) + n);
  }
  const starts = [...periods.keys()].sort();
  const out: PeriodPoint[] = [];
  const last = starts[starts.length - 1]!;
  // Steps from period start to period start until the last one (never past it: after 9999-12 comes a
  // five-digit year, which sorts before it as text).
  for (let s = starts[0]!; ; s = nextPeriod(s, interval)) {
    const p = periods.get(s);
    if (!p) out.push({ periodStart: s, responses: 0, averageScore: null, nps: null });
    else {
      const nps = !withNps ? null : npsScore(bucketsOf([...p.nps.entries()].filter(([, n]) => n > 0)));
      out.push({ periodStart: s, responses: p.responses, averageScore: roundTo(p.scoreSum / p.responses, 2), nps });
    }
    if (s >= last) break;
  }
  return { interval, points: out };
}

/** The first and last UTC day (`YYYY-MM-DD`) with responses to a form (`response_daily`), null when none or undefined. */
export async function responseDaySpan(db: DbHandle, workspaceId: string, formId: string): Promise<{ first: string | null; last: string | null } | undefined> {
  return (await db('response_daily')
    .where({ workspace_id: workspaceId, form_id: formId })
    .where('responses', '<>', 0)
    .first(db.raw('min(day)::text AS first'), db.raw('max(day)::text AS last'))) as { first: string | null; last: string | null } | undefined;
}

/**
 * The answers of one question of a form whose value key (migration 005's `response_answer_keys`: `''` for answered,
 * an option id, a number) is one of `valueKeys`, over all time: `SUM(answers)` over `answer_rollups` as a query to run
 * or nest (value column `n`; NULL, i.e. 0, for no keys or no rows). One index-only range per key of
 * `answer_rollups_question_idx` (migration 029): a row per UTC day and key, whatever the number of responses. The
 * responses list's `filteredTotal` for a form and one answer filter (src/core/responses/responses.store.ts; the keys
 * from answer-filter.ts, answerRollupKeys).
 */
export function answerKeysSum(db: DbHandle, workspaceId: string, formId: string, questionId: string, valueKeys: readonly string[]): Knex.QueryBuilder {
  return db('answer_rollups')
    .where({ workspace_id: workspaceId, form_id: formId, question_id: questionId })
    .whereIn('value_key', [...valueKeys])
    .sum({ n: 'answers' });
}
