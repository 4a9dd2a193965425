/**
 * Responses of a fixture document (docs/import.md, "What is checked"; docs/collecting.md, "Answers"), a batch at a time: the form (in the
 * document or the database; its workspace is the response's), the row (in the form's workspace), the
 * e-mail pair, and the answers, checked and rendered in the response's language by the one answer
 * validator the submissions use (answers.ts). `table_data` absent with a `row_id`: the row's data.
 */
import type { FormDefinition } from '../forms/form-model';
import { responseTimeProblem } from '../query/dates';
import { validateAnswers, type StoredAnswer } from '../responses/answers';
import { sentimentColumns } from '../responses/sentiment';
import type { FixtureResponse } from './fixture-schema';
import type { ImportContext, Rec } from './context';
import { checkItemSchema } from './item-schema';

/** An element of `responses` as read. */
export interface ResponseEntry {
  index: number;
  value: unknown;
}

// Keys a Style B `table_data` carries beside the columns; a fixture may copy them from an API answer.
const TABLE_DATA_META = new Set(['row_id', '_captured_at']);

const pairKey = (workspaceId: string, id: string) => `${workspaceId}\u0000${id}`;

/** The form a response names: its workspace and definition, or the problem with `form_id`. */
interface FormOf {
  workspaceId: string | undefined;
  def: FormDefinition | undefined;
  problem?: string;
}

/** The form `formId` (in the document, or resolved from the database). */
function formOf(ctx: ImportContext, formId: string): FormOf {
  const docForm = ctx.forms.get(formId);
  if (docForm) return docForm;
  const matches = ctx.formsInDb(formId);
  if (matches.length === 1) return matches[0]!;
  const problem =
    matches.length === 0
      ? `unknown form "${formId}"`
      : `form id "${formId}" is ambiguous: it exists in workspaces ${matches.map((m) => `"${m.workspaceId}"`).join(', ')}`;
  return { workspaceId: undefined, def: undefined, problem };
}

/** What the database says about the rows a batch links to. */
interface RowLookup {
  /** Data of the rows found in the response's workspace, by pairKey. */
  inWorkspace: Map<string, Record<string, unknown>>;
  /** Row ids found in some workspace (asked only for rows not found in their response's). */
  anywhere: Set<string>;
}

/**
 * Looks up the rows of `items` in the database (inside the import's transaction, so the document's
 * own rows are there once written): those the document does not define, and with `capture` those
 * whose data the response captures.
 */
async function lookUpRows(ctx: ImportContext, items: { r: FixtureResponse; workspaceId: string }[], capture: boolean): Promise<RowLookup> {
  const ws: string[] = [];
  const ids: string[] = [];
  for (const { r, workspaceId } of items) {
    if (typeof r.row_id !== 'string') continue;
    const doc = ctx.rows.get(r.row_id);
    const inDocument = doc !== undefined && ctx.rowWorkspace(doc) !== undefined;
    if (inDocument && !(capture && (r.table_data ?? null) === null)) continue;
    ws.push(workspaceId);
    ids.push(r.row_id);
  }
  const inWorkspace = new Map<string, Record<string, unknown>>();
  if (ws.length > 0) {
    const { rows } = await ctx.db.raw<{ rows: { w: string; r: string; data: Record<string, unknown> }[] }>(
      'select t.workspace_id as w, t.row_id as r, t.data from datatable_rows t join unnest(?::text[], ?::text[]) as x(w, r) on t.workspace_id = x.w and t.row_id = x.r',
      [ws, ids],
    );
    for (const row of rows) inWorkspace.set(pairKey(row.w, row.r), row.data);
  }
  const misses = ids.filter((id, i) => !inWorkspace.has(pairKey(ws[i]!, id)) && !ctx.rows.has(id));
  return { inWorkspace, anywhere: await ctx.existing('datatable_rows', 'row_id', misses) };
}

/** The row link of a response: problems at `.row_id`/`.table_data`, and the captured data. */
function rowLink(ctx: ImportContext, r: FixtureResponse, path: string, workspaceId: string | undefined, rows: RowLookup): Record<string, unknown> | null {
  const rowId = r.row_id ?? null;
  let tableData: Record<string, unknown> | null = null;
  if (r.table_data !== undefined && r.table_data !== null) {
    if (rowId === null) ctx.problems.add(`${path}.table_data`, 'is only allowed with a row_id');
    tableData = Object.fromEntries(Object.entries(r.table_data).filter(([k]) => !TABLE_DATA_META.has(k)));
  }
  if (rowId === null || workspaceId === undefined) return tableData;
  const doc = ctx.rows.get(rowId);
  const docWorkspace = doc && ctx.rowWorkspace(doc);
  const stored = rows.inWorkspace.get(pairKey(workspaceId, rowId));
  const known = docWorkspace !== undefined || stored !== undefined || rows.anywhere.has(rowId);
  if (!known) ctx.problems.add(`${path}.row_id`, `unknown row "${rowId}"`);
  else if ((docWorkspace ?? workspaceId) !== workspaceId || (docWorkspace === undefined && stored === undefined)) {
    ctx.problems.add(`${path}.row_id`, `row "${rowId}" is not in workspace "${workspaceId}" of form "${r.form_id}"`);
  } else if (tableData === null && stored !== undefined) {
    tableData = stored;
  }
  return tableData;
}

/** Checks one response whose form and rows are resolved; @returns its record. */
function checkResponse(ctx: ImportContext, e: ResponseEntry, id: string, form: FormOf, rows: RowLookup): Rec {
  const r = e.value as FixtureResponse;
  const path = `responses[${e.index}]`;
  const { workspaceId, def } = form;
  if (form.problem !== undefined) ctx.problems.add(`${path}.form_id`, form.problem);
  const rowId = r.row_id ?? null;
  const tableData = rowLink(ctx, r, path, workspaceId, rows);
  const hasEmail = r.respondent_email !== undefined && r.respondent_email !== null;
  const hasEmailId = r.email_id !== undefined && r.email_id !== null;
  if (hasEmail !== hasEmailId) {
    ctx.problems.add(`${path}.${hasEmail ? 'email_id' : 'respondent_email'}`, 'respondent_email and email_id must both be set or both be null');
  }
  const language = r.language ?? def?.defaultLanguage ?? 'en';
  let answers: StoredAnswer[] = [];
  if (def) {
    // History: required questions left out of an old response are not a problem (enforceRequired false).
    const rendered = validateAnswers(def, r.answers ?? [], { language, path: `${path}.answers`, enforceRequired: false });
    rendered.problems.forEach((p) => ctx.problems.add(p.field, p.message));
    answers = rendered.answers;
  }
  // The sentiment of the text answers, as a submission computes it (skipped when the document has problems: nothing is written).
  const sentiment = ctx.problems.count === 0 ? sentimentColumns(answers, language) : undefined;
  const created = ctx.iso(r.created_at);
  // The same bounds as a write (1970 to now), so an imported response cannot stretch the time series either.
  const timeProblem = r.created_at === undefined ? undefined : responseTimeProblem(new Date(created), 'created_at', new Date(ctx.nowIso));
  if (timeProblem !== undefined) ctx.problems.add(`${path}.created_at`, timeProblem);
  return {
    workspace_id: workspaceId,
    id,
    form_id: r.form_id,
    score: r.score,
    version: r.version ?? 1,
    language,
    answers: sentiment?.answers ?? answers,
    respondent_email: r.respondent_email ?? null,
    email_id: r.email_id ?? null,
    row_id: rowId,
    table_data: rowId === null ? null : tableData,
    table_data_captured_at: rowId === null ? null : created,
    actionlists: r.actionlists ?? [],
    created_at: created,
    ...(sentiment?.columns ?? { sentiment_score: null, sentiment_label: null, sentiment_pending: true }),
  };
}

/**
 * Checks a batch of responses (forms and datatables registered before). An item's problems come in
 * the order of the checks: schema, duplicate id, existing id, form, row, e-mail pair, answers, created_at (1970 to now).
 * @param capture whether the document's rows are written already, so their data can be captured.
 * @returns the `responses` records to write (of the items without schema problems).
 */
export async function checkResponseBatch(ctx: ImportContext, batch: ResponseEntry[], capture: boolean): Promise<Rec[]> {
  const ok = batch.map((e) => checkItemSchema('responses', e.value, `responses[${e.index}]`, ctx.problems));
  const ids = batch.map((e) => ctx.claimId('responses', 'response', 'response', e.index, (e.value as { id?: unknown } | null)?.id));
  const sound = batch.flatMap((e, i) => (ok[i] ? [{ e, id: ids[i]!, r: e.value as FixtureResponse }] : []));
  await ctx.resolveForms(sound.map((s) => s.r.form_id));
  const items = sound.map((s) => ({ ...s, form: formOf(ctx, s.r.form_id) }));
  const placed = items.flatMap((s) => (s.form.workspaceId === undefined ? [] : [{ ...s, workspaceId: s.form.workspaceId }]));
  const exists = await ctx.existingIn(
    'responses',
    'id',
    placed.flatMap((s) => (typeof s.r.id === 'string' && ctx.isFirst('responses', s.id, s.e.index) ? [[s.workspaceId, s.id] as [string, string]] : [])),
  );
  for (const s of placed) {
    if (exists.has(pairKey(s.workspaceId, s.id))) ctx.problems.add(`responses[${s.e.index}].id`, `response "${s.id}" already exists`);
  }
  const rows = await lookUpRows(ctx, placed, capture);
  return items.map((s) => checkResponse(ctx, s.e, s.id, s.form, rows));
}
