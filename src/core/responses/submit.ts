/**
 * The one submission path (docs/collecting.md, "Collecting responses"): every way in (hosted page, public JSON, server to
 * server, email links) goes through `checkSubmission` and `storeSubmission`, so a response looks the same
 * however it arrived.
 *
 * checkSubmission (no I/O): language → validate and render the answers → score → the other fields.
 * storeSubmission, in the caller's transaction (docs/decisions.md, "Who opens transactions"): capture
 * the linked row → the sentiment of the text answers (sentiment.ts; the import computes it the same way) → store (the counters follow through the table's triggers) → tag it
 * with the workspace's topics it matches (core/topics/topics.store.ts) → record `response.created`.
 * The caller may add its own writes to the same transaction (the hosted page claims its one-time
 * token): on any error nothing is stored and no event goes out.
 */
import type { Knex } from 'knex';
import type { DbHandle } from '../../db';
import { rowDataForShare } from '../datatables/datatables.store';
import { errors, type ErrorDetail } from '../errors';
import { chooseLanguage } from '../forms/public-form';
import { responseTimeProblem } from '../query/dates';
import { newId } from '../ids';
import { recordEvents } from '../webhooks/outbox';
import { tagNewResponses } from '../topics/topics.store';
import { formDefinitionFromDb, type FormDefinition } from '../forms/form-model';
import { insertResponse, sentimentOf } from './responses.store';
import { validateAnswers, type AnswerProblem, type ValidatedAnswers } from './answers';
import { sentimentColumns } from './sentiment';
import type { CapturedRow, ResponseRecord } from './responses.types';

export interface SubmissionInput {
  formId: string;
  /** Raw answers as the client sent them (the validator checks every member). */
  answers: Array<{ question_id: string; value: unknown }>;
  /** One of the form's languages; absent: the form's default language. */
  language?: string | undefined;
  /** Backfill: when the response was given (not in the future). Absent: now. */
  createdAt?: Date | undefined;
  /** Set together with `emailId` or not at all. */
  respondentEmail?: string | null | undefined;
  emailId?: string | null | undefined;
  /** A row of the workspace; its data is captured now as `table_data`. */
  rowId?: string | null | undefined;
  /** Default 1. */
  version?: number | undefined;
}

/** The API detail of an answer problem: `answers[2].value` with the field named in the message. */
export function answerProblemDetail(p: AnswerProblem, answersPath = 'answers'): ErrorDetail {
  return { location: 'body', field: p.field, message: p.field === answersPath ? p.message : `\`${p.field}\` ${p.message}` };
}

/** A form as a submission needs it: its definition, name and languages (default first). */
export type SubmissionForm = FormDefinition & { name: string; languages: readonly string[] };

/** A checked submission (checkSubmission), ready for storeSubmission. */
export interface CheckedSubmission {
  form: SubmissionForm;
  language: string;
  checked: ValidatedAnswers;
  input: SubmissionInput;
  /** When it was checked: the default `created_at` and the capture time of the linked row. */
  now: Date;
}

/**
 * Loads a workspace's form for a submission.
 * @throws AppError validation_error naming `form_id` when it is not a form of the workspace.
 */
export async function loadSubmissionForm(db: DbHandle, workspaceId: string, formId: string): Promise<SubmissionForm> {
  const form = await formDefinitionFromDb(db, workspaceId, formId);
  if (!form) throw errors.invalid('body', 'form_id', `\`form_id\` names no form of this workspace; got "${formId}".`);
  return form;
}

/**
 * Checks a submission against its form, without I/O: the language (`input.language`, else the form's
 * default), the answers (validated and rendered in that language, required questions enforced), the
 * backfill time and the email pair.
 * @param validated the language and answers a caller has already chosen and validated with
 *   validateAnswers (the hosted page, which shows the problems beside the questions); not done again.
 * @throws AppError validation_error (400, location body) with one detail per problem: `language` not a
 * form language; `answers[i]…` per bad answer and `answers` per required question left out (the
 * message names it); `created_at` before 1970 or in the future (responseTimeProblem, src/core/query/dates.ts); `respondent_email`/`email_id` not both set or both absent.
 */
export function checkSubmission(form: SubmissionForm, input: SubmissionInput, validated?: { language: string; checked: ValidatedAnswers }): CheckedSubmission {
  const language = validated?.language ?? chooseLanguage(form, { explicit: input.language });
  const checked = validated?.checked ?? validateAnswers(form, input.answers, { language, enforceRequired: true });
  const details: ErrorDetail[] = checked.problems.map((p) => answerProblemDetail(p));

  const now = new Date();
  const timeProblem = input.createdAt === undefined ? undefined : responseTimeProblem(input.createdAt, 'created_at', now);
  if (timeProblem !== undefined) details.push({ location: 'body', field: 'created_at', message: `${timeProblem}.` });
  const email = input.respondentEmail ?? null;
  const emailId = input.emailId ?? null;
  if ((email === null) !== (emailId === null)) {
    const missing = email === null ? 'respondent_email' : 'email_id';
    details.push({ location: 'body', field: missing, message: '`respondent_email` and `email_id` must both be given or both be left out.' });
  }
  if (details.length > 0) throw errors.validation(details);
  return { form, language, checked, input, now };
}

/**
 * Stores a checked submission of a workspace in the caller's transaction: captures the linked row,
 * computes the sentiment of its text answers (unless `SENTIMENT=off`), inserts the response (its counts follow by
 * trigger), tags it with the workspace's topics it matches and records its `response.created` event.
 * @param trx the use case's transaction (the write and its event commit or roll back together).
 * @returns the stored record with `formName`, `tableData` (null without a row) and `actionlists` ([]).
 * @throws AppError validation_error naming `row_id` when it is not a row of the workspace.
 */
export async function storeSubmission(trx: Knex.Transaction, workspaceId: string, submission: CheckedSubmission): Promise<ResponseRecord> {
  const { form, language, checked, input, now } = submission;
  const email = input.respondentEmail ?? null;
  const emailId = input.emailId ?? null;
  const rowId = input.rowId ?? null;
  let tableData: CapturedRow | null = null;
  if (rowId !== null) {
    // FOR SHARE: the captured data is the row as committed now, not overwritten before we commit.
    const row = await rowDataForShare(trx, workspaceId, rowId);
    if (!row) throw errors.invalid('body', 'row_id', `\`row_id\` names no row of this workspace; got "${rowId}".`);
    tableData = { rowId, capturedAt: now, columns: row.data };
  }
  const sentiment = sentimentColumns(checked.answers, language);
  const record: ResponseRecord = {
    id: newId('response'),
    formId: form.id,
    formName: form.name,
    score: checked.score,
    version: input.version ?? 1,
    language,
    createdAt: input.createdAt ?? now,
    answers: sentiment.answers,
    sentiment: sentimentOf(sentiment.columns),
    respondentEmail: email,
    emailId,
    rowId,
    tableData,
    actionlists: [],
  };
  await insertResponse(trx, {
    workspace_id: workspaceId,
    id: record.id,
    form_id: record.formId,
    score: record.score,
    version: record.version,
    language,
    // JSON text: a JS array must become jsonb, never a PostgreSQL array.
    answers: JSON.stringify(record.answers),
    respondent_email: email,
    email_id: emailId,
    row_id: rowId,
    table_data: tableData === null ? null : JSON.stringify(tableData.columns),
    table_data_captured_at: tableData === null ? null : now,
    actionlists: '[]',
    created_at: record.createdAt,
    ...sentiment.columns,
  });
  await tagNewResponses(trx, workspaceId, [record.id]);
  await recordEvents(trx, workspaceId, [{ type: 'response.created', resource: { kind: 'response', response: record } }]);
  return record;
}

/**
 * Loads the form, checks and stores one response of a workspace in the caller's transaction
 * (loadSubmissionForm, checkSubmission, storeSubmission in one call).
 * @returns the stored record (storeSubmission).
 * @throws AppError validation_error as the three do (`form_id`, `language`, `answers…`, `created_at`,
 * `respondent_email`/`email_id`, `row_id`).
 */
export async function submitResponse(trx: Knex.Transaction, workspaceId: string, input: SubmissionInput): Promise<ResponseRecord> {
  const form = await loadSubmissionForm(trx, workspaceId, input.formId);
  return storeSubmission(trx, workspaceId, checkSubmission(form, input));
}
