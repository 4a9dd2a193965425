/**
 * Filters on answers (docs/api-rules.md, "Filters on answers"; src/core/responses/answer-filter.ts).
 *
 * - `responses_answers_idx`: a GIN index over `responses.answers` with the `jsonb_path_ops` operator class. An
 *   answer filter's equality (`answers.q_plan = opt_pro`, a rating `in [1, 2]`) and its "answered" test are jsonb
 *   containment on the answers array (`answers @> '[{"question_id": "q_plan", "value": {"id": "opt_pro"}}]'`), which
 *   this index answers by question and value at once; the planner ANDs it with the keyset indexes' workspace and
 *   form. `jsonb_path_ops` indexes only containment, so it is smaller than the default class, and keeps the
 *   cost a write pays small (GIN's pending list batches the inserts).
 */
import type { Knex } from 'knex';
import { runSqlScript } from './sql-script';

const SQL_UP = String.raw`
CREATE INDEX IF NOT EXISTS responses_answers_idx ON responses USING gin (answers jsonb_path_ops);
`;

const SQL_DOWN = String.raw`
DROP INDEX IF EXISTS responses_answers_idx;
`;

export async function up(knex: Knex): Promise<void> {
  await runSqlScript(knex, SQL_UP);
}

export async function down(knex: Knex): Promise<void> {
  await runSqlScript(knex, SQL_DOWN);
}
