/**
 * Forms, their questions, schema and analytics summary (API document: Form, Form schema, Analytics
 * summary, Question; shapes in docs/decisions.md and CONTRACT section 8).
 */
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { errors } from '../errors';
import type { FormTranslations } from '../responses/answers';
import type { KeysetPage } from '../query/list';
import { listByCreatedOrName } from '../query/simple-list';

type Db = Knex | Knex.Transaction;

export interface Question {
  id: string;
  formId: string;
  position: number;
  type: string;
  title: string;
  required: boolean;
  options: Array<{ id: string; value: string }>;
  validation: Record<string, unknown>;
}

/** The form's translations: the one type, shared with the answer validator (responses/answers.ts). */
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

function formQuery(db: Db, workspaceId: string): Knex.QueryBuilder {
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
    languages: [row.default_language, ...Object.keys(row.translations ?? {}).filter((l) => l !== row.default_language).sort()],
    questionCount: Number(row.question_count),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

interface QuestionRow {
  id: string;
  form_id: string;
  position: number;
  type: string;
  title: string;
  required: boolean;
  options: Array<{ id: string; value: string }>;
  validation: Record<string, unknown>;
}

const toQuestion = (q: QuestionRow): Question => ({
  id: q.id,
  formId: q.form_id,
  position: q.position,
  type: q.type,
  title: q.title,
  required: q.required,
  options: q.options ?? [],
  validation: q.validation ?? {},
});

/** Keyset list of forms (sort `created_at` or `name`). */
export async function listForms(
  db: Db,
  workspaceId: string,
  params: { limit: number; cursor?: string | undefined; sort?: string | undefined },
): Promise<KeysetPage<Form>> {
  // Unqualified sort columns: wrap so `created_at`/`name`/`id` are unambiguous.
  const inner = formQuery(db, workspaceId);
  const query = db.select('*').from(inner.as('forms_list'));
  const page = await listByCreatedOrName<FormRow & Record<string, unknown>>(db, query, `forms:${workspaceId}`, params);
  return { ...page, items: page.items.map(toForm) };
}

/** @throws AppError resource_not_found */
export async function getForm(db: Db, workspaceId: string, formId: string, opts: { questions?: boolean } = {}): Promise<Form> {
  const row = (await formQuery(db, workspaceId).where('f.id', formId).first()) as FormRow | undefined;
  if (!row) throw errors.notFound('Form', formId);
  const form = toForm(row);
  if (opts.questions) form.questions = await listQuestionsOf(db, workspaceId, formId);
  return form;
}

async function listQuestionsOf(db: Db, workspaceId: string, formId: string): Promise<Question[]> {
  const rows = (await db('questions')
    .select('id', 'form_id', 'position', 'type', 'title', 'required', 'options', 'validation')
    .where({ workspace_id: workspaceId, form_id: formId })
    .orderBy([{ column: 'position' }, { column: 'id' }])) as QuestionRow[];
  return rows.map(toQuestion);
}

/** @throws AppError resource_not_found for the form */
export async function listQuestions(db: Db, workspaceId: string, formId: string): Promise<Question[]> {
  await assertFormExists(db, workspaceId, formId);
  return listQuestionsOf(db, workspaceId, formId);
}

/** @throws AppError resource_not_found for the form or the question */
export async function getQuestion(db: Db, workspaceId: string, formId: string, questionId: string): Promise<Question> {
  await assertFormExists(db, workspaceId, formId);
  const row = (await db('questions')
    .select('id', 'form_id', 'position', 'type', 'title', 'required', 'options', 'validation')
    .where({ workspace_id: workspaceId, form_id: formId, id: questionId })
    .first()) as QuestionRow | undefined;
  if (!row) throw errors.notFound('Question', questionId);
  return toQuestion(row);
}

/** @throws AppError resource_not_found */
export async function assertFormExists(db: Db, workspaceId: string, formId: string): Promise<void> {
  const row = await db('forms').select('id').where({ workspace_id: workspaceId, id: formId }).first();
  if (!row) throw errors.notFound('Form', formId);
}

/** Canonical JSON: object keys sorted, so equal content always hashes equally. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * The form schema with its strong ETag (CONTRACT section 6): a SHA-256 of the canonical schema.
 * @throws AppError resource_not_found
 */
export async function getFormSchema(db: Db, workspaceId: string, formId: string): Promise<FormSchema> {
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
export async function getFormSummary(db: Db, workspaceId: string, formId: string): Promise<FormSummary> {
  await assertFormExists(db, workspaceId, formId);
  const [agg, last] = await Promise.all([
    db('response_counts')
      .where({ workspace_id: workspaceId, form_id: formId })
      .select(db.raw('COALESCE(SUM(responses), 0)::bigint AS n'), db.raw('SUM(score * responses) AS total'))
      .first() as Promise<{ n: unknown; total: unknown }>,
    db('responses')
      .select('id', 'score', 'created_at')
      .where({ workspace_id: workspaceId, form_id: formId })
      .orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .first() as Promise<{ id: string; score: number; created_at: Date } | undefined>,
  ]);
  const n = Number(agg?.n ?? 0);
  const average = n > 0 ? Math.round((Number(agg.total) / n) * 100) / 100 : null;
  return {
    formId,
    totalResponses: n,
    averageScore: average,
    lastResponse: last ? { id: last.id, score: last.score, createdAt: last.created_at } : null,
  };
}
