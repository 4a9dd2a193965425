/**
 * Forms of a fixture document (docs/import.md, "What is checked"; docs/collecting.md, "Score"): questions with unique ids and options that
 * fit their type, translations of existing questions and options only, a score question that can score.
 * Each sound form becomes the definition its responses are checked against (answers.ts).
 */
import { newId } from '../ids';
import type { FormQuestion, QuestionValidation } from '../forms/form-model';
import { defaultValidation } from '../responses/answers';
import type { FixtureForm } from './fixture-schema';
import type { ImportContext, Item, Rec } from './context';
import { prop } from './json-paths';

/** Questions with defaults applied; reports duplicate ids and options that do not fit the type. */
function checkQuestions(ctx: ImportContext, formPath: string, items: NonNullable<FixtureForm['questions']>): FormQuestion[] {
  const seen = new Map<string, number>();
  return items.map((q, qi) => {
    const path = `${formPath}.questions[${qi}]`;
    const id = q.id ?? newId('question');
    const prev = seen.get(id);
    if (prev !== undefined) ctx.problems.add(`${path}.id`, `duplicate question id "${id}" (first at ${formPath}.questions[${prev}])`);
    else seen.set(id, qi);

    const choice = q.type === 'single_choice' || q.type === 'multiple_choice';
    const options = q.options ?? [];
    if (choice && options.length === 0) ctx.problems.add(`${path}.options`, `a ${q.type} question needs at least one option`);
    else if (!choice && options.length > 0) ctx.problems.add(`${path}.options`, `only choice questions have options (this one is ${q.type})`);
    const optionIds = new Map<string, number>();
    options.forEach((o, oi) => {
      const p = optionIds.get(o.id);
      if (p !== undefined) ctx.problems.add(`${path}.options[${oi}].id`, `duplicate option id "${o.id}" (first at ${path}.options[${p}])`);
      else optionIds.set(o.id, oi);
    });

    const validation: QuestionValidation = { ...defaultValidation(q.type), ...(q.validation ?? {}) };
    const numeric = q.type === 'number' || q.type === 'rating' || q.type === 'nps';
    if (q.validation && !numeric && (q.validation.min !== undefined || q.validation.max !== undefined)) {
      ctx.problems.add(`${path}.validation`, `min and max apply to number, rating and nps questions only (this one is ${q.type})`);
    }
    if (validation.min !== undefined && validation.max !== undefined && validation.min > validation.max) {
      ctx.problems.add(`${path}.validation`, `min (${validation.min}) is greater than max (${validation.max})`);
    }
    return { id, type: q.type, title: q.title, required: q.required ?? false, options, validation };
  });
}

/** Every translated question and option must exist in the form. */
function checkTranslations(ctx: ImportContext, path: string, translations: NonNullable<FixtureForm['translations']>, qs: FormQuestion[]): void {
  const byId = new Map(qs.map((q) => [q.id, q]));
  for (const lang of Object.keys(translations)) {
    const lpath = prop(path, lang);
    for (const qid of Object.keys(translations[lang] ?? {})) {
      const qpath = prop(lpath, qid);
      const q = byId.get(qid);
      if (!q) {
        ctx.problems.add(qpath, `unknown question "${qid}"`);
        continue;
      }
      for (const oid of Object.keys(translations[lang]![qid]!.options ?? {})) {
        if (!q.options.some((o) => o.id === oid)) ctx.problems.add(prop(`${qpath}.options`, oid), `unknown option "${oid}" of question "${qid}"`);
      }
    }
  }
}

function checkScoreQuestion(ctx: ImportContext, path: string, formId: string, scoreQuestionId: string | null, qs: FormQuestion[]): void {
  if (scoreQuestionId === null) return;
  const sq = qs.find((q) => q.id === scoreQuestionId);
  if (!sq) ctx.problems.add(`${path}.score_question_id`, `unknown question "${scoreQuestionId}" in form "${formId}"`);
  else if (!['nps', 'rating', 'number'].includes(sq.type)) {
    ctx.problems.add(`${path}.score_question_id`, `question "${scoreQuestionId}" is a ${sq.type} question; the score question must be nps, rating or number`);
  }
}

/**
 * Checks the forms (workspaces resolved before) and registers each form's definition in `ctx.forms`
 * (a form with problems without one: its responses are not checked further).
 * @param ids the forms' ids (ImportContext.claimIds).
 * @returns the `forms` and `questions` records to write.
 */
export function checkForms(ctx: ImportContext, items: Item<FixtureForm>[], ids: string[]): { forms: Rec[]; questions: Rec[] } {
  const checked = items.flatMap((item, i) => checkForm(ctx, item, ids[i]!) ?? []);
  return { forms: checked.map((c) => c.form), questions: checked.flatMap((c) => c.questions) };
}

/** One form of checkForms: its records, or undefined when the item has schema problems. */
function checkForm(ctx: ImportContext, item: Item<FixtureForm>, id: string): { form: Rec; questions: Rec[] } | undefined {
  const f = item.value;
  const path = `forms[${item.index}]`;
  if (!item.ok) {
    if (typeof f?.workspace_id === 'string' && !ctx.forms.has(id)) ctx.forms.set(id, { workspaceId: f.workspace_id, def: undefined });
    return undefined;
  }
  const before = ctx.problems.count;
  ctx.checkWorkspace(`${path}.workspace_id`, f.workspace_id);
  const defaultLanguage = f.default_language ?? 'en';
  const qs = checkQuestions(ctx, path, f.questions ?? []);
  const translations = f.translations ?? {};
  checkTranslations(ctx, `${path}.translations`, translations, qs);
  const scoreQuestionId = f.score_question_id ?? null;
  checkScoreQuestion(ctx, path, id, scoreQuestionId, qs);
  const ok = ctx.problems.count === before;
  if (!ctx.forms.has(id)) {
    ctx.forms.set(id, { workspaceId: f.workspace_id, def: ok ? { id, defaultLanguage, questions: qs, translations, scoreQuestionId } : undefined });
  }
  const created = ctx.iso(f.created_at);
  const form = {
    workspace_id: f.workspace_id,
    id,
    name: f.name,
    default_language: defaultLanguage,
    translations,
    score_question_id: scoreQuestionId,
    created_at: created,
    updated_at: ctx.iso(f.updated_at, created),
  };
  const questions = qs.map((q, position) => ({
    workspace_id: f.workspace_id,
    form_id: id,
    id: q.id,
    position,
    type: q.type,
    title: q.title,
    required: q.required,
    options: q.options,
    validation: q.validation,
  }));
  return { form, questions };
}
