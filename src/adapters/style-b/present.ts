/**
 * Style B presenters: domain records → Style B JSON (API document "Response, Style B", "Datatable and
 * row", "Email event"; docs/decisions.md, "Resource shapes"). Renaming and shaping only: camelCase
 * timestamps (`createdAt`), `form: {id, name}`, rows as `{row_id, data}`, `""` for absent event links.
 */
import type { Datatable, Row } from '../../core/datatables/datatables.store';
import type { EmailEvent } from '../../core/email-events/email-events.store';
import type { ResponseRecord, StoredAnswer } from '../../core/responses/responses.types';
import type { AnswerBv2, EmailEventB, ResponseB, ResponseBv2, RowB, TableB } from '../../wire/types.gen';
import { presentTableData } from '../table-data';

function answerB(a: StoredAnswer, withLabel: boolean): AnswerBv2 {
  const out: AnswerBv2 = { id: a.question_id, title: a.title, type: a.type, value: a.value };
  if (withLabel && a.reporting_label !== undefined) out.reporting_label = a.reporting_label;
  if (a.sentiment !== undefined) out.sentiment = a.sentiment;
  return out;
}

/**
 * A response in Style B. `form.name` needs the record read with `include.formName`; `table_data` and
 * `actionlist_data` appear only when the record was read with them (`null` / `[]` when there are none).
 * @param v2 adds `reporting_label` to answers of translated forms.
 */
export function presentResponseB(r: ResponseRecord, v2 = false): ResponseB | ResponseBv2 {
  const out: ResponseBv2 = {
    id: r.id,
    score: r.score,
    version: r.version,
    createdAt: r.createdAt.toISOString(),
    form: { id: r.formId, name: r.formName ?? '' },
    answers: r.answers.map((a) => answerB(a, v2)),
    email_id: r.emailId,
    respondent_email: r.respondentEmail,
    row_id: r.rowId,
    sentiment: r.sentiment,
  };
  if (r.tableData !== undefined) out.table_data = presentTableData(r.tableData);
  if (r.actionlists !== undefined) out.actionlist_data = r.actionlists;
  if (r.searchExcerpt !== undefined) out.searchExcerpt = r.searchExcerpt;
  return out;
}

/** Style B table: `{id, name}` only (docs/decisions.md). */
export function presentTableB(t: Datatable): TableB {
  return { id: t.id, name: t.name };
}

/** `{row_id, data}`; with `withMetadata` also `created_at` and `updated_at`. */
export function presentRowB(r: Row, withMetadata = false): RowB {
  const out: RowB = { row_id: r.rowId, data: r.data };
  if (withMetadata) {
    out.created_at = r.createdAt.toISOString();
    out.updated_at = r.updatedAt.toISOString();
  }
  return out;
}

/** Style B email event: `event_type`, `createdAt`, and `""` for absent row, form and flow links. */
export function presentEmailEventB(e: EmailEvent): EmailEventB {
  return {
    id: e.id,
    email_id: e.emailId,
    email: e.email,
    event_type: e.type,
    row_id: e.rowId ?? '',
    form_id: e.formId ?? '',
    flow_id: e.flowId ?? '',
    createdAt: e.createdAt.toISOString(),
  };
}
