/** Style-neutral response records (camelCase, Dates). Presenters turn them into Style A or B JSON. */

import type { Sentiment, StoredAnswer } from './answers';

export type { Sentiment, StoredAnswer };

export interface ActionlistItem {
  actionlist_id: string;
  triggered_score: number;
  triggers: string[];
}

/** The datatable row captured when the response was submitted. */
export interface CapturedRow {
  rowId: string | null;
  capturedAt: Date | null;
  columns: Record<string, unknown>;
}

export interface ResponseRecord {
  id: string;
  formId: string;
  /** Filled when the caller asks for it (Style B shows `form: {id, name}`). */
  formName?: string;
  score: number;
  version: number;
  language: string;
  createdAt: Date;
  answers: StoredAnswer[];
  /**
   * The overall sentiment: the mean of the text answers' scores, labelled (src/core/responses/sentiment.ts); null
   * without a scored text answer, and while not computed yet (docs/analytics.md, "Sentiment").
   */
  sentiment: Sentiment | null;
  respondentEmail: string | null;
  emailId: string | null;
  rowId: string | null;
  /** undefined: not asked for; null: the response has no row. */
  tableData?: CapturedRow | null;
  /** undefined: not asked for. */
  actionlists?: ActionlistItem[];
  /** Only in a list with a search (`q`): the highlighted excerpt of the text answers (search.ts); null without text answers. */
  searchExcerpt?: string | null;
}

/** What a response read may add (each costs columns or a query, so only on request). */
export interface ResponseIncludes {
  formName?: boolean;
  tableData?: boolean;
  actionlists?: boolean;
}
