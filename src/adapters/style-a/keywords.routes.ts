/**
 * Keywords in Style A (docs/analytics.md, "Keywords"): `GET {ws}/forms/{form_id}/analytics/keywords` with
 * `created_after`/`created_before` and snake_case items; the selector (adapters/shared-responses.ts) picks the style.
 */
import type { RequestHandler } from 'express';
import { DEFAULT_KEYWORDS, MAX_KEYWORDS, questionKeywords, type QuestionKeywords } from '../../core/analytics/keywords.store';
import type { CoreDeps } from '../deps';
import { wholeListA } from '../envelope';
import { createdRangeA, int, param, workspaceOf } from '../query-values';
import type { QuestionKeywordsA } from '../../wire/types.gen';

/** The Style A shape of one text question's keywords (terms are the same in both styles). */
export function presentQuestionKeywordsA(k: QuestionKeywords): QuestionKeywordsA {
  return { question_id: k.questionId, title: k.title, terms: k.terms, phrases: k.phrases };
}

/** `GET {ws}/forms/{form_id}/analytics/keywords` in Style A. */
export const keywordsA =
  ({ db }: CoreDeps): RequestHandler =>
  async (req, res) => {
    const limit = int(req, 'limit', 1, MAX_KEYWORDS, DEFAULT_KEYWORDS);
    const items = await questionKeywords(db, workspaceOf(req), param(req, 'form_id'), createdRangeA(req), { limit, minResponses: 1 });
    res.json(wholeListA(req, items.map(presentQuestionKeywordsA)));
  };
