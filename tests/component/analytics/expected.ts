/**
 * Independent expectations for the analytics tests: computed here from the responses a test created,
 * with exact integer arithmetic for the rounding (half away from zero), never from the service's code.
 */
import type { FixtureQuestion } from '../../../src/core/import/fixture-schema';

export interface RawResponse {
  id: string;
  created_at: string;
  score: number;
  language?: string;
  answers: Array<{ question_id: string; value: unknown }>;
}

/** round(num / den) at `decimals` places, half away from zero, from integers (den > 0). */
export function ratio(num: number, den: number, decimals: number): number {
  const f = 10 ** decimals;
  const n = Math.abs(num) * f;
  const q = Math.floor((2 * n + den) / (2 * den));
  const r = (Math.sign(num) * q) / f;
  return r === 0 ? 0 : r;
}

const ids = (v: unknown): string[] =>
  Array.isArray(v)
    ? v.map((o) => (typeof o === 'string' ? o : (o as { id: string }).id))
    : v === undefined
      ? []
      : [typeof v === 'string' ? v : (v as { id: string }).id];

/** The expected `data` of GET …/analytics/questions for these responses (already narrowed to the range). */
export function expectedQuestions(questions: FixtureQuestion[], responses: RawResponse[]): unknown[] {
  return questions.map((q) => {
    const values = responses.flatMap((r) => r.answers.filter((a) => a.question_id === q.id).map((a) => a.value));
    const answered = values.length;
    const out: Record<string, unknown> = { question_id: q.id, type: q.type, title: q.title, answered, skipped: responses.length - answered };
    if (q.type === 'single_choice' || q.type === 'multiple_choice') {
      out.options = (q.options ?? []).map((o) => {
        const count = values.filter((v) => ids(v).includes(o.id)).length;
        return { id: o.id, value: o.value, count, share: answered ? ratio(count, answered, 4) : 0 };
      });
    }
    if (q.type === 'nps') {
      const nums = values as number[];
      const promoters = nums.filter((v) => v >= 9).length;
      const passives = nums.filter((v) => v === 7 || v === 8).length;
      const detractors = nums.filter((v) => v <= 6).length;
      const distribution: Record<string, number> = {};
      for (let i = 0; i <= 10; i++) distribution[String(i)] = nums.filter((v) => v === i).length;
      Object.assign(out, { nps: answered ? ratio((promoters - detractors) * 100, answered, 1) : null, promoters, passives, detractors, distribution });
    }
    if (q.type === 'rating' || q.type === 'number') {
      const nums = values as number[];
      // Values have at most 2 decimals: sum in hundredths to stay exact.
      const hundredths = nums.reduce((s, v) => s + Math.round(v * 100), 0);
      const distribution: Record<string, number> = {};
      for (const v of nums) if (Number.isInteger(v)) distribution[String(v)] = (distribution[String(v)] ?? 0) + 1;
      Object.assign(out, {
        mean: answered ? ratio(hundredths, answered * 100, 2) : null,
        min: answered ? Math.min(...nums) : null,
        max: answered ? Math.max(...nums) : null,
        distribution,
      });
    }
    return out;
  });
}

const DAY = 86_400_000;

function periodOf(iso: string, interval: 'day' | 'week' | 'month'): string {
  const d = new Date(iso);
  if (interval === 'month') return `${iso.slice(0, 7)}-01`;
  const day = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  if (interval === 'day') return new Date(day).toISOString().slice(0, 10);
  const sinceMonday = (new Date(day).getUTCDay() + 6) % 7;
  return new Date(day - sinceMonday * DAY).toISOString().slice(0, 10);
}

function next(period: string, interval: 'day' | 'week' | 'month'): string {
  const d = new Date(`${period}T00:00:00Z`);
  if (interval === 'month') return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)).toISOString().slice(0, 10);
  return new Date(d.getTime() + (interval === 'week' ? 7 : 1) * DAY).toISOString().slice(0, 10);
}

/** The expected `data` of GET …/analytics/timeseries. */
export function expectedTimeseries(responses: RawResponse[], interval: 'day' | 'week' | 'month', npsQuestion: string | undefined): unknown[] {
  if (responses.length === 0) return [];
  const periods = responses.map((r) => periodOf(r.created_at, interval)).sort();
  const out: unknown[] = [];
  for (let p = periods[0]!; p <= periods[periods.length - 1]!; p = next(p, interval)) {
    const inP = responses.filter((r) => periodOf(r.created_at, interval) === p);
    if (inP.length === 0) {
      out.push({ period_start: p, responses: 0, average_score: null, nps: null });
      continue;
    }
    const scoreHundredths = inP.reduce((s, r) => s + Math.round(r.score * 100), 0);
    let nps: number | null = null;
    if (npsQuestion) {
      const vals = inP.flatMap((r) => r.answers.filter((a) => a.question_id === npsQuestion).map((a) => a.value as number));
      const pr = vals.filter((v) => v >= 9).length;
      const de = vals.filter((v) => v <= 6).length;
      nps = vals.length ? ratio((pr - de) * 100, vals.length, 1) : null;
    }
    out.push({ period_start: p, responses: inP.length, average_score: ratio(scoreHundredths, inP.length * 100, 2), nps });
  }
  return out;
}
