/**
 * Factories for the collect tests: a workspace with a key and a form holding every question type
 * (translated to German), a datatable with one row, imported through the real importer.
 */
import { nanoid } from 'nanoid';
import type { FixtureForm } from '../../../src/core/import/fixture-schema';
import { importFixture } from '../../../src/core/import/importer';
import type { Db } from '../../../src/platform/db/connection';
import { uid, type KeyOptions } from '../../support/given';

export interface CollectWorkspace {
  ws: string;
  key: string;
  form: string;
  table: string;
  row: string;
}

/** Every question type; `q_nps` is the score question (first nps), `q_plan` is required. */
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

/** A workspace, a key, the every-type form and a datatable row to link. */
export async function collectWorkspace(db: Db, key: KeyOptions = {}, forms: (ws: string) => FixtureForm[] = () => []): Promise<CollectWorkspace> {
  const ws = uid('ws');
  const form = uid('frm');
  const table = uid('tbl');
  const row = uid('row');
  const secret = `fa_${nanoid(40)}`;
  await importFixture(db, {
    workspaces: [{ id: ws, name: `Workspace ${ws}`, link: ws.toLowerCase().replace(/_/g, '-') }],
    api_keys: [
      {
        name: 'collect',
        secret,
        workspace_ids: [ws],
        ...(key.scopes ? { scopes: key.scopes } : {}),
        ...(key.style ? { style: key.style } : {}),
        expires_at: null,
        revoked_at: null,
      },
    ],
    forms: [everyTypeForm(ws, form), ...forms(ws)],
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
  return { ws, key: secret, form, table, row };
}

/** A complete, valid Style A answer set for the every-type form. */
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
