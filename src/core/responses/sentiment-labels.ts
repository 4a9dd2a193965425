/**
 * The labels of a sentiment score, from negative to positive (docs/analytics.md, "Sentiment"). A module without
 * imports: the responses store reads the list when it loads, and answers.ts sits in an import cycle with it
 * (answers → form-model → forms.store → responses.store).
 */
export const SENTIMENT_LABELS = ['negative', 'neutral', 'positive'] as const;
export type SentimentLabel = (typeof SENTIMENT_LABELS)[number];
