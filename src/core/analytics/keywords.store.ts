/**
 * Keywords of a form's text questions (docs/analytics.md, "Keywords"): per text question the most frequent terms
 * (single stemmed words) and two-word phrases in a period, with the number of answers holding each and their mean
 * sentiment.
 *
 * Read from `keyword_rollups_monthly` for the whole months of the period and `keyword_rollups` for the days around them
 * (migration 021), kept per UTC month and day by triggers on `responses` in the writing transaction
 * (submissions, imports, deletes, retention, erasure, sentiment backfill): the cost grows with the days and distinct
 * terms in range, never with the number of responses. Partial days at either end of the range are read from
 * `responses` and expanded by the same SQL function the triggers use (`response_keyword_terms`), as the per-question
 * analytics do (analytics.store.ts).
 *
 * Readable forms: a lexeme is a stem (`deliveri`), so each term also carries `text`, the word people wrote for it. It
 * is read at request time from a sample, not kept in the rollup: the latest SURFACE_SAMPLE text answers of the question
 * in the period (an index walk newest first, stopped at the sample's size), split into words at spaces and ASCII
 * punctuation, each distinct word stemmed by `to_tsvector` with the configuration of its response's language; per
 * lexeme the lower-cased word found in the most of those answers (ties: the alphabetically first) and found in at least
 * `minResponses` of them. A lexeme the sample does not hold (or not
 * often enough) shows as itself. A phrase shows the words of its two lexemes.
 */
import type { Knex } from 'knex';
import type { DbHandle } from '../../db';
import type { DateBound } from '../query/dates';
import { listQuestions } from '../forms/forms.store';
import { meanSentiment, type Sentiment } from '../responses/sentiment';
import { dayRange, partialResponses, splitRange } from './analytics.store';

/** Terms (and phrases) per question when the caller does not say. */
export const DEFAULT_KEYWORDS = 10;
/** The most terms (and phrases) per question a caller may ask for. */
export const MAX_KEYWORDS = 50;
/** The fewest distinct responses a keyword on a shared page comes from (docs/analytics.md, "Privacy on shared pages"). */
export const SHARED_MIN_RESPONSES = 3;
/** Text answers per question read for the readable forms of its terms (the newest in the period). */
export const SURFACE_SAMPLE = 200;

export interface KeywordTerm {
  /** A lexeme (stemmed word: `expens` for expensive) or two lexemes joined by one space (a phrase). */
  term: string;
  /** The term as people wrote it (lower-cased: `expensive`, `fast delivery`), else the term itself; see above. */
  text: string;
  /** Answers (= distinct responses: one answer per question and response) holding the term in the period. */
  count: number;
  /** Mean of those answers' sentiment scores (3 decimals) and its label; null when none of them is scored. */
  sentiment: Sentiment | null;
}

export interface QuestionKeywords {
  questionId: string;
  title: string;
  /** The most frequent single terms, count descending then term (C collation). */
  terms: KeywordTerm[];
  /** The most frequent two-word phrases, in the same order. */
  phrases: KeywordTerm[];
}

export interface KeywordOptions {
  /** Terms and phrases per question, 1..MAX_KEYWORDS. */
  limit: number;
  /** Only terms held by at least this many answers (1 for the API, SHARED_MIN_RESPONSES on shared pages). */
  minResponses: number;
}

/** `YYYY-MM-01` of the month after the one holding `day` (`YYYY-MM-DD`). */
function nextMonth(day: string): string {
  const y = Number(day.slice(0, 4));
  const m = Number(day.slice(5, 7));
  return m === 12 ? `${String(y + 1).padStart(4, '0')}-01-01` : `${day.slice(0, 4)}-${String(m + 1).padStart(2, '0')}-01`;
}

/**
 * Whole days [fromDay, toDay) (undefined ends open) as the whole months inside them (`keyword_rollups_monthly`) and
 * the days before and after those months (`keyword_rollups`).
 */
export function monthSplit(days: { fromDay?: string; toDay?: string }): {
  months: { from?: string; to?: string } | null;
  days: Array<{ fromDay?: string; toDay?: string }>;
} {
  const from = days.fromDay === undefined ? undefined : days.fromDay.endsWith('-01') ? days.fromDay : nextMonth(days.fromDay);
  const to = days.toDay === undefined ? undefined : `${days.toDay.slice(0, 7)}-01`;
  if (from !== undefined && to !== undefined && from >= to) return { months: null, days: [days] };
  const edges: Array<{ fromDay?: string; toDay?: string }> = [];
  if (days.fromDay !== undefined && from !== undefined && days.fromDay < from) edges.push({ fromDay: days.fromDay, toDay: from });
  if (days.toDay !== undefined && to !== undefined && to < days.toDay) edges.push({ fromDay: to, toDay: days.toDay });
  return { months: { from, to }, days: edges };
}

interface TermRow {
  question_id: string;
  term: string;
  phrase: boolean;
  n: unknown;
  scored: unknown;
  ss: unknown;
}

function termOf(r: TermRow, words: ReadonlyMap<string, string>): KeywordTerm {
  const scored = Number(r.scored);
  // meanSentiment of `scored` equal scores whose sum is ss: the mean, rounded and labelled the way responses are.
  const sentiment = scored > 0 ? meanSentiment([Number(r.ss) / scored]) : null;
  const text = r.term
    .split(' ')
    .map((lexeme) => words.get(lexeme) ?? lexeme)
    .join(' ');
  return { term: r.term, text, count: Number(r.n), sentiment };
}

/**
 * Per lexeme the word written for it most often among the question's latest SURFACE_SAMPLE text answers in range (in
 * at least `minAnswers` of them); see the module's docstring.
 */
async function surfaceWords(
  db: DbHandle,
  workspaceId: string,
  formId: string,
  questionId: string,
  created: readonly DateBound[],
  minAnswers: number,
): Promise<Map<string, string>> {
  const sample = db('responses as r')
    .joinRaw('CROSS JOIN LATERAL jsonb_array_elements(r.answers) AS a')
    .where({ 'r.workspace_id': workspaceId, 'r.form_id': formId })
    .whereRaw("a->>'question_id' = ?", [questionId])
    .whereRaw("a->>'type' = 'text'")
    .whereRaw("jsonb_typeof(a->'value') = 'string'")
    .orderBy([
      { column: 'r.created_at', order: 'desc' },
      { column: 'r.id', order: 'desc' },
    ])
    .limit(SURFACE_SAMPLE)
    .select('r.id', 'r.language', db.raw("a->>'value' AS txt"));
  for (const b of created) sample.where('r.created_at', b.op, b.value);
  // Words split at spaces and ASCII punctuation, each distinct word stemmed once by to_tsvector (a stop word gives none).
  const { rows } = (await db.raw(
    `WITH u AS (
       SELECT s.language, lower(x.word) AS word, count(DISTINCT s.id) AS n
         FROM (?) AS s CROSS JOIN LATERAL regexp_split_to_table(s.txt, '[[:space:][:punct:]]+') AS x(word)
        WHERE x.word <> '' GROUP BY 1, 2
     ), l AS (
       SELECT u.word, u.n, (SELECT v.lexeme FROM unnest(to_tsvector(response_search_config(u.language), u.word)) AS v LIMIT 1) AS lexeme FROM u
     )
     SELECT lexeme, word FROM l WHERE lexeme IS NOT NULL GROUP BY lexeme, word HAVING sum(n) >= ?
      ORDER BY lexeme, sum(n) DESC, word COLLATE "C"`,
    [sample, Math.max(1, minAnswers)],
  )) as { rows: Array<{ lexeme: string; word: string }> };
  const words = new Map<string, string>();
  for (const r of rows) if (!words.has(r.lexeme)) words.set(r.lexeme, r.word);
  return words;
}

/**
 * The keywords of every text question of a form over a created_at range (docs/analytics.md, "Keywords").
 * @param created date bounds by the rules of docs/api-rules.md, "Dates" (at most one lower and one upper), [] for all time.
 * @returns one item per text question in form order, each with up to `limit` terms and `limit` phrases.
 * @throws AppError resource_not_found when the form is not in the workspace.
 */
export async function questionKeywords(
  db: DbHandle,
  workspaceId: string,
  formId: string,
  created: readonly DateBound[],
  opts: KeywordOptions,
): Promise<QuestionKeywords[]> {
  const questions = (await listQuestions(db, workspaceId, formId)).filter((q) => q.type === 'text');
  if (questions.length === 0) return [];
  const ids = questions.map((q) => q.id);
  const range = splitRange(created);
  const parts: Knex.QueryBuilder[] = [];
  const rollup = (table: string) =>
    db(table)
      .where({ workspace_id: workspaceId, form_id: formId })
      .whereIn('question_id', ids)
      .select('question_id', 'term', 'answers as n', 'scored', 'sentiment_sum as ss');
  if (range.days) {
    const split = monthSplit(range.days);
    if (split.months) {
      const q = rollup('keyword_rollups_monthly');
      if (split.months.from !== undefined) q.where('month', '>=', split.months.from);
      if (split.months.to !== undefined) q.where('month', '<', split.months.to);
      parts.push(q);
    }
    for (const days of split.days) parts.push(dayRange(rollup('keyword_rollups'), days));
  }
  for (const part of range.partial) {
    parts.push(
      partialResponses(db, workspaceId, formId, part)
        .joinRaw('CROSS JOIN LATERAL response_keyword_terms(r.answers, r.language) AS k')
        .whereIn('k.question_id', ids)
        .select(
          'k.question_id',
          'k.term',
          db.raw('1 AS n'),
          db.raw('CASE WHEN k.sentiment IS NULL THEN 0 ELSE 1 END AS scored'),
          db.raw('coalesce(k.sentiment, 0) AS ss'),
        ),
    );
  }
  if (parts.length === 0) return questions.map((q) => ({ questionId: q.id, title: q.title, terms: [], phrases: [] }));
  // The readable forms are read beside the terms (each query on its own pooled connection on PostgreSQL), not after
  // them: one round trip less on the way of the answer, for a sample read in vain when a question has no term.
  const words = Promise.all(questions.map((q) => surfaceWords(db, workspaceId, formId, q.id, created, opts.minResponses)));
  // Sum per term over the days (and partial days), then the top `limit` terms and phrases of each question.
  const terms = db.raw(
    `WITH t AS (${parts.map(() => '?').join(' UNION ALL ')}),
     g AS (SELECT question_id, term, strpos(term, ' ') > 0 AS phrase, sum(n) AS n, sum(scored) AS scored, sum(ss) AS ss
             FROM t GROUP BY question_id, term HAVING sum(n) >= ?)
     SELECT question_id, term, phrase, n, scored, ss FROM (
       SELECT g.*, row_number() OVER (PARTITION BY question_id, phrase ORDER BY n DESC, term COLLATE "C") AS rn FROM g
     ) AS x WHERE rn <= ? ORDER BY question_id, phrase, rn`,
    [...parts, Math.max(1, opts.minResponses), opts.limit],
  ) as unknown as Promise<{ rows: TermRow[] }>;
  const [{ rows }, sampled] = await Promise.all([terms, words]);
  const wordsOf = new Map(questions.map((q, i) => [q.id, sampled[i]!]));
  return questions.map((q) => {
    const mine = rows.filter((r) => r.question_id === q.id);
    const w = wordsOf.get(q.id) ?? new Map<string, string>();
    return {
      questionId: q.id,
      title: q.title,
      terms: mine.filter((r) => !r.phrase).map((r) => termOf(r, w)),
      phrases: mine.filter((r) => r.phrase).map((r) => termOf(r, w)),
    };
  });
}
