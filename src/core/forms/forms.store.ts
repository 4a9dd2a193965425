/**
 * Forms, their questions, schema and analytics summary (API document: Form, Form schema, Analytics
 * summary, Question; shapes in docs/decisions.md, "Resource shapes").
 */
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type { DbHandle } from '../../db';
import { canonicalJson } from '../canonical-json';
import { errors } from '../errors';
import {
  formLanguages,
  QUESTION_COLUMNS,
  toFormQuestion,
  type FormQuestion,
  type FormRow as FormDefinitionRow,
  type FormTranslations,
  type QuestionRow,
  type QuestionValidation,
} from './form-model';
import type { KeysetPage } from '../query/list';
import { lastResponse, responseTotals } from '../responses/responses.store';
import { listByCreatedOrName, type SortedKeysetParams } from '../query/simple-list';

/** A question as the API reads it: the form model's question (form-model.ts) with its form and position. */
export interface Question extends FormQuestion {
  formId: string;
  position: number;
  validation: QuestionValidation;
}

/** The form's translations: the one type of the form model (form-model.ts). */
export type Translations = FormTranslations;

export interface Form {
  id: string;
  name: string;
  defaultLanguage: string;
  languages: string[];
  questionCount: number;
  createdAt: Date;
  updatedAt: Date;
  questions?: Question[];
}

export interface FormSchema {
  formId: string;
  defaultLanguage: string;
  languages: string[];
  questions: Question[];
  translations: Translations;
  /** Strong ETag (quoted), changes exactly when the schema content changes. */
  etag: string;
}

export interface FormSummary {
  formId: string;
  totalResponses: number;
  /** Rounded to 2 decimals; null without responses. */
  averageScore: number | null;
  lastResponse: { id: string; score: number; createdAt: Date } | null;
}

interface FormRow {
  id: string;
  name: string;
  default_language: string;
  translations: Translations;
  question_count: number;
  created_at: Date;
  updated_at: Date;
}

function formQuery(db: DbHandle, workspaceId: string): Knex.QueryBuilder {
  return db('forms as f')
    .select(
      'f.id',
      'f.name',
      'f.default_language',
      'f.translations',
      'f.created_at',
      'f.updated_at',
      db.raw('(SELECT count(*) FROM questions q WHERE q.workspace_id = f.workspace_id AND q.form_id = f.id)::int AS question_count'),
    )
    .where('f.workspace_id', workspaceId);
}

function toForm(row: FormRow): Form {
  return {
    id: row.id,
    name: row.name,
    defaultLanguage: row.default_language,
    languages: formLanguages(row.default_language, row.translations),
    questionCount: Number(row.question_count),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

const toQuestion = (q: QuestionRow): Question => ({ ...toFormQuestion(q), formId: q.form_id, position: q.position });

/** Keyset list of forms (sort `created_at` or `name`). */
export async function listForms(db: DbHandle, workspaceId: string, params: SortedKeysetParams): Promise<KeysetPage<Form>> {
  // Unqualified sort columns: wrap so `created_at`/`name`/`id` are unambiguous.
  const inner = formQuery(db, workspaceId);
  const query = db.select('*').from(inner.as('forms_list'));
  const page = await listByCreatedOrName<FormRow & Record<string, unknown>>(db, query, `forms:${workspaceId}`, params);
  return { ...page, items: page.items.map(toForm) };
}

/** @throws AppError resource_not_found */
export async function getForm(db: DbHandle, workspaceId: string, formId: string, opts: { questions?: boolean } = {}): Promise<Form> {
  const row = (await formQuery(db, workspaceId).where('f.id', formId).first()) as FormRow | undefined;
  if (!row) throw errors.notFound('Form', formId);
  const form = toForm(row);
  if (opts.questions) form.questions = await listQuestionsOf(db, workspaceId, formId);
  return form;
}

/** The questions of one form of the workspace, as QuestionRows. */
function questionsQuery(db: DbHandle, workspaceId: string, formId: string): Knex.QueryBuilder {
  return db('questions').select(QUESTION_COLUMNS).where({ workspace_id: workspaceId, form_id: formId });
}

/** The questions of a form in form order; none for a form the workspace does not have (no 404: see listQuestions). */
export async function listQuestionsOf(db: DbHandle, workspaceId: string, formId: string): Promise<Question[]> {
  const rows = (await questionsQuery(db, workspaceId, formId).orderBy([{ column: 'position' }, { column: 'id' }])) as QuestionRow[];
  return rows.map(toQuestion);
}

/**
 * A form's name and its questions in form order in one statement (`forms` LEFT JOIN `questions`); undefined for a form
 * the workspace does not have. The responses list reads it when it filters on answers: the questions compile the
 * filter, the name is each item's form name (Style B's `form.name`) without a query of its own.
 */
export async function formNameAndQuestions(db: DbHandle, workspaceId: string, formId: string): Promise<{ name: string; questions: Question[] } | undefined> {
  const rows = (await db('forms as f')
    .select('f.name as form_name', ...QUESTION_COLUMNS.map((c) => `q.${c}`))
    .leftJoin('questions as q', function joinQuestions() {
      this.on('q.workspace_id', 'f.workspace_id').andOn('q.form_id', 'f.id');
    })
    .where({ 'f.workspace_id': workspaceId, 'f.id': formId })
    .orderBy([{ column: 'q.position' }, { column: 'q.id' }])) as Array<QuestionRow & { form_name: string }>;
  if (rows.length === 0) return undefined;
  // A form without questions joins one row of NULL question columns.
  return { name: rows[0]!.form_name, questions: rows.filter((r) => r.id !== null).map(toQuestion) };
}

/** @throws AppError resource_not_found for the form */
export async function listQuestions(db: DbHandle, workspaceId: string, formId: string): Promise<Question[]> {
  await assertFormExists(db, workspaceId, formId);
  return listQuestionsOf(db, workspaceId, formId);
}

/** @throws AppError resource_not_found for the form or the question */
export async function getQuestion(db: DbHandle, workspaceId: string, formId: string, questionId: string): Promise<Question> {
  await assertFormExists(db, workspaceId, formId);
  const row = (await questionsQuery(db, workspaceId, formId).where('id', questionId).first()) as QuestionRow | undefined;
  if (!row) throw errors.notFound('Question', questionId);
  return toQuestion(row);
}

/** @throws AppError resource_not_found */
export async function assertFormExists(db: DbHandle, workspaceId: string, formId: string): Promise<void> {
  const row = await db('forms').select('id').where({ workspace_id: workspaceId, id: formId }).first<{ id: string } | undefined>();
  if (!row) throw errors.notFound('Form', formId);
}

/**
 * The form schema with its strong ETag (docs/api-rules.md, "Conditional requests"): a SHA-256 of the canonical schema.
 * @throws AppError resource_not_found
 */
export async function getFormSchema(db: DbHandle, workspaceId: string, formId: string): Promise<FormSchema> {
  const form = await getForm(db, workspaceId, formId, { questions: true });
  const row = (await db('forms').select('translations').where({ workspace_id: workspaceId, id: formId }).first()) as {
    translations: Translations;
  };
  const body = {
    formId,
    defaultLanguage: form.defaultLanguage,
    languages: form.languages,
    questions: form.questions ?? [],
    translations: row.translations ?? {},
  };
  const etag = `"${createHash('sha256').update(canonicalJson(body)).digest('base64url')}"`;
  return { ...body, etag };
}

/**
 * Total responses, average score and last response of a form. Costs the same at any volume:
 * a sum over the form's `response_counts` rows and one index probe for the newest response.
 * @throws AppError resource_not_found
 */
export async function getFormSummary(db: DbHandle, workspaceId: string, formId: string): Promise<FormSummary> {
  await assertFormExists(db, workspaceId, formId);
  const [agg, last] = await Promise.all([responseTotals(db, workspaceId, formId), lastResponse(db, workspaceId, formId)]);
  const n = agg.n;
  const average = n > 0 ? Math.round((agg.scoreSum / n) * 100) / 100 : null;
  return {
    formId,
    totalResponses: n,
    averageScore: average,
    lastResponse: last ? { id: last.id, score: last.score, createdAt: last.created_at } : null,
  };
}

/** The `forms` rows of these ids, in any workspace, by workspace and id (formDefinitionsFromDb). */
export async function formRowsByIds(db: DbHandle, formIds: readonly string[]): Promise<FormDefinitionRow[]> {
  return db('forms')
    .select<FormDefinitionRow[]>('workspace_id', 'id', 'name', 'default_language', 'translations', 'score_question_id')
    .whereRaw('id = any(?)', [formIds as string[]])
    .orderBy(['workspace_id', 'id']);
}

/** The questions of these forms (ids), in `position` order within each form (formDefinitionsFromDb). */
export async function questionRowsOfForms(db: DbHandle, formIds: string[]): Promise<QuestionRow[]> {
  return db('questions').select<QuestionRow[]>(QUESTION_COLUMNS).whereRaw('form_id = any(?)', [formIds]).orderBy(['workspace_id', 'form_id', 'position']);
}

/** The form's id when the form is the workspace's, else undefined (links and dashboard links check their form with it). */
export function formIdInWorkspace(db: DbHandle, workspaceId: string, formId: string): Promise<{ id: string } | undefined> {
  return db('forms').first<{ id: string } | undefined>('id').where({ workspace_id: workspaceId, id: formId });
}

/** The names of these forms of a workspace (attachFormNames), in no order. */
export async function formNames(db: DbHandle, workspaceId: string, ids: string[]): Promise<Array<{ id: string; name: string }>> {
  return (await db('forms').select('id', 'name').where('workspace_id', workspaceId).whereIn('id', ids)) as Array<{
    id: string;
    name: string;
  }>;
}

/** A form's id and translations: what the demo page offers to answer. */
export interface FormTranslationsRow {
  id: string;
  translations: Record<string, unknown> | null;
}

/** The workspace's form of this name (`id`, `translations`), undefined when none (the demo page). */
export function formTranslationsNamed(db: DbHandle, workspaceId: string, name: string): Promise<FormTranslationsRow | undefined> {
  return db('forms').first<FormTranslationsRow | undefined>('id', 'translations').where({ workspace_id: workspaceId, name });
}

/** The workspace's first form by creation (`id`, `translations`), undefined when it has none (the demo page). */
export function firstFormTranslations(db: DbHandle, workspaceId: string): Promise<FormTranslationsRow | undefined> {
  return db('forms').first<FormTranslationsRow | undefined>('id', 'translations').where({ workspace_id: workspaceId }).orderBy(['created_at', 'id']);
}
