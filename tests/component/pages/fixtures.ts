/**
 * A workspace with a form of every question type (translated into German) and a datatable row, for
 * the hosted page and email-link tests (component and browser).
 */
import { importFixture } from '../../../src/core/import/importer';
import type { Db } from '../../../src/platform/db/connection';
import { uid, workspaceWithKey } from '../../support/given';

export interface PageScenario {
  ws: string;
  key: string;
  form: string;
  table: string;
  row: string;
}

export const QUESTIONS = [
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

export async function pageScenario(db: Db): Promise<PageScenario> {
  const { ws, key } = await workspaceWithKey(db);
  const form = uid('frm');
  const table = uid('tbl');
  const row = uid('row');
  await importFixture(db, {
    forms: [
      {
        id: form,
        workspace_id: ws,
        name: 'Customer survey',
        default_language: 'en',
        questions: QUESTIONS.map((q) => ({ ...q })) as never,
        translations: {
          de: {
            q_nps: { title: 'Wie wahrscheinlich empfehlen Sie uns weiter?' },
            q_plan: { title: 'Welchen Tarif nutzen Sie?', options: { opt_basic: 'Basis', opt_pro: 'Profi' } },
            q_comment: { title: 'Sonst noch etwas?' },
          },
        },
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
        ],
        rows: [{ row_id: row, data: { id: 'c-1', plan: 'pro' } }],
      },
    ],
  });
  return { ws, key, form, table, row };
}
