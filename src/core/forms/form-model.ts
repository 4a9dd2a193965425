/**
 * The one form model (API document "Form", "Form schema", "Question"; docs/decisions.md, "Resource shapes"):
 * a form's definition as the answer validator, the pages, the importer and the form reads see it, and
 * the loaders that read it from the database.
 */
import type { DbHandle } from '../../db';
import { formRowsByIds, questionRowsOfForms } from './forms.store';

export const QUESTION_TYPES = ['single_choice', 'multiple_choice', 'text', 'email', 'number', 'rating', 'nps', 'date'] as const;

export type QuestionType = (typeof QUESTION_TYPES)[number];

export interface FormOption {
  id: string;
  value: string;
}

/** Bounds of numeric answers and the format of text answers (docs/decisions.md, question shape). */
export interface QuestionValidation {
  min?: number;
  max?: number;
  format?: 'email';
}

export interface FormQuestion {
  id: string;
  type: QuestionType;
  title: string;
  required: boolean;
  /** `[]` for questions that are not choices. */
  options: FormOption[];
  /** Absent or `{}`: the type's defaults (nps 0..10, rating 1..5, no bounds for number). */
  validation?: QuestionValidation;
}

/** `{lang: {question_id: {title?, options?: {option_id: text}}}}` (docs/decisions.md, form schema). */
export type FormTranslations = Record<string, Record<string, { title?: string; options?: Record<string, string> }>>;

export interface FormDefinition {
  id: string;
  defaultLanguage: string;
  questions: FormQuestion[];
  translations: FormTranslations;
  /** The question whose answer is the score (docs/collecting.md, "Score"); null/absent: first nps, else first rating. */
  scoreQuestionId?: string | null;
}

/** A form's languages: the default first, then its translations' languages sorted. */
export function formLanguages(defaultLanguage: string, translations: FormTranslations | null | undefined): string[] {
  return [
    defaultLanguage,
    ...Object.keys(translations ?? {})
      .filter((l) => l !== defaultLanguage)
      .sort(),
  ];
}

/**
 * The form's score question (docs/collecting.md, "Score"): `scoreQuestionId` when set, else the first `nps`
 * question, else the first `rating` question; undefined when there is none (the score is then 0).
 */
export function scoreQuestion(form: FormDefinition): FormQuestion | undefined {
  if (form.scoreQuestionId) {
    const q = form.questions.find((x) => x.id === form.scoreQuestionId);
    if (q) return q;
  }
  return form.questions.find((q) => q.type === 'nps') ?? form.questions.find((q) => q.type === 'rating');
}

export interface FormRow {
  workspace_id: string;
  id: string;
  name: string;
  default_language: string;
  translations: FormTranslations | null;
  score_question_id: string | null;
}

/** A row of the `questions` table, as QUESTION_COLUMNS selects it. */
export interface QuestionRow {
  workspace_id: string;
  form_id: string;
  id: string;
  position: number;
  type: QuestionType;
  title: string;
  required: boolean;
  options: FormOption[] | null;
  validation: QuestionValidation | null;
}

/** The columns of a QuestionRow (every loader of questions selects these). */
export const QUESTION_COLUMNS = ['workspace_id', 'form_id', 'id', 'position', 'type', 'title', 'required', 'options', 'validation'];

/** A question row as the form model's question: missing options read as `[]`, missing validation as `{}`. */
export function toFormQuestion(q: QuestionRow): FormQuestion & { validation: QuestionValidation } {
  return { id: q.id, type: q.type, title: q.title, required: q.required, options: q.options ?? [], validation: q.validation ?? {} };
}

/** A stored form as a FormDefinition, with its workspace, name and languages (default first, then sorted). */
export interface StoredFormDefinition extends FormDefinition {
  workspaceId: string;
  name: string;
  languages: string[];
}

/**
 * Loads the definitions of forms by id from the database, in any workspace (form ids are random
 * and meant to be unique; the caller decides what an id found in two workspaces means).
 * @returns every match, questions in `position` order; an empty array when no id is known.
 */
export async function formDefinitionsFromDb(db: DbHandle, formIds: readonly string[]): Promise<StoredFormDefinition[]> {
  if (formIds.length === 0) return [];
  const forms = await formRowsByIds(db, formIds);
  if (forms.length === 0) return [];
  const questions = await questionRowsOfForms(
    db,
    forms.map((f) => f.id),
  );
  return forms.map((f) => {
    const translations = f.translations ?? {};
    return {
      workspaceId: f.workspace_id,
      id: f.id,
      name: f.name,
      defaultLanguage: f.default_language,
      languages: formLanguages(f.default_language, translations),
      translations,
      scoreQuestionId: f.score_question_id,
      questions: questions.filter((q) => q.workspace_id === f.workspace_id && q.form_id === f.id).map(toFormQuestion),
    };
  });
}

/**
 * Loads one form of a workspace as a StoredFormDefinition (for validating and rendering a new response).
 * @returns undefined when the form is not in the workspace.
 */
export async function formDefinitionFromDb(db: DbHandle, workspaceId: string, formId: string): Promise<StoredFormDefinition | undefined> {
  return (await formDefinitionsFromDb(db, [formId])).find((f) => f.workspaceId === workspaceId);
}
