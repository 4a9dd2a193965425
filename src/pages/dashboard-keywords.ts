/**
 * The keywords card of a text question on the dashboard page (docs/analytics.md, "Keywords", "Privacy on shared
 * pages"): its most frequent word stems and two-word phrases, each from at least 3 responses (the core chose them:
 * core/dashboards/dashboard.ts), with the answers holding it and their mean sentiment as a word, so the table reads
 * the same without colour. The template partial is templates/dashboard-keywords.eta.
 */
import type { KeywordTerm, QuestionKeywords } from '../core/analytics/keywords.store';
import type { DashboardStrings } from './dashboard-i18n';

export interface KeywordRowView {
  /** The readable form (KeywordTerm.text). */
  term: string;
  count: string;
  /** The sentiment label in the page's language, `–` when none of the answers is scored. */
  sentiment: string;
  /** `kw-positive`, `kw-negative`, `kw-neutral` or `` (colour of the label; the word carries the meaning). */
  cls: string;
}

export interface KeywordCardView {
  terms: KeywordRowView[];
  phrases: KeywordRowView[];
}

/** The card's rows, numbers in the page's language. */
export function keywordCard(k: QuestionKeywords, s: DashboardStrings, format: (n: number) => string): KeywordCardView {
  const row = (t: KeywordTerm): KeywordRowView => ({
    term: t.text,
    count: format(t.count),
    sentiment: t.sentiment === null ? '–' : s[t.sentiment.label],
    cls: t.sentiment === null ? '' : `kw-${t.sentiment.label}`,
  });
  return { terms: k.terms.map(row), phrases: k.phrases.map(row) };
}
