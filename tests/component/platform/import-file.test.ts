/**
 * `import FILE` on documents read in passes (docs/import.md, "Running an import"; docs/import.md, "Streaming, reading and writing"): any key order, stdin, several
 * COPY batches, a problem deep in the file, and the counters the statement-level triggers keep.
 * The CLI runs as a child process (the JSON scanner's stream is the CLI's).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { nanoid } from 'nanoid';
import { useTestApp } from '../../support/app';
import { cli } from '../../support/cli';

jest.setTimeout(120_000);

const t = useTestApp();
let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'feedback-import-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const unique = () => nanoid(10).replace(/[-_]/g, 'x').toLowerCase();

/** A document with `n` responses over two forms, an API key, and its parts in the given key order. */
function document(u: string, n: number, order: string[]): { text: string; key: string; forms: string[] } {
  const ws = `ws_${u}`;
  const forms = [`frm_${u}_a`, `frm_${u}_b`];
  const parts: Record<string, unknown> = {
    workspaces: [{ id: ws, name: `Import ${u}`, link: `import-${u}` }],
    api_keys: [{ name: 'reader', secret: `fa_${u}_${'k'.repeat(32)}`, workspace_ids: [ws] }],
    forms: forms.map((id) => ({ id, workspace_id: ws, name: id, questions: [{ id: 'q_score', type: 'nps', title: 'How likely?' }] })),
    datatables: [
      {
        id: `tbl_${u}`,
        workspace_id: ws,
        name: 'Customers',
        rows: [{ row_id: `row_${u}`, data: { id: 'c-1', plan: 'pro "gold"\n' } }],
        fields: [
          { name: 'id', type: 'string' },
          { name: 'plan', type: 'string' },
        ],
      },
    ],
    responses: Array.from({ length: n }, (_, i) => ({
      id: `rsp_${u}_${i}`,
      form_id: forms[i % 2],
      score: i % 11,
      created_at: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(),
      ...(i === 0 ? { row_id: `row_${u}` } : {}),
      answers: [{ question_id: 'q_score', value: i % 11 }],
    })),
    email_events: [{ workspace_id: ws, email_id: `em_${u}`, email: 'a@example.com', type: 'open' }],
  };
  const doc = Object.fromEntries(order.map((k) => [k, parts[k]]));
  return { text: JSON.stringify(doc, null, 1), key: `fa_${u}_${'k'.repeat(32)}`, forms };
}

const ALL_KEYS = ['responses', 'email_events', 'datatables', 'forms', 'api_keys', 'workspaces'];

/** Style B `meta.total` of the workspace's responses, and Style A summary totals per form. */
async function totals(u: string, key: string, forms: string[]): Promise<{ total: number; perForm: number[] }> {
  const list = await t.http().get(`/api/v1/workspaces/ws_${u}/responses?limit=1`).set('X-API-Key', key).set('X-API-Style', 'B');
  const perForm = await Promise.all(
    forms.map(async (f) => (await t.http().get(`/api/v1/workspaces/ws_${u}/forms/${f}/analytics/summary`).set('X-API-Key', key)).body.data.total_responses),
  );
  return { total: list.body.meta.total, perForm };
}

/** Rows of `sql` (one query with `?` for the workspace id), sorted, for comparing a counter table with a recount. */
async function rows(sql: string, ws: string): Promise<string[]> {
  const { rows: found } = await t.db.raw<{ rows: Record<string, unknown>[] }>(sql, [ws]);
  return found.map((r) => JSON.stringify(Object.values(r).map(String))).sort();
}

/** Each counter table the triggers keep, and the same numbers counted from `responses`. */
const COUNTERS: [string, string][] = [
  [
    'select form_id, score, responses from response_counts where workspace_id = ? and responses <> 0',
    'select form_id, score, count(*) from responses where workspace_id = ? group by 1, 2',
  ],
  [
    'select form_id, day, responses, score_sum from response_daily where workspace_id = ? and responses <> 0',
    "select form_id, (created_at at time zone 'UTC')::date, count(*), sum(score::numeric) from responses where workspace_id = ? group by 1, 2",
  ],
  [
    'select form_id, day, score, responses from response_day_counts where workspace_id = ? and responses <> 0',
    "select form_id, (created_at at time zone 'UTC')::date, score, count(*) from responses where workspace_id = ? group by 1, 2, 3",
  ],
  [
    'select form_id, day, question_id, value_key, answers from answer_rollups where workspace_id = ? and answers <> 0',
    `select r.form_id, (r.created_at at time zone 'UTC')::date, k.question_id, k.value_key, count(*)
       from responses r cross join lateral response_answer_keys(r.answers) k where r.workspace_id = ? group by 1, 2, 3, 4`,
  ],
];

describe('import of a file read in passes', () => {
  it('imports a document whose responses come before their forms, rows and workspace', async () => {
    const u = unique();
    const { text, key, forms } = document(u, 7, ALL_KEYS);
    const file = path.join(dir, `reversed-${u}.json`);
    fs.writeFileSync(file, text);

    const run = await cli(['import', file]);

    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ workspaces: 1, forms: 2, questions: 2, datatables: 1, rows: 1, responses: 7, email_events: 1 });
    const first = await t
      .db('responses')
      .where({ workspace_id: `ws_${u}`, id: `rsp_${u}_0` })
      .first();
    expect(first.table_data).toEqual({ id: 'c-1', plan: 'pro "gold"\n' });
    expect(await totals(u, key, forms)).toEqual({ total: 7, perForm: [4, 3] });
  });

  it('imports from stdin in several batches and keeps the counters right', async () => {
    const u = unique();
    const { text, key, forms } = document(u, 12_001, ['workspaces', 'api_keys', 'forms', 'datatables', 'responses', 'email_events']);

    const run = await cli(['import', '-'], text);

    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ responses: 12_001, email_events: 1 });
    expect(await totals(u, key, forms)).toEqual({ total: 12_001, perForm: [6001, 6000] });
    const counts = await t.db('response_counts').where('workspace_id', `ws_${u}`).sum<{ n: string }[]>({ n: 'responses' });
    expect(Number(counts[0]!.n)).toBe(12_001);
    const daily = await t.db('response_daily').where('workspace_id', `ws_${u}`).sum<{ n: string }[]>({ n: 'responses' });
    expect(Number(daily[0]!.n)).toBe(12_001);
    for (const [kept, recount] of COUNTERS) expect(await rows(kept, `ws_${u}`)).toEqual(await rows(recount, `ws_${u}`));
  });

  it('reports a bad response deep in a big file with its path and writes nothing', async () => {
    const u = unique();
    const doc = JSON.parse(document(u, 12_000, ['workspaces', 'forms', 'responses']).text);
    doc.responses[11_500].answers[0].value = 42;
    const file = path.join(dir, `deep-${u}.json`);
    fs.writeFileSync(file, JSON.stringify(doc));

    const run = await cli(['import', file]);

    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('responses[11500].answers[0].value: must be an integer from 0 to 10; got 42\n');
    expect(await t.db('workspaces').where('id', `ws_${u}`)).toHaveLength(0);
    expect(await t.db('responses').where('workspace_id', `ws_${u}`)).toHaveLength(0);
    expect(await t.db('response_counts').where('workspace_id', `ws_${u}`)).toHaveLength(0);
  });
});
