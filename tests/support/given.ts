/**
 * Test data factories. Every call makes a fresh workspace with unique ids (nanoid), imported through
 * the real importer, so tests never share or depend on each other's data.
 */
import { nanoid } from 'nanoid';
import type { FixtureDocument, FixtureForm, FixtureResponse } from '../../src/core/import/fixture-schema';
import { importFixture } from '../../src/core/import/importer';
import type { Scope } from '../../src/core/scopes';
import type { Db } from '../../src/db/connection';

export const uid = (prefix: string) => `${prefix}_${nanoid(10).replace(/[-_]/g, 'x')}`;

export interface KeyOptions {
  scopes?: Scope[];
  style?: 'A' | 'B';
  rateLimitPerMinute?: number;
  expiresAt?: string | null;
  revokedAt?: string | null;
}

/** The fixture record of a key on `workspaceIds` with `options`; `name` only labels it. */
function apiKey(name: string, secret: string, workspaceIds: string[], options: KeyOptions) {
  return {
    name,
    secret,
    workspace_ids: workspaceIds,
    ...(options.scopes ? { scopes: options.scopes } : {}),
    ...(options.style ? { style: options.style } : {}),
    ...(options.rateLimitPerMinute ? { rate_limit_per_minute: options.rateLimitPerMinute } : {}),
    expires_at: options.expiresAt ?? null,
    revoked_at: options.revokedAt ?? null,
  };
}

/** A workspace and a key on it. */
export async function workspaceWithKey(db: Db, key: KeyOptions = {}): Promise<{ ws: string; key: string }> {
  const ws = uid('ws');
  const secret = `fa_${nanoid(40)}`;
  await importFixture(db, {
    workspaces: [{ id: ws, name: `Workspace ${ws}`, link: ws.toLowerCase().replace(/_/g, '-') }],
    api_keys: [apiKey('test', secret, [ws], key)],
  });
  return { ws, key: secret };
}

/** Adds a key with other options to existing workspaces. */
export async function keyFor(db: Db, workspaceIds: string[], key: KeyOptions = {}): Promise<string> {
  const secret = `fa_${nanoid(40)}`;
  await importFixture(db, { api_keys: [apiKey('extra', secret, workspaceIds, key)] });
  return secret;
}

/**
 * Every question type, for the collect tests: `q_nps` is the score question (the first nps),
 * `q_plan` the only required one; German titles for three questions.
 */
export function everyTypeForm(ws: string, id: string, extra: Partial<FixtureForm> = {}): FixtureForm {
  return {
    id,
    workspace_id: ws,
    name: `Every type ${id}`,
    default_language: 'en',
    questions: [
      { id: 'q_nps', type: 'nps', title: 'How likely?', required: false },
      {
        id: 'q_plan',
        type: 'single_choice',
        title: 'Plan?',
        required: true,
        options: [
          { id: 'opt_pro', value: 'Pro' },
          { id: 'opt_basic', value: 'Basic' },
        ],
      },
      {
        id: 'q_feat',
        type: 'multiple_choice',
        title: 'Features?',
        options: [
          { id: 'opt_sso', value: 'SSO' },
          { id: 'opt_api', value: 'API' },
        ],
      },
      { id: 'q_text', type: 'text', title: 'Why?' },
      { id: 'q_email', type: 'email', title: 'Email?' },
      { id: 'q_num', type: 'number', title: 'Team size?', validation: { min: 1, max: 100 } },
      { id: 'q_rating', type: 'rating', title: 'Stars?' },
      { id: 'q_date', type: 'date', title: 'Start?' },
    ],
    translations: {
      de: {
        q_nps: { title: 'Wie wahrscheinlich?' },
        q_plan: { title: 'Tarif?', options: { opt_pro: 'Profi', opt_basic: 'Basis' } },
        q_feat: { title: 'Funktionen?', options: { opt_api: 'Schnittstelle' } },
      },
    },
    ...extra,
  };
}

/** A complete, valid Style A answer set for `everyTypeForm`. */
export const goodAnswers = () => [
  { question_id: 'q_nps', value: 9 },
  { question_id: 'q_plan', value: { id: 'opt_pro', value: 'ignored text' } },
  { question_id: 'q_feat', value: [{ id: 'opt_api' }, 'opt_sso'] },
  { question_id: 'q_text', value: 'Great support' },
  { question_id: 'q_email', value: 'a@example.com' },
  { question_id: 'q_num', value: 12.5 },
  { question_id: 'q_rating', value: 4 },
  { question_id: 'q_date', value: '2024-02-29' },
];

/** The questions of `surveyForm`, every type with human titles, as the hosted page shows them. */
export const SURVEY_QUESTIONS = [
  { id: 'q_nps', type: 'nps', title: 'How likely are you to recommend us?', required: true },
  { id: 'q_rating', type: 'rating', title: 'How do you rate the support?', required: true },
  {
    id: 'q_plan',
    type: 'single_choice',
    title: 'Which plan do you use?',
    required: true,
    options: [
      { id: 'opt_basic', value: 'Basic' },
      { id: 'opt_pro', value: 'Pro' },
    ],
  },
  {
    id: 'q_features',
    type: 'multiple_choice',
    title: 'Which features do you use?',
    options: [
      { id: 'opt_reports', value: 'Reports' },
      { id: 'opt_api', value: 'API' },
      { id: 'opt_export', value: 'Export' },
    ],
  },
  { id: 'q_seats', type: 'number', title: 'How many seats?', validation: { min: 1, max: 500 } },
  { id: 'q_since', type: 'date', title: 'Customer since' },
  { id: 'q_email', type: 'email', title: 'Your email' },
  { id: 'q_comment', type: 'text', title: 'Anything else?' },
] as const;

/** The "Customer survey" form for the hosted page and email-link tests, German titles for three questions. */
export function surveyForm(ws: string, id: string): FixtureForm {
  return {
    id,
    workspace_id: ws,
    name: 'Customer survey',
    default_language: 'en',
    questions: SURVEY_QUESTIONS.map((q) => ({ ...q })) as never,
    translations: {
      de: {
        q_nps: { title: 'Wie wahrscheinlich empfehlen Sie uns weiter?' },
        q_plan: { title: 'Welchen Tarif nutzen Sie?', options: { opt_basic: 'Basis', opt_pro: 'Profi' } },
        q_comment: { title: 'Sonst noch etwas?' },
      },
    },
  };
}

export interface FormWorkspace {
  ws: string;
  key: string;
  /** The form made by `form` (default `everyTypeForm`). */
  form: string;
  /** The "Customers" datatable (`id`, `plan`) and its one row, data `{ id: 'c-<row>', plan: 'pro' }`. */
  table: string;
  row: string;
}

/**
 * A workspace and key (`key` options) with one form, `form(ws, id)` (default `everyTypeForm`), the
 * forms `forms(ws)` returns, and a "Customers" datatable with one row to link responses to.
 */
export async function formWorkspace(
  db: Db,
  opts: { key?: KeyOptions; form?: (ws: string, id: string) => FixtureForm; forms?: (ws: string) => FixtureForm[] } = {},
): Promise<FormWorkspace> {
  const { ws, key } = await workspaceWithKey(db, opts.key);
  const form = uid('frm');
  const table = uid('tbl');
  const row = uid('row');
  await importFixture(db, {
    forms: [(opts.form ?? everyTypeForm)(ws, form), ...(opts.forms?.(ws) ?? [])],
    datatables: [
      {
        id: table,
        workspace_id: ws,
        name: 'Customers',
        fields: [
          { name: 'id', type: 'string' },
          { name: 'plan', type: 'string' },
        ],
        rows: [{ row_id: row, data: { id: `c-${row}`, plan: 'pro' } }],
      },
    ],
  });
  return { ws, key, form, table, row };
}

export interface Scenario {
  ws: string;
  key: string;
  nps: string;
  csat: string;
  table: string;
  rows: string[];
  responses: Array<Required<Pick<FixtureResponse, 'id' | 'form_id' | 'score' | 'created_at'>> & FixtureResponse>;
  emailIds: string[];
  events: Array<{ id: string; email_id: string; email: string; type: string; created_at: string }>;
}

/**
 * A realistic workspace: a translated NPS form and a CSAT form, a datatable with typed fields and
 * rows, `responseCount` responses (every third pair shares one created_at, to test keyset ties),
 * some linked to rows and email links, and email events of several types.
 */
export async function scenario(db: Db, opts: { responseCount?: number; key?: KeyOptions } = {}): Promise<Scenario> {
  const { ws, key } = await workspaceWithKey(db, opts.key);
  const nps = uid('frm');
  const csat = uid('frm');
  const table = uid('tbl');
  const rows = Array.from({ length: 5 }, () => uid('row'));
  const base = Date.parse('2026-01-10T12:00:00.000Z');
  const n = opts.responseCount ?? 30;
  const responses: Scenario['responses'] = [];
  const emailIds: string[] = [];
  for (let i = 0; i < n; i++) {
    const form = i % 3 === 2 ? csat : nps;
    // Pairs of responses share a timestamp: the id tie-breaker must order them.
    const created = new Date(base + Math.floor(i / 2) * 3_600_000).toISOString();
    const score = form === nps ? i % 11 : (i % 5) + 1;
    const emailId = i % 4 === 0 ? uid('em') : null;
    if (emailId) emailIds.push(emailId);
    responses.push({
      id: uid('rsp'),
      form_id: form,
      score,
      created_at: created,
      language: form === nps && i % 2 === 1 ? 'de' : 'en',
      row_id: i % 5 === 0 ? rows[i % rows.length]! : null,
      respondent_email: emailId ? `person${i}@example.com` : null,
      email_id: emailId,
      answers:
        form === nps
          ? [
              { question_id: 'q_score', value: score },
              { question_id: 'q_plan', value: { id: i % 2 ? 'opt_pro' : 'opt_basic' } },
            ]
          : [{ question_id: 'q_csat', value: score }],
      actionlists: score <= 3 ? [{ actionlist_id: 'al_detractor', triggered_score: score, triggers: ['detractor'] }] : [],
    });
  }
  const types = ['send', 'delivery', 'open', 'click', 'bounce', 'complaint', 'unsubscribe'];
  const events = emailIds.flatMap((emailId, i) =>
    types.slice(0, 3 + (i % 5)).map((type, j) => ({
      id: uid('ev'),
      email_id: emailId,
      email: i % 2 ? `Person${i}@Example.com` : `person${i}@example.com`,
      type,
      created_at: new Date(base + i * 86_400_000 + j * 60_000).toISOString(),
    })),
  );
  const doc: FixtureDocument = {
    forms: [
      {
        id: nps,
        workspace_id: ws,
        name: 'NPS',
        default_language: 'en',
        created_at: '2026-01-01T00:00:00.000Z',
        questions: [
          { id: 'q_score', type: 'nps', title: 'How likely are you to recommend us?', required: true },
          {
            id: 'q_plan',
            type: 'single_choice',
            title: 'Plan?',
            options: [
              { id: 'opt_basic', value: 'Basic' },
              { id: 'opt_pro', value: 'Pro' },
            ],
          },
        ],
        translations: { de: { q_score: { title: 'Wie wahrscheinlich…?' }, q_plan: { title: 'Tarif?', options: { opt_pro: 'Profi', opt_basic: 'Basis' } } } },
      },
      {
        id: csat,
        workspace_id: ws,
        name: 'CSAT',
        created_at: '2026-01-02T00:00:00.000Z',
        questions: [{ id: 'q_csat', type: 'rating', title: 'How satisfied are you?' }],
      },
    ],
    datatables: [
      {
        id: table,
        workspace_id: ws,
        name: 'Customers',
        fields: [
          { name: 'id', type: 'string' },
          { name: 'plan', type: 'string' },
          { name: 'seats', type: 'number' },
          { name: 'active', type: 'boolean' },
        ],
        rows: rows.map((row_id, i) => ({
          row_id,
          data: { id: `c-${i}`, plan: i % 2 ? 'pro' : 'basic', seats: (i + 1) * 5, active: i % 2 === 0 },
          created_at: new Date(base + i * 1000).toISOString(),
        })),
      },
    ],
    responses,
    email_events: events.map((e) => ({ ...e, workspace_id: ws, type: e.type as never, form_id: nps, row_id: null, flow_id: null })),
  };
  await importFixture(db, doc);
  return { ws, key, nps, csat, table, rows, responses, emailIds, events };
}

/** Responses sorted as the API sorts them by default (created_at desc, id desc). */
export function newestFirst<T extends { created_at: string; id: string }>(items: T[]): T[] {
  return [...items].sort((a, b) => (a.created_at === b.created_at ? (a.id < b.id ? 1 : -1) : a.created_at < b.created_at ? 1 : -1));
}
