/**
 * Style A presenters: domain records → snake_case JSON (API document "Response, Style A" and the
 * shapes in docs/decisions.md, "Resource shapes"). Renaming and shaping only.
 */
import type { ApiKeyMeta } from '../../core/api-keys/api-keys.store';
import type { Datatable, Row } from '../../core/datatables/datatables.store';
import type { EmailEvent } from '../../core/email-events/email-events.store';
import type { Form, FormSchema, FormSummary, Question } from '../../core/forms/forms.store';
import type { ResponseRecord, StoredAnswer } from '../../core/responses/responses.types';
import type { WebhookDelivery, WebhookEndpoint } from '../../core/webhooks/webhooks.store';
import type {
  AnalyticsSummaryA,
  AnswerAv2,
  ApiKey,
  DatatableA,
  EmailEventA,
  FormA,
  FormSchemaA,
  QuestionA,
  ResponseA,
  ResponseAv2,
  RowA,
  SchemaQuestion,
  SubmissionReceipt,
  WebhookDelivery as WebhookDeliveryWire,
  WebhookEndpoint as WebhookEndpointWire,
} from '../../wire/types.gen';
import { presentTableData } from '../table-data';

// Re-exported for existing imports; the presenter lives in src/adapters/table-data.ts.
export { presentTableData };

const iso = (d: Date | null | undefined): string | null => (d ? d.toISOString() : null);

function answerA(a: StoredAnswer, withLabel: boolean): AnswerAv2 {
  const out: AnswerAv2 = { question_id: a.question_id, title: a.title, type: a.type, value: a.value };
  if (withLabel && a.reporting_label !== undefined) out.reporting_label = a.reporting_label;
  if (a.sentiment !== undefined) out.sentiment = a.sentiment;
  return out;
}

/**
 * The receipt of a public submission (docs/collecting.md, "Public JSON"): the stored response's id and time, nothing
 * it holds (a link's address and row stay with the workspace).
 */
export function presentReceiptA(r: ResponseRecord): SubmissionReceipt {
  return { id: r.id, created_at: r.createdAt.toISOString() };
}

/** @param v2 adds `reporting_label` to answers of translated forms. */
export function presentResponseA(r: ResponseRecord, v2 = false): ResponseA | ResponseAv2 {
  const out: ResponseAv2 = {
    id: r.id,
    form_id: r.formId,
    score: r.score,
    created_at: r.createdAt.toISOString(),
    answers: r.answers.map((a) => answerA(a, v2)),
    respondent_email: r.respondentEmail,
    email_id: r.emailId,
    row_id: r.rowId,
    sentiment: r.sentiment,
  };
  if (r.tableData !== undefined) out.table_data = presentTableData(r.tableData);
  if (r.searchExcerpt !== undefined) out.search_excerpt = r.searchExcerpt;
  return out;
}

export function presentQuestionA(q: Question): QuestionA {
  return {
    id: q.id,
    form_id: q.formId,
    position: q.position,
    type: q.type,
    title: q.title,
    required: q.required,
    options: q.options,
    validation: q.validation,
  };
}

/** `questions` only when they were loaded (`?include=questions`). */
export function presentFormA(f: Form): FormA {
  return {
    id: f.id,
    name: f.name,
    default_language: f.defaultLanguage,
    languages: f.languages,
    question_count: f.questionCount,
    created_at: f.createdAt.toISOString(),
    updated_at: f.updatedAt.toISOString(),
    ...(f.questions && { questions: f.questions.map(presentQuestionA) }),
  };
}

export function presentSchemaA(s: FormSchema): FormSchemaA {
  return {
    form_id: s.formId,
    default_language: s.defaultLanguage,
    languages: s.languages,
    // A schema question is the question without its form_id (the schema names the form once).
    questions: s.questions.map((q): SchemaQuestion => {
      const { form_id: _formId, ...question } = presentQuestionA(q);
      return question;
    }),
    translations: s.translations,
  };
}

export function presentSummaryA(s: FormSummary): AnalyticsSummaryA {
  return {
    form_id: s.formId,
    total_responses: s.totalResponses,
    average_score: s.averageScore,
    last_response: s.lastResponse && {
      id: s.lastResponse.id,
      score: s.lastResponse.score,
      created_at: s.lastResponse.createdAt.toISOString(),
    },
  };
}

export function presentDatatableA(t: Datatable): DatatableA {
  const out: DatatableA = {
    id: t.id,
    name: t.name,
    row_count: t.rowCount,
    created_at: t.createdAt.toISOString(),
    updated_at: t.updatedAt.toISOString(),
  };
  if (t.fields) out.fields = t.fields.map((f) => ({ name: f.name, type: f.type }));
  return out;
}

/** Style A row: columns at the same level as row_id (reserved names cannot be columns). */
export function presentRowA(r: Row): RowA {
  return { ...r.data, row_id: r.rowId, created_at: r.createdAt.toISOString(), updated_at: r.updatedAt.toISOString() };
}

export function presentEmailEventA(e: EmailEvent): EmailEventA {
  return {
    id: e.id,
    email_id: e.emailId,
    email: e.email,
    type: e.type,
    row_id: e.rowId,
    form_id: e.formId,
    flow_id: e.flowId,
    created_at: e.createdAt.toISOString(),
  };
}

export function presentWebhookEndpoint(w: WebhookEndpoint): WebhookEndpointWire {
  return {
    id: w.id,
    url: w.url,
    events: w.events,
    description: w.description,
    enabled: w.enabled,
    style: w.style,
    disabled_reason: w.disabledReason,
    created_at: w.createdAt.toISOString(),
    updated_at: w.updatedAt.toISOString(),
  };
}

/** A delivery of the log (docs/webhooks.md, "The delivery log"). */
export function presentDelivery(d: WebhookDelivery): WebhookDeliveryWire {
  return {
    id: d.id,
    endpoint_id: d.endpointId,
    event_id: d.eventId,
    event_type: d.eventType,
    status: d.status,
    attempts: d.attempts,
    last_status_code: d.lastStatusCode,
    last_error: d.lastError,
    next_attempt_at: iso(d.nextAttemptAt),
    recovery_id: d.recoveryId,
    created_at: d.createdAt.toISOString(),
    updated_at: d.updatedAt.toISOString(),
  };
}

export function presentApiKey(k: ApiKeyMeta): ApiKey {
  return {
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    scopes: k.scopes,
    workspace_ids: k.workspaceIds,
    style: k.style,
    rate_limit_per_minute: k.rateLimitPerMinute,
    created_at: k.createdAt.toISOString(),
    expires_at: iso(k.expiresAt),
    last_used_at: iso(k.lastUsedAt),
    revoked_at: iso(k.revokedAt),
    created_by: k.createdBy,
  };
}
