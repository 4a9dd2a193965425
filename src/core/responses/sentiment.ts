/**
 * Sentiment of text answers (docs/analytics.md, "Sentiment"), computed in the process when a response is written:
 * no outside call, no word list of our own. The library is wink-nlp 2.4 with its English model
 * (`wink-eng-lite-web-model` 1.8): a lexicon (AFINN-style word scores plus emoticons and emoji) with negation
 * (`not bad at all` is positive, `not good` negative) and sentence averaging, about 30 µs per short answer. One pipe
 * (with sentence detection) serves every text: a second pipe without it for texts of one sentence saved ~5 µs a text
 * but held a second copy of the model, ~22 MB more RSS in every process (the import's peak RSS target, issue 11).
 * Why this library and not `@nlpjs/sentiment`: docs/analytics.md, "Sentiment".
 *
 * - Per text answer: `{score, label}`, the score in -1..1 (wink's normalized document sentiment, rounded to 3
 *   decimals), the label by SENTIMENT_THRESHOLD: `positive` at or above +0.05, `negative` at or below -0.05,
 *   `neutral` between.
 * - Per response: the mean of its text answers' scores, labelled the same way; null without text answers.
 * - Languages: English only (`en`, `en-GB`, …: the primary subtag). A text answer of a response in another
 *   language is stored with `sentiment: null` and does not count towards the mean, so such a response's overall
 *   sentiment is null: an English lexicon would misread German words (`gut`) rather than abstain.
 *
 * The operator switch `SENTIMENT=off` (docs/operations.md, "Sentiment") turns the computation off for the process:
 * responses are then written without it and marked pending, and the backfill job (when it runs with the switch on)
 * fills them later. The setting is process-wide, made once at start-up from the configuration (setSentimentEnabled).
 */
import winkNLP from 'wink-nlp';
import model from 'wink-eng-lite-web-model';
import type { Sentiment, StoredAnswer } from './answers';
import { SENTIMENT_LABELS, type SentimentLabel } from './sentiment-labels';

export { SENTIMENT_LABELS, type Sentiment, type SentimentLabel };

/** A score at or above +SENTIMENT_THRESHOLD is positive, at or below -SENTIMENT_THRESHOLD negative, neutral between. */
export const SENTIMENT_THRESHOLD = 0.05;

/** Languages the library scores (primary subtags). */
export const SENTIMENT_LANGUAGES: readonly string[] = ['en'];

let enabled = true;
type Wink = ReturnType<typeof winkNLP>;
/** The pipe (sentence detection, negation, sentiment), made at the first text. */
let pipe: Wink | undefined;

/** Turns sentiment on or off for this running service (`SENTIMENT`, read once by the configuration; default on). */
export function setSentimentEnabled(on: boolean): void {
  enabled = on;
}

/** Whether responses are written with their sentiment (setSentimentEnabled). */
export function sentimentEnabled(): boolean {
  return enabled;
}

/** The label of a score (SENTIMENT_THRESHOLD). */
export function sentimentLabel(score: number): SentimentLabel {
  if (score >= SENTIMENT_THRESHOLD) return 'positive';
  if (score <= -SENTIMENT_THRESHOLD) return 'negative';
  return 'neutral';
}

const round3 = (n: number) => Math.round(n * 1000) / 1000;
// Exactly -0 would print as 0 anyway, but keeps `Object.is` comparisons in tests honest.
const clamp = (n: number) => (n > 1 ? 1 : n < -1 ? -1 : n === 0 ? 0 : n);

/** Whether `language` (`en`, `en-GB`) is one the library scores. */
export function sentimentSupports(language: string): boolean {
  return SENTIMENT_LANGUAGES.includes(language.split('-')[0]!.toLowerCase());
}

/**
 * The sentiment of one text in `language`.
 * @returns null when the language is not supported; `{score: 0, label: 'neutral'}` for a text without letters or
 *   digits (nothing to read, and the library is not asked).
 */
export function textSentiment(text: string, language: string): Sentiment | null {
  if (!sentimentSupports(language)) return null;
  if (!/[\p{L}\p{N}\p{Extended_Pictographic}]/u.test(text)) return { score: 0, label: 'neutral' };
  // Made once, at the first text: ~0.2 s and ~22 MB of RSS (the model's module itself holds ~20 MB more).
  const nlp = (pipe ??= winkNLP(model, ['sbd', 'negation', 'sentiment']));
  // wink's `its` helpers are plain functions the document calls without `this`.
  // eslint-disable-next-line @typescript-eslint/unbound-method
  const raw = nlp.readDoc(text).out(nlp.its.sentiment) as unknown as number;
  const score = clamp(round3(Number.isFinite(raw) ? raw : 0));
  return { score, label: sentimentLabel(score) };
}

/** The overall sentiment of scored answers: the mean of their scores (3 decimals), null when none is scored. */
export function meanSentiment(scores: readonly number[]): Sentiment | null {
  if (scores.length === 0) return null;
  const score = clamp(round3(scores.reduce((a, b) => a + b, 0) / scores.length));
  return { score, label: sentimentLabel(score) };
}

/** Stored answers with the sentiment of each text answer, and the response's overall sentiment. */
export interface ScoredAnswers {
  answers: StoredAnswer[];
  overall: Sentiment | null;
}

/**
 * Adds `sentiment` to each text answer (`{score, label}`, or null in an unsupported language) and computes the
 * response's overall sentiment (the mean of the scored answers; null without any). Other answers are unchanged;
 * the input is not modified. Does not look at the switch (the callers do: sentimentColumns).
 */
export function scoreAnswers(answers: readonly StoredAnswer[], language: string): ScoredAnswers {
  const scores: number[] = [];
  const out = answers.map((a) => {
    if (a.type !== 'text' || typeof a.value !== 'string') return a;
    const s = textSentiment(a.value, language);
    if (s !== null) scores.push(s.score);
    return { ...a, sentiment: s };
  });
  return { answers: out, overall: meanSentiment(scores) };
}

/** The sentiment columns of a `responses` row (migration 015). */
export interface SentimentColumns {
  sentiment_score: number | null;
  sentiment_label: SentimentLabel | null;
  /** true: not computed yet (the backfill job fills it). */
  sentiment_pending: boolean;
}

/**
 * The answers to store and the sentiment columns of a response being written: scored when sentiment is on,
 * otherwise unchanged and pending (the backfill job scores them later). The one place both write paths
 * (storeSubmission, the import's checkResponse) take them from.
 */
export function sentimentColumns(answers: StoredAnswer[], language: string): { answers: StoredAnswer[]; columns: SentimentColumns } {
  if (!enabled) return { answers, columns: { sentiment_score: null, sentiment_label: null, sentiment_pending: true } };
  const scored = scoreAnswers(answers, language);
  return {
    answers: scored.answers,
    columns: { sentiment_score: scored.overall?.score ?? null, sentiment_label: scored.overall?.label ?? null, sentiment_pending: false },
  };
}
