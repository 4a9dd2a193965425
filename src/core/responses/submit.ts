/**
 * The one submission path (CONTRACT section 11): every way in (hosted page, public JSON, server to
 * server, email links) calls `submitResponse`, so a response looks the same however it arrived.
 *
 * validate → render answers in the response's language → score → capture the linked row → store
 * (the counters follow through the table's triggers) → record `response.created` → `beforeCommit`,
 * all in ONE transaction: on any error nothing is stored and no event goes out.
 */
import type { Knex } from 'knex';
import { errors, type ErrorDetail } from '../errors';
import { chooseLanguage } from '../forms/public-form';
import { newId } from '../ids';
import { recordEvents } from '../webhooks/outbox';
import { formDefinitionFromDb, validateAnswers, type AnswerProblem } from './answers';
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

export interface SubmitOptions {
  /** Runs inside the transaction after the response is stored (e.g. a page records its one-time token). */
  beforeCommit?: (trx: Knex.Transaction, record: ResponseRecord) => Promise<void>;
}

/** The API detail of an answer problem: `answers[2].value` with the field named in the message. */
export function answerProblemDetail(p: AnswerProblem, answersPath = 'answers'): ErrorDetail {
  return { location: 'body', field: p.field, message: p.field === answersPath ? p.message : `\`${p.field}\` ${p.message}` };
}

/**
 * Validates and stores one response of a workspace's form, with its counts and its `response.created`
 * event, in one transaction.
 * @returns the stored record with `formName`, `tableData` (null without a row) and `actionlists` ([]).
 * @throws AppError validation_error (400, location body) with one detail per problem: `form_id` not a
 * form of the workspace; `language` not a form language; `answers[i]…` per bad answer and `answers`
 * per required question left out (the message names it); `created_at` in the future;
 * `respondent_email`/`email_id` not both set or both absent; `row_id` not a row of the workspace.
 */
export async function submitResponse(
  db: Knex | Knex.Transaction,
  workspaceId: string,
  input: SubmissionInput,
  opts: SubmitOptions = {},
): Promise<ResponseRecord> {
  const form = await formDefinitionFromDb(db, workspaceId, input.formId);
  if (!form) throw errors.invalid('body', 'form_id', `\`form_id\` names no form of this workspace; got "${input.formId}".`);
  const language = chooseLanguage(form, { explicit: input.language });
  const checked = validateAnswers(form, input.answers, { language, enforceRequired: true });
  const details: ErrorDetail[] = checked.problems.map((p) => answerProblemDetail(p));

  const now = new Date();
  if (input.createdAt !== undefined && input.createdAt.getTime() > now.getTime()) {
    details.push({ location: 'body', field: 'created_at', message: '`created_at` must not be in the future.' });
  }
  const email = input.respondentEmail ?? null;
  const emailId = input.emailId ?? null;
  if ((email === null) !== (emailId === null)) {
    const missing = email === null ? 'respondent_email' : 'email_id';
    details.push({ location: 'body', field: missing, message: '`respondent_email` and `email_id` must both be given or both be left out.' });
  }
  if (details.length > 0) throw errors.validation(details);

  return db.transaction(async (trx) => {
    const rowId = input.rowId ?? null;
    let tableData: CapturedRow | null = null;
    if (rowId !== null) {
      // FOR SHARE: the captured data is the row as committed now, not overwritten before we commit.
      const row = (await trx('datatable_rows').select('data').where({ workspace_id: workspaceId, row_id: rowId }).forShare().first()) as
        | { data: Record<string, unknown> }
        | undefined;
      if (!row) throw errors.invalid('body', 'row_id', `\`row_id\` names no row of this workspace; got "${rowId}".`);
      tableData = { rowId, capturedAt: now, columns: row.data };
    }
    const record: ResponseRecord = {
      id: newId('response'),
      formId: form.id,
      formName: form.name,
      score: checked.score,
      version: input.version ?? 1,
      language,
      createdAt: input.createdAt ?? now,
      answers: checked.answers,
      respondentEmail: email,
      emailId,
      rowId,
      tableData,
      actionlists: [],
    };
    await trx('responses').insert({
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
    });
    await recordEvents(trx, workspaceId, [{ type: 'response.created', resource: { kind: 'response', response: record } }]);
    if (opts.beforeCommit) await opts.beforeCommit(trx, record);
    return record;
  });
}
