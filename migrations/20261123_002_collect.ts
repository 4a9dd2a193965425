/**
 * Collecting responses (issue 7; docs/import.md, "The fixture document"; docs/collecting.md, "Score"): a form may name the question whose
 * answer is the score (`score_question_id`; absent: the first nps, else the first rating question).
 * No foreign key: questions are keyed (workspace, form, id) and a form's questions are replaced as a
 * whole; the submission path falls back to the default rule when the id names no question.
 */
import type { Knex } from 'knex';
import { runSqlScript } from './sql-script';

const SQL_UP = String.raw`
ALTER TABLE forms ADD COLUMN IF NOT EXISTS score_question_id text;
`;

const SQL_DOWN = String.raw`
ALTER TABLE forms DROP COLUMN IF EXISTS score_question_id;
`;

export async function up(knex: Knex): Promise<void> {
  await runSqlScript(knex, SQL_UP);
}

export async function down(knex: Knex): Promise<void> {
  await runSqlScript(knex, SQL_DOWN);
}
