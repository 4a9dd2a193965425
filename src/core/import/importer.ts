/**
 * The fixture importer (CONTRACT section 9): checks a whole fixture document against the schema,
 * itself and the database, then writes it in ONE transaction, or writes nothing and reports every
 * problem with its JSON path.
 *
 * Writes go through `INSERT … SELECT … FROM jsonb_to_recordset(?::jsonb)`: one bind parameter per
 * batch (far from the 65535-parameter limit), jsonb columns receive real JSON (a JS array never
 * becomes a PostgreSQL array), and the same statement runs on PostgreSQL and on embedded PGlite.
 */
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { Knex } from 'knex';
import { withTransaction, type Db } from '../../db';
import { createApiKey } from '../api-keys/create-api-key';
import { API_KEY_PREFIX, hashApiKeySecret, generateWebhookSecret } from '../api-keys/secrets';
import { newId, type IdKind } from '../ids';
import {
  defaultValidation,
  formDefinitionsFromDb,
  validateAnswers,
  type FormDefinition,
  type FormQuestion,
  type QuestionValidation,
  type StoredAnswer,
} from '../responses/answers';
import { columnTypeProblem } from '../datatables/rows.write';
import {
  FIXTURE_SCHEMA,
  type DatatableFieldType,
  type FixtureApiKey,
  type FixtureDatatable,
  type FixtureDocument,
  type FixtureEmailEvent,
  type FixtureForm,
  type FixtureResponse,
  type FixtureWebhookEndpoint,
  type FixtureWorkspace,
} from './fixture-schema';

export interface ImportProblem {
  /** JSON path in the document, e.g. `responses[12].form_id`; `$` for the document itself. */
  path: string;
  message: string;
}

/** The document cannot be imported; nothing was written. */
export class ImportError extends Error {
  constructor(readonly problems: ImportProblem[]) {
    super(
      problems.length === 1
        ? `the fixture has a problem: ${problems[0]!.path}: ${problems[0]!.message}`
        : `the fixture has ${problems.length} problems; first: ${problems[0]?.path}: ${problems[0]?.message}`,
    );
    this.name = 'ImportError';
  }
}

/** What `import` prints (CONTRACT section 1): counts of written records and every imported key's secret. */
export interface ImportSummary {
  workspaces: number;
  forms: number;
  questions: number;
  datatables: number;
  rows: number;
  responses: number;
  email_events: number;
  /** Present only when the document has a `webhook_endpoints` array. */
  webhook_endpoints?: number;
  api_keys: { id: string; secret: string; workspace_ids: string[] }[];
}

export interface ImportOptions {
  /** Called after every batch: records written so far out of all records of the document. */
  onProgress?: (done: number, total: number) => void;
  /** The instant used for absent `created_at` values; default now. */
  now?: Date;
}

/** Rows per INSERT statement. */
const BATCH_SIZE = 1000;

const RESERVED_FIELDS = new Set(['row_id', 'created_at', 'updated_at']);
// Keys a Style B `table_data` carries beside the columns; a fixture may copy them from an API answer.
const TABLE_DATA_META = new Set(['row_id', '_captured_at']);

const COLLECTIONS = [
  'workspaces',
  'api_keys',
  'forms',
  'datatables',
  'responses',
  'email_events',
  'webhook_endpoints',
] as const;
type Collection = (typeof COLLECTIONS)[number];

// ---------------------------------------------------------------------------------------------
// Paths

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function prop(path: string, key: string): string {
  const base = path === '$' ? '' : path;
  if (IDENT.test(key)) return base === '' ? key : `${base}.${key}`;
  return `${base === '' ? '$' : base}[${JSON.stringify(key)}]`;
}

function idx(path: string, i: number): string {
  return `${path}[${i}]`;
}

/** `/responses/12/form_id` → `responses[12].form_id`; numeric segments become indexes. */
export function pointerToPath(pointer: string): string {
  if (pointer === '') return '$';
  let path = '$';
  for (const raw of pointer.slice(1).split('/')) {
    const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    path = /^(0|[1-9]\d*)$/.test(seg) ? idx(path === '$' ? '' : path, Number(seg)) : prop(path, seg);
  }
  return path;
}

// ---------------------------------------------------------------------------------------------
// Schema

let validator: ValidateFunction | undefined;

function schemaValidator(): ValidateFunction {
  if (!validator) {
    const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true });
    addFormats(ajv);
    validator = ajv.compile(FIXTURE_SCHEMA);
  }
  return validator;
}

function schemaProblem(e: ErrorObject): ImportProblem {
  const path = pointerToPath(e.instancePath);
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return { path: prop(path, String(p.missingProperty)), message: 'is required' };
    case 'additionalProperties':
      return { path: prop(path, String(p.additionalProperty)), message: 'is not an allowed property' };
    case 'enum':
      return {
        path,
        message: `must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`,
      };
    case 'format':
      return {
        path,
        message:
          p.format === 'date-time'
            ? 'must be an ISO 8601 date-time with an offset, e.g. "2026-11-22T10:15:30Z"'
            : `must be a valid ${String(p.format)}`,
      };
    case 'pattern':
      return { path, message: `must match ${String(p.pattern)}` };
    case 'propertyNames':
      return { path: prop(path, String(p.propertyName)), message: 'is not an allowed property name' };
    default:
      return { path, message: e.message ?? `fails ${e.keyword}` };
  }
}

/**
 * The item a schema error belongs to (`forms/3`, or `datatables/0/rows/7` for a row): its content is
 * not trusted, so the semantic checks skip it (its id still counts, so references to it do not cascade).
 */
function itemKey(pointer: string): string | undefined {
  const row = /^\/datatables\/(\d+)\/rows\/(\d+)(?:\/|$)/.exec(pointer);
  if (row) return `datatables/${row[1]}/rows/${row[2]}`;
  const m = /^\/([a-z_]+)\/(\d+)(?:\/|$)/.exec(pointer);
  return m ? `${m[1]}/${m[2]}` : undefined;
}

// ---------------------------------------------------------------------------------------------
// Values

const FIELD_TYPE_TEXT: Record<DatatableFieldType, string> = {
  string: 'a string',
  number: 'a number',
  boolean: 'true or false',
  date: 'a date "YYYY-MM-DD" or an ISO 8601 date-time with an offset',
  json: 'any JSON value',
};

/** The value of `data.id` as the generated `external_id` column holds it (`data ->> 'id'`). */
function externalId(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  return typeof v === 'string' ? v : JSON.stringify(v);
}

function iso(v: string | undefined, fallback: string): string {
  return v === undefined ? fallback : new Date(v).toISOString();
}

function slugify(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 100);
}

function ownKeys(o: Record<string, unknown> | undefined): string[] {
  return o ? Object.keys(o) : [];
}

// ---------------------------------------------------------------------------------------------
// Records as written (snake_case, jsonb as nested JSON, timestamps as ISO strings)

interface Column {
  name: string;
  type: string;
}

const COLUMNS: Record<string, Column[]> = {
  workspaces: [
    { name: 'id', type: 'text' },
    { name: 'name', type: 'text' },
    { name: 'link', type: 'text' },
    { name: 'created_at', type: 'timestamptz' },
  ],
  forms: [
    { name: 'workspace_id', type: 'text' },
    { name: 'id', type: 'text' },
    { name: 'name', type: 'text' },
    { name: 'default_language', type: 'text' },
    { name: 'translations', type: 'jsonb' },
    { name: 'score_question_id', type: 'text' },
    { name: 'created_at', type: 'timestamptz' },
    { name: 'updated_at', type: 'timestamptz' },
  ],
  questions: [
    { name: 'workspace_id', type: 'text' },
    { name: 'form_id', type: 'text' },
    { name: 'id', type: 'text' },
    { name: 'position', type: 'integer' },
    { name: 'type', type: 'text' },
    { name: 'title', type: 'text' },
    { name: 'required', type: 'boolean' },
    { name: 'options', type: 'jsonb' },
    { name: 'validation', type: 'jsonb' },
  ],
  datatables: [
    { name: 'workspace_id', type: 'text' },
    { name: 'id', type: 'text' },
    { name: 'name', type: 'text' },
    { name: 'created_at', type: 'timestamptz' },
    { name: 'updated_at', type: 'timestamptz' },
  ],
  datatable_fields: [
    { name: 'workspace_id', type: 'text' },
    { name: 'datatable_id', type: 'text' },
    { name: 'name', type: 'text' },
    { name: 'type', type: 'text' },
    { name: 'position', type: 'integer' },
  ],
  datatable_rows: [
    { name: 'workspace_id', type: 'text' },
    { name: 'datatable_id', type: 'text' },
    { name: 'row_id', type: 'text' },
    { name: 'data', type: 'jsonb' },
    { name: 'created_at', type: 'timestamptz' },
    { name: 'updated_at', type: 'timestamptz' },
  ],
  responses: [
    { name: 'workspace_id', type: 'text' },
    { name: 'id', type: 'text' },
    { name: 'form_id', type: 'text' },
    { name: 'score', type: 'double precision' },
    { name: 'version', type: 'integer' },
    { name: 'language', type: 'text' },
    { name: 'answers', type: 'jsonb' },
    { name: 'respondent_email', type: 'text' },
    { name: 'email_id', type: 'text' },
    { name: 'row_id', type: 'text' },
    { name: 'table_data', type: 'jsonb' },
    { name: 'table_data_captured_at', type: 'timestamptz' },
    { name: 'actionlists', type: 'jsonb' },
    { name: 'created_at', type: 'timestamptz' },
  ],
  email_events: [
    { name: 'workspace_id', type: 'text' },
    { name: 'id', type: 'text' },
    { name: 'email_id', type: 'text' },
    { name: 'email', type: 'text' },
    { name: 'type', type: 'text' },
    { name: 'row_id', type: 'text' },
    { name: 'form_id', type: 'text' },
    { name: 'flow_id', type: 'text' },
    { name: 'created_at', type: 'timestamptz' },
  ],
  webhook_endpoints: [
    { name: 'workspace_id', type: 'text' },
    { name: 'id', type: 'text' },
    { name: 'url', type: 'text' },
    { name: 'events', type: 'text[]' },
    { name: 'description', type: 'text' },
    { name: 'enabled', type: 'boolean' },
    { name: 'secret', type: 'text' },
    { name: 'created_at', type: 'timestamptz' },
    { name: 'updated_at', type: 'timestamptz' },
  ],
};

type Rec = Record<string, unknown>;

interface KeyPlan {
  id: string;
  name: string;
  /** Undefined: generated when the key is written. */
  secret: string | undefined;
  workspaceIds: string[];
  scopes: FixtureApiKey['scopes'];
  expiresAt: Date | null;
  revokedAt: Date | null;
  style: 'A' | 'B';
  rateLimitPerMinute: number | null;
  createdAt: Date;
}

interface Plan {
  tables: { table: string; records: Rec[] }[];
  keys: KeyPlan[];
  summary: Omit<ImportSummary, 'api_keys'>;
}

// ---------------------------------------------------------------------------------------------
// Checking

interface FormInfo {
  path: string;
  workspaceId: string;
  /** Undefined when the form itself has problems (responses to it are not checked further). */
  def: FormDefinition | undefined;
}

interface RowInfo {
  path: string;
  workspaceId: string;
  datatableId: string;
  /** Undefined when the row itself has problems. */
  data: Record<string, unknown> | undefined;
}

class Checker {
  readonly problems: ImportProblem[] = [];
  private readonly badItems = new Set<string>();

  constructor(
    private readonly db: Db | Knex.Transaction,
    private readonly doc: FixtureDocument,
    private readonly nowIso: string,
    badItems: Iterable<string>,
  ) {
    for (const k of badItems) this.badItems.add(k);
  }

  private problem(path: string, message: string): void {
    this.problems.push({ path, message });
  }

  private bad(collection: Collection, i: number): boolean {
    return this.badItems.has(`${collection}/${i}`);
  }

  private items<T>(collection: Collection): T[] {
    return ((this.doc as Record<string, unknown>)[collection] as T[] | undefined) ?? [];
  }

  /** Assigns ids (given or generated) and reports duplicates within the document. */
  private ids<T>(collection: Collection, kind: IdKind, label: string, getId: (item: T) => unknown): string[] {
    const first = new Map<string, number>();
    return this.items<T>(collection).map((item, i) => {
      const given = item && typeof item === 'object' ? getId(item) : undefined;
      if (typeof given !== 'string') return newId(kind);
      const prev = first.get(given);
      if (prev !== undefined) {
        this.problem(`${collection}[${i}].id`, `duplicate ${label} id "${given}" (first at ${collection}[${prev}])`);
      } else {
        first.set(given, i);
      }
      return given;
    });
  }

  /** The values of `column` among `values` that `table` already holds (any workspace). */
  private async existing(table: string, column: string, values: string[]): Promise<Set<string>> {
    if (values.length === 0) return new Set();
    // A join on unnest() (hash join) rather than `= any(array)`: linear whatever the sizes, on every
    // PostgreSQL version, even where the column has no index of its own.
    const { rows } = await this.db.raw<{ rows: { v: string }[] }>(
      'select distinct t.?? as v from ?? t join unnest(?::text[]) as x(v) on t.?? = x.v',
      [column, table, values, column],
    );
    return new Set(rows.map((r) => r.v));
  }

  async run(): Promise<Plan> {
    const wsItems = this.items<FixtureWorkspace>('workspaces');
    const keyItems = this.items<FixtureApiKey>('api_keys');
    const formItems = this.items<FixtureForm>('forms');
    const tableItems = this.items<FixtureDatatable>('datatables');
    const rspItems = this.items<FixtureResponse>('responses');
    const evItems = this.items<FixtureEmailEvent>('email_events');
    const whItems = this.items<FixtureWebhookEndpoint>('webhook_endpoints');

    const wsIds = this.ids<FixtureWorkspace>('workspaces', 'workspace', 'workspace', (w) => w.id);
    const keyIds = this.ids<FixtureApiKey>('api_keys', 'apiKey', 'API key', (k) => k.id);
    const formIds = this.ids<FixtureForm>('forms', 'form', 'form', (f) => f.id);
    const tableIds = this.ids<FixtureDatatable>('datatables', 'datatable', 'datatable', (t) => t.id);
    const rspIds = this.ids<FixtureResponse>('responses', 'response', 'response', (r) => r.id);
    const evIds = this.ids<FixtureEmailEvent>('email_events', 'emailEvent', 'email event', (e) => e.id);
    const whIds = this.ids<FixtureWebhookEndpoint>('webhook_endpoints', 'webhookEndpoint', 'webhook endpoint', (w) => w.id);

    // Row ids are unique per document (and per workspace in the database).
    const rowIds: string[][] = [];
    const firstRow = new Map<string, string>();
    tableItems.forEach((t, ti) => {
      const rows = t && Array.isArray(t.rows) ? t.rows : [];
      rowIds.push(
        rows.map((r, ri) => {
          const path = `datatables[${ti}].rows[${ri}]`;
          const given = r && typeof r === 'object' ? r.row_id : undefined;
          if (typeof given !== 'string') return newId('row');
          const prev = firstRow.get(given);
          if (prev !== undefined) this.problem(`${path}.row_id`, `duplicate row id "${given}" (first at ${prev})`);
          else firstRow.set(given, path);
          return given;
        }),
      );
    });

    // ---- what the database already holds
    const given = <T>(items: T[], get: (t: T) => unknown) =>
      items.map((t) => (t && typeof t === 'object' ? get(t) : undefined)).filter((v): v is string => typeof v === 'string');
    const [exWs, exForms, exTables, exRows, exRsp, exEv, exKeys, exWh] = await Promise.all([
      this.existing('workspaces', 'id', given(wsItems, (w) => w.id)),
      this.existing('forms', 'id', given(formItems, (f) => f.id)),
      this.existing('datatables', 'id', given(tableItems, (t) => t.id)),
      this.existing('datatable_rows', 'row_id', [...firstRow.keys()]),
      this.existing('responses', 'id', given(rspItems, (r) => r.id)),
      this.existing('email_events', 'id', given(evItems, (e) => e.id)),
      this.existing('api_keys', 'id', given(keyItems, (k) => k.id)),
      this.existing('webhook_endpoints', 'id', given(whItems, (w) => w.id)),
    ]);
    const report = (collection: Collection, label: string, ids: string[], ex: Set<string>) =>
      this.items<{ id?: unknown }>(collection).forEach((item, i) => {
        if (item && typeof item.id === 'string' && ex.has(ids[i]!)) {
          this.problem(`${collection}[${i}].id`, `${label} "${ids[i]}" already exists`);
        }
      });
    report('workspaces', 'workspace', wsIds, exWs);
    report('forms', 'form', formIds, exForms);
    report('datatables', 'datatable', tableIds, exTables);
    report('responses', 'response', rspIds, exRsp);
    report('email_events', 'email event', evIds, exEv);
    report('api_keys', 'API key', keyIds, exKeys);
    report('webhook_endpoints', 'webhook endpoint', whIds, exWh);
    for (const [rowId, path] of firstRow) {
      if (exRows.has(rowId)) this.problem(`${path}.row_id`, `row "${rowId}" already exists`);
    }

    // ---- workspaces
    const docWorkspaces = new Set(wsIds);
    const links = wsItems.map((w, i) =>
      this.bad('workspaces', i) ? undefined : (w.link ?? (slugify(w.name) || slugify(wsIds[i]!) || wsIds[i]!)),
    );
    const exLinks = await this.existing('workspaces', 'link', links.filter((l): l is string => l !== undefined));
    const firstLink = new Map<string, number>();
    const workspaces: Rec[] = [];
    wsItems.forEach((w, i) => {
      const link = links[i];
      if (link === undefined) return;
      const path = `workspaces[${i}].link`;
      const hint = w.link === undefined ? ' (derived from the name; give another "link")' : '';
      const prev = firstLink.get(link);
      if (prev !== undefined) this.problem(path, `duplicate link "${link}" (first at workspaces[${prev}])${hint}`);
      else firstLink.set(link, i);
      if (exLinks.has(link)) this.problem(path, `link "${link}" already exists${hint}`);
      const created = iso(w.created_at, this.nowIso);
      workspaces.push({ id: wsIds[i], name: w.name, link, created_at: created });
    });

    // Workspaces referenced but not in the document must exist in the database.
    const refWs = new Set<string>();
    const addRef = (v: unknown) => typeof v === 'string' && !docWorkspaces.has(v) && refWs.add(v);
    formItems.forEach((f) => addRef(f?.workspace_id));
    tableItems.forEach((t) => addRef(t?.workspace_id));
    evItems.forEach((e) => addRef(e?.workspace_id));
    whItems.forEach((w) => addRef(w?.workspace_id));
    keyItems.forEach((k) => (Array.isArray(k?.workspace_ids) ? k.workspace_ids.forEach(addRef) : undefined));
    const dbWs = await this.existing('workspaces', 'id', [...refWs]);
    const knownWs = (id: string) => docWorkspaces.has(id) || dbWs.has(id);
    const checkWs = (path: string, id: string): boolean => {
      if (knownWs(id)) return true;
      this.problem(path, `unknown workspace "${id}"`);
      return false;
    };

    // ---- forms and questions
    const forms: Rec[] = [];
    const questions: Rec[] = [];
    const formInfo = new Map<string, FormInfo>();
    formItems.forEach((f, i) => {
      const path = `forms[${i}]`;
      const id = formIds[i]!;
      if (this.bad('forms', i)) {
        if (typeof f?.workspace_id === 'string' && !formInfo.has(id)) {
          formInfo.set(id, { path, workspaceId: f.workspace_id, def: undefined });
        }
        return;
      }
      const before = this.problems.length;
      checkWs(`${path}.workspace_id`, f.workspace_id);
      const defaultLanguage = f.default_language ?? 'en';
      const qs = this.checkQuestions(path, f.questions ?? []);
      const translations = f.translations ?? {};
      this.checkTranslations(`${path}.translations`, translations, qs);
      const scoreQuestionId = f.score_question_id ?? null;
      if (scoreQuestionId !== null) {
        const sq = qs.find((q) => q.id === scoreQuestionId);
        if (!sq) this.problem(`${path}.score_question_id`, `unknown question "${scoreQuestionId}" in form "${id}"`);
        else if (!['nps', 'rating', 'number'].includes(sq.type)) {
          this.problem(`${path}.score_question_id`, `question "${scoreQuestionId}" is a ${sq.type} question; the score question must be nps, rating or number`);
        }
      }
      const ok = this.problems.length === before;
      if (!formInfo.has(id)) {
        formInfo.set(id, {
          path,
          workspaceId: f.workspace_id,
          def: ok ? { id, defaultLanguage, questions: qs, translations, scoreQuestionId } : undefined,
        });
      }
      const created = iso(f.created_at, this.nowIso);
      forms.push({
        workspace_id: f.workspace_id,
        id,
        name: f.name,
        default_language: defaultLanguage,
        translations,
        score_question_id: scoreQuestionId,
        created_at: created,
        updated_at: iso(f.updated_at, created),
      });
      qs.forEach((q, position) =>
        questions.push({
          workspace_id: f.workspace_id,
          form_id: id,
          id: q.id,
          position,
          type: q.type,
          title: q.title,
          required: q.required,
          options: q.options,
          validation: q.validation,
        }),
      );
    });

    // ---- datatables, fields, rows
    const datatables: Rec[] = [];
    const fields: Rec[] = [];
    const rows: Rec[] = [];
    const rowInfo = new Map<string, RowInfo>();
    tableItems.forEach((t, i) => {
      const path = `datatables[${i}]`;
      const id = tableIds[i]!;
      if (this.bad('datatables', i)) {
        if (t && typeof t.workspace_id === 'string') {
          rowIds[i]!.forEach((rowId, ri) => {
            if (!rowInfo.has(rowId)) {
              rowInfo.set(rowId, { path: `${path}.rows[${ri}]`, workspaceId: t.workspace_id, datatableId: id, data: undefined });
            }
          });
        }
        return;
      }
      checkWs(`${path}.workspace_id`, t.workspace_id);
      const types = new Map<string, DatatableFieldType>();
      (t.fields ?? []).forEach((fd, fi) => {
        const fpath = `${path}.fields[${fi}].name`;
        if (RESERVED_FIELDS.has(fd.name)) {
          this.problem(fpath, `"${fd.name}" is reserved (row_id, created_at and updated_at are row metadata)`);
        } else if (types.has(fd.name)) {
          this.problem(fpath, `duplicate field "${fd.name}"`);
        } else {
          types.set(fd.name, fd.type);
          fields.push({ workspace_id: t.workspace_id, datatable_id: id, name: fd.name, type: fd.type, position: fi });
        }
      });
      const created = iso(t.created_at, this.nowIso);
      datatables.push({
        workspace_id: t.workspace_id,
        id,
        name: t.name,
        created_at: created,
        updated_at: iso(t.updated_at, created),
      });
      const firstExternal = new Map<string, number>();
      (t.rows ?? []).forEach((r, ri) => {
        const rpath = `${path}.rows[${ri}]`;
        const rowId = rowIds[i]![ri]!;
        if (this.badItems.has(`datatables/${i}/rows/${ri}`)) {
          if (!rowInfo.has(rowId)) rowInfo.set(rowId, { path: rpath, workspaceId: t.workspace_id, datatableId: id, data: undefined });
          return;
        }
        const before = this.problems.length;
        for (const [col, v] of Object.entries(r.data)) {
          const cpath = prop(`${rpath}.data`, col);
          const type = types.get(col);
          if (type === undefined) {
            this.problem(cpath, `unknown column "${col}": not a field of datatable "${id}"`);
          } else if (columnTypeProblem(type, v) !== undefined) {
            this.problem(cpath, `must be ${FIELD_TYPE_TEXT[type]} (field type ${type}); got ${JSON.stringify(v)}`);
          }
        }
        const ext = externalId(r.data.id);
        if (ext !== undefined) {
          const prev = firstExternal.get(ext);
          if (prev !== undefined) {
            this.problem(`${rpath}.data.id`, `duplicate data.id ${JSON.stringify(ext)} in datatable "${id}" (first at ${path}.rows[${prev}])`);
          } else {
            firstExternal.set(ext, ri);
          }
        }
        const rowCreated = iso(r.created_at, this.nowIso);
        const rowUpdated = iso(r.updated_at, rowCreated);
        if (rowUpdated < rowCreated) this.problem(`${rpath}.updated_at`, 'must not be before created_at');
        if (!rowInfo.has(rowId)) {
          rowInfo.set(rowId, {
            path: rpath,
            workspaceId: t.workspace_id,
            datatableId: id,
            data: this.problems.length === before ? r.data : undefined,
          });
        }
        rows.push({
          workspace_id: t.workspace_id,
          datatable_id: id,
          row_id: rowId,
          data: r.data,
          created_at: rowCreated,
          updated_at: rowUpdated,
        });
      });
    });

    // ---- responses: forms and rows not in the document come from the database
    const missingForms = new Set<string>();
    const missingRows = new Set<string>();
    rspItems.forEach((r) => {
      if (typeof r?.form_id === 'string' && !formInfo.has(r.form_id)) missingForms.add(r.form_id);
      if (typeof r?.row_id === 'string' && !rowInfo.has(r.row_id)) missingRows.add(r.row_id);
    });
    const dbForms = new Map<string, { workspaceId: string; def: FormDefinition }[]>();
    for (const f of await formDefinitionsFromDb(this.db, [...missingForms])) {
      const { workspaceId, ...def } = f;
      dbForms.set(f.id, [...(dbForms.get(f.id) ?? []), { workspaceId, def }]);
    }
    const dbRows = new Map<string, { workspaceId: string; data: Record<string, unknown> }[]>();
    if (missingRows.size > 0) {
      const { rows: found } = await this.db.raw<{ rows: { workspace_id: string; row_id: string; data: Record<string, unknown> }[] }>(
        'select r.workspace_id, r.row_id, r.data from datatable_rows r join unnest(?::text[]) as x(v) on r.row_id = x.v',
        [[...missingRows]],
      );
      for (const row of found) {
        dbRows.set(row.row_id, [...(dbRows.get(row.row_id) ?? []), { workspaceId: row.workspace_id, data: row.data }]);
      }
    }

    const responses: Rec[] = [];
    rspItems.forEach((r, i) => {
      if (this.bad('responses', i)) return;
      const path = `responses[${i}]`;
      let workspaceId: string | undefined;
      let def: FormDefinition | undefined;
      const docForm = formInfo.get(r.form_id);
      if (docForm) {
        workspaceId = docForm.workspaceId;
        def = docForm.def;
      } else {
        const matches = dbForms.get(r.form_id) ?? [];
        if (matches.length === 0) {
          this.problem(`${path}.form_id`, `unknown form "${r.form_id}"`);
        } else if (matches.length > 1) {
          this.problem(
            `${path}.form_id`,
            `form id "${r.form_id}" is ambiguous: it exists in workspaces ${matches.map((m) => `"${m.workspaceId}"`).join(', ')}`,
          );
        } else {
          workspaceId = matches[0]!.workspaceId;
          def = matches[0]!.def;
        }
      }

      const rowId = r.row_id ?? null;
      let tableData: Record<string, unknown> | null = null;
      if (r.table_data !== undefined && r.table_data !== null) {
        if (rowId === null) this.problem(`${path}.table_data`, 'is only allowed with a row_id');
        tableData = Object.fromEntries(Object.entries(r.table_data).filter(([k]) => !TABLE_DATA_META.has(k)));
      }
      if (rowId !== null && workspaceId !== undefined) {
        const docRow = rowInfo.get(rowId);
        const candidates = docRow ? [{ workspaceId: docRow.workspaceId, data: docRow.data }] : (dbRows.get(rowId) ?? []);
        const row = candidates.find((c) => c.workspaceId === workspaceId);
        if (candidates.length === 0) {
          this.problem(`${path}.row_id`, `unknown row "${rowId}"`);
        } else if (!row) {
          this.problem(`${path}.row_id`, `row "${rowId}" is not in workspace "${workspaceId}" of form "${r.form_id}"`);
        } else if (tableData === null && row.data !== undefined) {
          tableData = row.data;
        }
      }

      const hasEmail = r.respondent_email !== undefined && r.respondent_email !== null;
      const hasEmailId = r.email_id !== undefined && r.email_id !== null;
      if (hasEmail !== hasEmailId) {
        this.problem(
          `${path}.${hasEmail ? 'email_id' : 'respondent_email'}`,
          'respondent_email and email_id must both be set or both be null',
        );
      }

      const language = r.language ?? def?.defaultLanguage ?? 'en';
      let answers: StoredAnswer[] = [];
      if (def) {
        // History: required questions left out of an old response are not a problem (enforceRequired false).
        const rendered = validateAnswers(def, r.answers ?? [], { language, path: `${path}.answers`, enforceRequired: false });
        rendered.problems.forEach((p) => this.problem(p.field, p.message));
        answers = rendered.answers;
      }
      const created = iso(r.created_at, this.nowIso);
      responses.push({
        workspace_id: workspaceId,
        id: rspIds[i],
        form_id: r.form_id,
        score: r.score,
        version: r.version ?? 1,
        language,
        answers,
        respondent_email: r.respondent_email ?? null,
        email_id: r.email_id ?? null,
        row_id: rowId,
        table_data: rowId === null ? null : tableData,
        table_data_captured_at: rowId === null ? null : created,
        actionlists: r.actionlists ?? [],
        created_at: created,
      });
    });

    // ---- email events
    const emailEvents: Rec[] = [];
    evItems.forEach((e, i) => {
      if (this.bad('email_events', i)) return;
      checkWs(`email_events[${i}].workspace_id`, e.workspace_id);
      emailEvents.push({
        workspace_id: e.workspace_id,
        id: evIds[i],
        email_id: e.email_id,
        email: e.email,
        type: e.type,
        row_id: e.row_id ?? null,
        form_id: e.form_id ?? null,
        flow_id: e.flow_id ?? null,
        created_at: iso(e.created_at, this.nowIso),
      });
    });

    // ---- webhook endpoints
    const webhooks: Rec[] = [];
    whItems.forEach((w, i) => {
      if (this.bad('webhook_endpoints', i)) return;
      const path = `webhook_endpoints[${i}]`;
      checkWs(`${path}.workspace_id`, w.workspace_id);
      if (w.secret !== undefined && !/^whsec_[A-Za-z0-9+/]+={0,2}$/.test(w.secret)) {
        this.problem(`${path}.secret`, 'must be "whsec_" followed by base64 (the key that signs deliveries)');
      }
      const created = iso(w.created_at, this.nowIso);
      webhooks.push({
        workspace_id: w.workspace_id,
        id: whIds[i],
        url: w.url,
        events: [...new Set(w.events)],
        description: w.description ?? null,
        enabled: w.enabled ?? true,
        secret: w.secret ?? generateWebhookSecret(),
        created_at: created,
        updated_at: iso(w.updated_at, created),
      });
    });

    // ---- API keys
    const keys: KeyPlan[] = [];
    const firstSecret = new Map<string, number>();
    const givenHashes = keyItems.map((k, i) =>
      !this.bad('api_keys', i) && k.secret !== undefined ? hashApiKeySecret(k.secret) : undefined,
    );
    const exHashes = await this.existing('api_keys', 'key_hash', givenHashes.filter((h): h is string => h !== undefined));
    keyItems.forEach((k, i) => {
      if (this.bad('api_keys', i)) return;
      const path = `api_keys[${i}]`;
      k.workspace_ids.forEach((w, wi) => checkWs(`${path}.workspace_ids[${wi}]`, w));
      if (k.secret !== undefined) {
        if (!k.secret.startsWith(API_KEY_PREFIX) || k.secret.length <= API_KEY_PREFIX.length) {
          this.problem(`${path}.secret`, `must start with "${API_KEY_PREFIX}" followed by the secret`);
        }
        const prev = firstSecret.get(k.secret);
        if (prev !== undefined) this.problem(`${path}.secret`, `same secret as api_keys[${prev}]`);
        else firstSecret.set(k.secret, i);
        if (exHashes.has(givenHashes[i]!)) this.problem(`${path}.secret`, 'this secret is already used by another key');
      }
      keys.push({
        id: keyIds[i]!,
        name: k.name,
        secret: k.secret,
        workspaceIds: [...new Set(k.workspace_ids)],
        scopes: k.scopes,
        expiresAt: k.expires_at ? new Date(k.expires_at) : null,
        revokedAt: k.revoked_at ? new Date(k.revoked_at) : null,
        style: k.style ?? 'A',
        rateLimitPerMinute: k.rate_limit_per_minute ?? null,
        createdAt: new Date(k.created_at ?? this.nowIso),
      });
    });

    const summary: Plan['summary'] = {
      workspaces: workspaces.length,
      forms: forms.length,
      questions: questions.length,
      datatables: datatables.length,
      rows: rows.length,
      responses: responses.length,
      email_events: emailEvents.length,
    };
    if (this.doc.webhook_endpoints !== undefined) summary.webhook_endpoints = webhooks.length;
    return {
      tables: [
        { table: 'workspaces', records: workspaces },
        { table: 'forms', records: forms },
        { table: 'questions', records: questions },
        { table: 'datatables', records: datatables },
        { table: 'datatable_fields', records: fields },
        { table: 'datatable_rows', records: rows },
        { table: 'responses', records: responses },
        { table: 'email_events', records: emailEvents },
        { table: 'webhook_endpoints', records: webhooks },
      ],
      keys,
      summary,
    };
  }

  /** Questions with defaults applied; reports duplicate ids and options that do not fit the type. */
  private checkQuestions(formPath: string, items: NonNullable<FixtureForm['questions']>): FormQuestion[] {
    const seen = new Map<string, number>();
    return items.map((q, qi) => {
      const path = `${formPath}.questions[${qi}]`;
      const id = q.id ?? newId('question');
      const prev = seen.get(id);
      if (prev !== undefined) this.problem(`${path}.id`, `duplicate question id "${id}" (first at ${formPath}.questions[${prev}])`);
      else seen.set(id, qi);

      const choice = q.type === 'single_choice' || q.type === 'multiple_choice';
      const options = q.options ?? [];
      if (choice && options.length === 0) {
        this.problem(`${path}.options`, `a ${q.type} question needs at least one option`);
      } else if (!choice && options.length > 0) {
        this.problem(`${path}.options`, `only choice questions have options (this one is ${q.type})`);
      }
      const optionIds = new Map<string, number>();
      options.forEach((o, oi) => {
        const p = optionIds.get(o.id);
        if (p !== undefined) this.problem(`${path}.options[${oi}].id`, `duplicate option id "${o.id}" (first at ${path}.options[${p}])`);
        else optionIds.set(o.id, oi);
      });

      const validation: QuestionValidation = { ...defaultValidation(q.type), ...(q.validation ?? {}) };
      const numeric = q.type === 'number' || q.type === 'rating' || q.type === 'nps';
      if (q.validation && !numeric && (q.validation.min !== undefined || q.validation.max !== undefined)) {
        this.problem(`${path}.validation`, `min and max apply to number, rating and nps questions only (this one is ${q.type})`);
      }
      if (validation.min !== undefined && validation.max !== undefined && validation.min > validation.max) {
        this.problem(`${path}.validation`, `min (${validation.min}) is greater than max (${validation.max})`);
      }
      return { id, type: q.type, title: q.title, required: q.required ?? false, options, validation };
    });
  }

  /** Every translated question and option must exist in the form. */
  private checkTranslations(path: string, translations: NonNullable<FixtureForm['translations']>, qs: FormQuestion[]): void {
    const byId = new Map(qs.map((q) => [q.id, q]));
    for (const lang of Object.keys(translations)) {
      const lpath = prop(path, lang);
      for (const qid of ownKeys(translations[lang])) {
        const qpath = prop(lpath, qid);
        const q = byId.get(qid);
        if (!q) {
          this.problem(qpath, `unknown question "${qid}"`);
          continue;
        }
        for (const oid of ownKeys(translations[lang]![qid]!.options)) {
          if (!q.options.some((o) => o.id === oid)) this.problem(prop(`${qpath}.options`, oid), `unknown option "${oid}" of question "${qid}"`);
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Writing

async function insertBatch(trx: Knex.Transaction, table: string, records: Rec[]): Promise<void> {
  const columns = COLUMNS[table]!;
  const names = columns.map((c) => c.name);
  const list = names.map(() => '??').join(', ');
  // Types come from COLUMNS above, never from the document.
  const defs = columns.map((c) => `?? ${c.type}`).join(', ');
  await trx.raw(`insert into ?? (${list}) select ${list} from jsonb_to_recordset(?::jsonb) as x(${defs})`, [
    table,
    ...names,
    ...names,
    JSON.stringify(records),
    ...names,
  ]);
}

async function write(db: Db, plan: Plan, onProgress: ImportOptions['onProgress']): Promise<ImportSummary> {
  const total = plan.tables.reduce((n, t) => n + t.records.length, 0) + plan.keys.length;
  let done = 0;
  onProgress?.(done, total);
  return withTransaction(db, async (trx) => {
    for (const { table, records } of plan.tables) {
      for (let start = 0; start < records.length; start += BATCH_SIZE) {
        const batch = records.slice(start, start + BATCH_SIZE);
        await insertBatch(trx, table, batch);
        done += batch.length;
        onProgress?.(done, total);
      }
    }
    const apiKeys: ImportSummary['api_keys'] = [];
    for (const k of plan.keys) {
      const created = await createApiKey(trx, {
        id: k.id,
        name: k.name,
        secret: k.secret,
        workspaceIds: k.workspaceIds,
        scopes: k.scopes,
        expiresAt: k.expiresAt,
        revokedAt: k.revokedAt,
        style: k.style,
        rateLimitPerMinute: k.rateLimitPerMinute,
        createdAt: k.createdAt,
      });
      apiKeys.push({ id: created.id, secret: created.secret, workspace_ids: created.workspaceIds });
      done += 1;
      onProgress?.(done, total);
    }
    return { ...plan.summary, api_keys: apiKeys };
  });
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Checks a fixture document without writing anything.
 * @returns every problem (empty when the document can be imported as it is, against the database now).
 * Spec: CONTRACT section 9.
 */
export async function checkFixture(db: Db, doc: unknown): Promise<ImportProblem[]> {
  try {
    await plan(db, doc, new Date());
    return [];
  } catch (e) {
    if (e instanceof ImportError) return e.problems;
    throw e;
  }
}

async function plan(db: Db, doc: unknown, now: Date): Promise<Plan> {
  const validate = schemaValidator();
  const problems: ImportProblem[] = [];
  const badItems = new Set<string>();
  if (!validate(doc)) {
    for (const e of validate.errors ?? []) {
      problems.push(schemaProblem(e));
      const key = itemKey(e.instancePath);
      if (key) badItems.add(key);
    }
  }
  // A document whose top level is not the expected object of arrays cannot be checked further.
  const structural =
    !isPlainObject(doc) ||
    COLLECTIONS.some((c) => (doc as Record<string, unknown>)[c] !== undefined && !Array.isArray((doc as Record<string, unknown>)[c]));
  if (structural) throw new ImportError(problems);

  const checker = new Checker(db, doc as FixtureDocument, now.toISOString(), badItems);
  const planned = await checker.run();
  problems.push(...checker.problems);
  if (problems.length > 0) throw new ImportError(inDocumentOrder(dedupe(problems), doc as Record<string, unknown>));
  return planned;
}

function dedupe(problems: ImportProblem[]): ImportProblem[] {
  const seen = new Set<string>();
  return problems.filter((p) => {
    const k = `${p.path}\u0000${p.message}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** Problems grouped by item, items in document order (the checks run by kind, not by item). */
function inDocumentOrder(problems: ImportProblem[], doc: Record<string, unknown>): ImportProblem[] {
  const keys = Object.keys(doc);
  const rank = (path: string): [number, number] => {
    const m = /^([A-Za-z_$][\w$]*)(?:\[(\d+)\])?/.exec(path);
    return m ? [keys.indexOf(m[1]!), m[2] === undefined ? -1 : Number(m[2])] : [-1, -1];
  };
  return problems
    .map((p, i) => ({ p, i, k: rank(p.path) }))
    .sort((a, b) => a.k[0] - b.k[0] || a.k[1] - b.k[1] || a.i - b.i)
    .map((x) => x.p);
}

/**
 * Imports a fixture document (CONTRACT section 9) in ONE transaction.
 *
 * Everything is checked before anything is written: the JSON Schema, duplicate ids in the document,
 * ids (and workspace links, key secrets) that already exist in the database, references (workspaces,
 * forms, rows; those not in the document must be in the database), answers (rendered in the
 * response's language), row columns against their fields, the email pair. Absent ids are generated,
 * absent `created_at` is `opts.now`, absent `updated_at` is `created_at`.
 * @returns counts of the records written and, per API key, its id, clear secret and workspaces.
 * @throws ImportError with every problem (`{path, message}`, path like `responses[12].form_id`);
 * the database is unchanged. A write that still fails (a concurrent writer took an id) is rolled back
 * and reported as an ImportError at `$`.
 */
export async function importFixture(db: Db, doc: unknown, opts: ImportOptions = {}): Promise<ImportSummary> {
  const planned = await plan(db, doc, opts.now ?? new Date());
  try {
    return await write(db, planned, opts.onProgress);
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    if (code === '23505' || code === '23503') {
      throw new ImportError([{ path: '$', message: `the database rejected the import: ${(e as Error).message}` }]);
    }
    throw e;
  }
}
