/**
 * Keywords in Style B (docs/analytics.md, "Keywords"): `GET {ws}/forms/{form_id}/analytics/keywords` with
 * `start_date`/`end_date` and camelCase items; the selector (adapters/shared-responses.ts) picks the style.
 */
import type { RequestHandler } from 'express';
import { DEFAULT_KEYWORDS, MAX_KEYWORDS, questionKeywords, type QuestionKeywords } from '../../core/analytics/keywords.store';
import type { CoreDeps } from '../deps';
import { wholeListB } from '../envelope';
import { createdRangeB, int, param, workspaceOf } from '../query-values';
import type { QuestionKeywordsB } from '../../wire/types.gen';

/** The Style B shape of one text question's keywords (terms are the same in both styles). */
export function presentQuestionKeywordsB(k: QuestionKeywords): QuestionKeywordsB {
  return { questionId: k.questionId, title: k.title, terms: k.terms, phrases: k.phrases };
}

/** `GET {ws}/forms/{form_id}/analytics/keywords` in Style B. */
export const keywordsB =
  ({ db }: CoreDeps): RequestHandler =>
  async (req, res) => {
    const limit = int(req, 'limit', 1, MAX_KEYWORDS, DEFAULT_KEYWORDS);
    const items = await questionKeywords(db, workspaceOf(req), param(req, 'form_id'), createdRangeB(req), { limit, minResponses: 1 });
    res.json(wholeListB(req, items.map(presentQuestionKeywordsB)));
  };
