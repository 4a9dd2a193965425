import { ALL_SCOPES } from '../../../src/core/scopes';
import { createHash } from 'node:crypto';
import { nanoid } from 'nanoid';
import type { FixtureDocument } from '../../../src/core/import/fixture-schema';
import { checkFixture, ImportError, importFixture, type ImportProblem } from '../../../src/core/import/importer';
import { buildDemoFixture, DEMO_RESPONSE_COUNT } from '../../../src/core/seed/demo';
import type { Db } from '../../../src/db/connection';
import { openTestDb } from '../../support/db';

let db: Db;
beforeAll(async () => {
  db = await openTestDb();
});
afterAll(async () => {
  await db.destroy();
});

/** A unique suffix: every id of a test's fixture is its own. */
const unique = () => nanoid(10).replace(/[-_]/g, 'x').toLowerCase();

/** A small valid document: one workspace, a translated NPS form, a datatable, three responses, events, a key. */
function validFixture(u: string): FixtureDocument {
  return {
    workspaces: [{ id: `ws_${u}`, name: `Acme ${u}`, link: `acme-${u}` }],
    api_keys: [
      {
        id: `key_${u}`,
        name: 'CI',
        secret: `fa_${u}_${'s'.repeat(32)}`,
        workspace_ids: [`ws_${u}`],
        scopes: ['responses:read'],
        expires_at: null,
        revoked_at: null,
        style: 'B',
        rate_limit_per_minute: 600,
      },
      { name: 'generated', workspace_ids: [`ws_${u}`] },
    ],
    forms: [
      {
        id: `frm_${u}`,
        workspace_id: `ws_${u}`,
        name: 'NPS',
        default_language: 'en',
        created_at: '2026-01-01T00:00:00Z',
        questions: [
          { id: 'q_score', type: 'nps', title: 'How likely?', required: true },
          {
            id: 'q_plan',
            type: 'single_choice',
            title: 'Plan?',
            options: [
              { id: 'opt_pro', value: 'Pro' },
              { id: 'opt_basic', value: 'Basic' },
            ],
          },
          { id: 'q_stars', type: 'rating', title: 'Stars?' },
          { id: 'q_mail', type: 'email', title: 'Mail?' },
          { id: 'q_text', type: 'text', title: 'Why?' },
        ],
        translations: { de: { q_plan: { title: 'Tarif?', options: { opt_pro: 'Profi' } } } },
      },
    ],
    datatables: [
      {
        id: `tbl_${u}`,
        workspace_id: `ws_${u}`,
        name: 'Customers',
        fields: [
          { name: 'id', type: 'string' },
          { name: 'plan', type: 'string' },
          { name: 'seats', type: 'number' },
          { name: 'active', type: 'boolean' },
          { name: 'since', type: 'date' },
          { name: 'meta', type: 'json' },
        ],
        rows: [
          {
            row_id: `row_${u}_1`,
            data: { id: 'c-1', plan: 'pro', seats: 5, active: true, since: '2024-02-29', meta: [1, 2] },
            created_at: '2026-01-01T00:00:00Z',
            updated_at: '2026-01-02T00:00:00Z',
          },
          { row_id: `row_${u}_2`, data: { id: 'c-2', plan: 'basic', since: '2025-03-01T10:00:00+02:00' } },
        ],
      },
    ],
    responses: [
      {
        id: `rsp_${u}_1`,
        form_id: `frm_${u}`,
        score: 9,
        version: 1,
        language: 'de',
        created_at: '2026-02-01T10:00:00+01:00',
        row_id: `row_${u}_1`,
        respondent_email: 'a@example.com',
        email_id: `em_${u}_1`,
        answers: [
          { question_id: 'q_score', value: 9 },
          { question_id: 'q_plan', value: { id: 'opt_pro', value: 'ignored' } },
        ],
        actionlists: [{ actionlist_id: 'al_1', triggered_score: 9, triggers: ['promoter'] }],
      },
      {
        id: `rsp_${u}_2`,
        form_id: `frm_${u}`,
        score: 3,
        created_at: '2026-02-02T00:00:00Z',
        row_id: `row_${u}_2`,
        table_data: { id: 'c-2', plan: 'pro', row_id: `row_${u}_2`, _captured_at: '2026-01-01T00:00:00Z' },
        answers: [{ question_id: 'q_score', value: 3 }],
      },
      { form_id: `frm_${u}`, score: 3, created_at: '2026-02-03T00:00:00Z' },
    ],
    email_events: [
      { id: `ev_${u}_1`, workspace_id: `ws_${u}`, email_id: `em_${u}_1`, email: 'a@example.com', type: 'send', created_at: '2026-02-01T08:00:00Z' },
      { workspace_id: `ws_${u}`, email_id: `em_${u}_1`, email: 'a@example.com', type: 'open', form_id: `frm_${u}`, row_id: `row_${u}_1` },
    ],
  };
}

/** Row counts of everything a fixture for workspace `ws` can write. */
async function countsFor(ws: string[], keyIds: string[]): Promise<Record<string, number>> {
  const count = async (table: string, column = 'workspace_id', values = ws) =>
    Number((await db(table).whereIn(column, values).count<{ n: string }[]>({ n: '*' }))[0]!.n);
  return {
    workspaces: await count('workspaces', 'id'),
    forms: await count('forms'),
    questions: await count('questions'),
    datatables: await count('datatables'),
    fields: await count('datatable_fields'),
    rows: await count('datatable_rows'),
    responses: await count('responses'),
    response_counts: await count('response_counts'),
    email_events: await count('email_events'),
    api_keys: await count('api_keys', 'id', keyIds),
    api_key_workspaces: await count('api_key_workspaces'),
  };
}

async function problemsOf(doc: unknown): Promise<ImportProblem[]> {
  try {
    await importFixture(db, doc);
  } catch (e) {
    if (e instanceof ImportError) return e.problems;
    throw e;
  }
  throw new Error('the import succeeded');
}

describe('importFixture', () => {
  it('imports a valid document: rendered answers, captured table data, counters, defaults', async () => {
    const u = unique();
    const progress: Array<[number, number]> = [];
    const summary = await importFixture(db, validFixture(u), {
      now: new Date('2026-03-01T00:00:00Z'),
      onProgress: (done, total) => progress.push([done, total]),
    });

    expect(summary).toMatchObject({
      workspaces: 1,
      forms: 1,
      questions: 5,
      datatables: 1,
      rows: 2,
      responses: 3,
      email_events: 2,
    });
    expect(summary).not.toHaveProperty('webhook_endpoints');
    expect(summary.api_keys).toHaveLength(2);
    expect(summary.api_keys[0]).toEqual({ id: `key_${u}`, secret: `fa_${u}_${'s'.repeat(32)}`, workspace_ids: [`ws_${u}`] });
    expect(summary.api_keys[1]!.secret).toMatch(/^fa_[A-Za-z0-9_-]{32,}$/);
    expect(summary.api_keys[1]!.id).toMatch(/^key_/);
    const last = progress[progress.length - 1]!;
    expect(last[0]).toBe(last[1]);

    const [r1, r2, r3] = await db('responses').where('workspace_id', `ws_${u}`).orderBy('created_at');
    expect(r1).toMatchObject({
      id: `rsp_${u}_1`,
      language: 'de',
      score: 9,
      version: 1,
      respondent_email: 'a@example.com',
      email_id: `em_${u}_1`,
      row_id: `row_${u}_1`,
      answers: [
        { question_id: 'q_score', type: 'nps', title: 'How likely?', value: 9, reporting_label: 'How likely?' },
        { question_id: 'q_plan', type: 'single_choice', title: 'Tarif?', value: { id: 'opt_pro', value: 'Profi' }, reporting_label: 'Plan?' },
      ],
      // Captured from the row at import: the row's columns only.
      table_data: { id: 'c-1', plan: 'pro', seats: 5, active: true, since: '2024-02-29', meta: [1, 2] },
      actionlists: [{ actionlist_id: 'al_1', triggered_score: 9, triggers: ['promoter'] }],
    });
    expect(r1.created_at.toISOString()).toBe('2026-02-01T09:00:00.000Z');
    expect(r1.table_data_captured_at.toISOString()).toBe('2026-02-01T09:00:00.000Z');
    // Given table_data is kept as given, without the presentation keys.
    expect(r2.table_data).toEqual({ id: 'c-2', plan: 'pro' });
    expect(r2.language).toBe('en');
    expect(r2.actionlists).toEqual([]);
    expect(r3.id).toMatch(/^rsp_/);
    expect(r3).toMatchObject({ row_id: null, table_data: null, table_data_captured_at: null, answers: [] });

    const counts = await db('response_counts').where('workspace_id', `ws_${u}`).orderBy('score');
    expect(counts.map((c) => [c.form_id, c.score, Number(c.responses)])).toEqual([
      [`frm_${u}`, 3, 2],
      [`frm_${u}`, 9, 1],
    ]);
    expect(Number((await db('datatables').where('id', `tbl_${u}`).first()).row_count)).toBe(2);

    const questions = await db('questions').where('form_id', `frm_${u}`).orderBy('position');
    expect(questions.map((q) => [q.id, q.position, q.validation])).toEqual([
      ['q_score', 0, { min: 0, max: 10 }],
      ['q_plan', 1, {}],
      ['q_stars', 2, { min: 1, max: 5 }],
      ['q_mail', 3, { format: 'email' }],
      ['q_text', 4, {}],
    ]);
    expect(questions[1].options).toEqual([
      { id: 'opt_pro', value: 'Pro' },
      { id: 'opt_basic', value: 'Basic' },
    ]);
    const form = await db('forms').where('id', `frm_${u}`).first();
    expect(form.translations).toEqual({ de: { q_plan: { title: 'Tarif?', options: { opt_pro: 'Profi' } } } });
    expect(form.updated_at.toISOString()).toBe('2026-01-01T00:00:00.000Z');

    const row2 = await db('datatable_rows').where('row_id', `row_${u}_2`).first();
    expect(row2.created_at.toISOString()).toBe('2026-03-01T00:00:00.000Z');
    expect(row2.updated_at.toISOString()).toBe('2026-03-01T00:00:00.000Z');
    const fields = await db('datatable_fields').where('datatable_id', `tbl_${u}`).orderBy('position');
    expect(fields.map((f) => `${f.name}:${f.type}`)).toEqual(['id:string', 'plan:string', 'seats:number', 'active:boolean', 'since:date', 'meta:json']);

    const events = await db('email_events').where('workspace_id', `ws_${u}`).orderBy('created_at');
    expect(events.map((e) => [e.type, e.email_id, e.form_id, e.row_id])).toEqual([
      ['send', `em_${u}_1`, null, null],
      ['open', `em_${u}_1`, `frm_${u}`, `row_${u}_1`],
    ]);
  });

  it('stores API keys hashed only, with their workspaces, scopes and options', async () => {
    const u = unique();
    const doc = validFixture(u);
    const secret = doc.api_keys![0]!.secret!;
    const summary = await importFixture(db, { workspaces: doc.workspaces, api_keys: doc.api_keys });

    const key = await db('api_keys').where('id', `key_${u}`).first();
    expect(key).toMatchObject({
      name: 'CI',
      key_hash: createHash('sha256').update(secret).digest('hex'),
      prefix: secret.slice(0, 8),
      scopes: ['responses:read'],
      style: 'B',
      rate_limit_per_minute: 600,
      expires_at: null,
      revoked_at: null,
    });
    expect(Object.values(key).map(String)).not.toContain(secret);
    const generated = await db('api_keys').where('id', summary.api_keys[1]!.id).first();
    expect(generated.scopes).toHaveLength(ALL_SCOPES.length);
    expect(generated.key_hash).toBe(createHash('sha256').update(summary.api_keys[1]!.secret).digest('hex'));
    const links = await db('api_key_workspaces').whereIn('api_key_id', [`key_${u}`, summary.api_keys[1]!.id]);
    expect(links).toHaveLength(2);
  });

  it('imports webhook endpoints when the document has them, with a generated signing secret', async () => {
    const u = unique();
    const doc = validFixture(u);
    const summary = await importFixture(db, {
      workspaces: doc.workspaces,
      webhook_endpoints: [{ id: `we_${u}`, workspace_id: `ws_${u}`, url: 'https://example.com/hook', events: ['response.created', 'row.updated'] }],
    });
    expect(summary.webhook_endpoints).toBe(1);
    const hook = await db('webhook_endpoints').where('id', `we_${u}`).first();
    expect(hook).toMatchObject({ workspace_id: `ws_${u}`, events: ['response.created', 'row.updated'], enabled: true, description: null });
    expect(hook.secret).toMatch(/^whsec_/);
  });

  it('links responses to forms and rows already in the database and captures the stored row', async () => {
    const u = unique();
    const first = validFixture(u);
    await importFixture(db, { workspaces: first.workspaces, forms: first.forms, datatables: first.datatables });

    const summary = await importFixture(db, {
      responses: [
        {
          id: `rsp_${u}_later`,
          form_id: `frm_${u}`,
          score: 10,
          row_id: `row_${u}_2`,
          answers: [{ question_id: 'q_plan', value: { id: 'opt_basic' } }],
        },
      ],
    });
    expect(summary.responses).toBe(1);
    const r = await db('responses').where('id', `rsp_${u}_later`).first();
    expect(r).toMatchObject({
      workspace_id: `ws_${u}`,
      table_data: { id: 'c-2', plan: 'basic', since: '2025-03-01T10:00:00+02:00' },
      answers: [{ question_id: 'q_plan', type: 'single_choice', title: 'Plan?', value: { id: 'opt_basic', value: 'Basic' }, reporting_label: 'Plan?' }],
    });
  });

  it('reports every problem with its path and writes nothing', async () => {
    const existing = unique();
    await importFixture(db, validFixture(existing));
    const u = unique();
    const before = await countsFor([`ws_${u}`, `ws_${existing}`], [`key_${u}`, `key_${existing}`]);

    const doc = validFixture(u);
    doc.forms!.push({ id: `frm_${existing}`, workspace_id: `ws_${u}`, name: 'Taken' });
    doc.responses![0]!.form_id = 'frm_x';
    doc.responses![1]!.answers = [
      { question_id: 'q_score', value: 11 },
      { question_id: 'q_plan', value: { id: 'opt_gold' } },
    ];
    doc.responses!.push({ ...doc.responses![1]!, answers: [] });
    doc.responses![3]!.respondent_email = 'b@example.com';
    doc.datatables![0]!.fields!.push({ name: 'created_at', type: 'date' });
    doc.datatables![0]!.rows![1]!.data = { id: 'c-1', seats: 'many', colour: 'red' };
    doc.email_events![0]!.workspace_id = 'ws_nowhere';
    doc.api_keys![0]!.secret = 'sk_live_123';
    doc.api_keys![1]!.workspace_ids = [`ws_${u}`, `ws_${existing}`, 'ws_missing'];

    const problems = await problemsOf(doc);
    expect(problems).toEqual(
      expect.arrayContaining([
        { path: 'forms[1].id', message: `form "frm_${existing}" already exists` },
        { path: 'responses[0].form_id', message: 'unknown form "frm_x"' },
        { path: 'responses[1].answers[0].value', message: expect.stringMatching(/from 0 to 10; got 11/) },
        { path: 'responses[1].answers[1].value', message: `unknown option "opt_gold" of question "q_plan"` },
        { path: 'responses[3].id', message: `duplicate response id "rsp_${u}_2" (first at responses[1])` },
        { path: 'responses[3].email_id', message: 'respondent_email and email_id must both be set or both be null' },
        { path: 'datatables[0].fields[6].name', message: expect.stringMatching(/"created_at" is reserved/) },
        { path: 'datatables[0].rows[1].data.seats', message: expect.stringMatching(/must be a number/) },
        { path: 'datatables[0].rows[1].data.colour', message: `unknown column "colour": not a field of datatable "tbl_${u}"` },
        { path: 'datatables[0].rows[1].data.id', message: expect.stringMatching(/duplicate data.id "c-1"/) },
        { path: 'email_events[0].workspace_id', message: 'unknown workspace "ws_nowhere"' },
        { path: 'api_keys[0].secret', message: expect.stringMatching(/must start with "fa_"/) },
        { path: 'api_keys[1].workspace_ids[2]', message: 'unknown workspace "ws_missing"' },
      ]),
    );
    expect(problems).toHaveLength(13);
    expect(await countsFor([`ws_${u}`, `ws_${existing}`], [`key_${u}`, `key_${existing}`])).toEqual(before);
  });

  it('reports ids that already exist in the database, each at its path', async () => {
    const u = unique();
    const doc = validFixture(u);
    await importFixture(db, doc);
    const problems = await problemsOf(doc);
    expect(problems).toEqual(
      expect.arrayContaining([
        { path: 'workspaces[0].id', message: `workspace "ws_${u}" already exists` },
        { path: 'workspaces[0].link', message: `link "acme-${u}" already exists` },
        { path: 'forms[0].id', message: `form "frm_${u}" already exists` },
        { path: 'datatables[0].id', message: `datatable "tbl_${u}" already exists` },
        { path: 'datatables[0].rows[0].row_id', message: `row "row_${u}_1" already exists` },
        { path: 'responses[0].id', message: `response "rsp_${u}_1" already exists` },
        { path: 'email_events[0].id', message: `email event "ev_${u}_1" already exists` },
        { path: 'api_keys[0].id', message: `API key "key_${u}" already exists` },
        { path: 'api_keys[0].secret', message: 'this secret is already used by another key' },
      ]),
    );
  });

  it('reports schema errors with document paths, and still checks the sound items', async () => {
    const u = unique();
    const doc = validFixture(u) as unknown as Record<string, unknown>;
    const responses = doc.responses as Record<string, unknown>[];
    delete responses[0]!.form_id;
    responses[1]!.created_at = '2026-02-02 00:00';
    responses[2]!.colour = 'red';
    responses.push({ form_id: 'frm_unknown', score: 1 });
    doc.extra = true;

    const problems = await problemsOf(doc);
    // In document order: `extra` is the document's last property.
    expect(problems).toEqual([
      { path: 'responses[0].form_id', message: 'is required' },
      { path: 'responses[1].created_at', message: expect.stringMatching(/ISO 8601 date-time with an offset/) },
      { path: 'responses[2].colour', message: 'is not an allowed property' },
      { path: 'responses[3].form_id', message: 'unknown form "frm_unknown"' },
      { path: 'extra', message: 'is not an allowed property' },
    ]);
    expect(await db('workspaces').where('id', `ws_${u}`)).toHaveLength(0);
  });

  it('rejects a row of another workspace and a document that is not an object', async () => {
    const a = unique();
    const b = unique();
    await importFixture(db, validFixture(a));
    const doc = validFixture(b);
    doc.responses = [{ form_id: `frm_${b}`, score: 5, row_id: `row_${a}_1` }];
    expect(await problemsOf(doc)).toEqual([{ path: 'responses[0].row_id', message: `row "row_${a}_1" is not in workspace "ws_${b}" of form "frm_${b}"` }]);
    expect(await problemsOf([1, 2])).toEqual([{ path: '$', message: 'must be object' }]);
    expect(await problemsOf({ responses: {} })).toEqual([{ path: 'responses', message: 'must be array' }]);
  });
});

describe('buildDemoFixture', () => {
  const now = new Date('2026-11-22T12:00:00.000Z');
  const doc = buildDemoFixture(now);

  it('is deterministic for a seed', () => {
    expect(JSON.stringify(buildDemoFixture(now))).toBe(JSON.stringify(doc));
    expect(JSON.stringify(buildDemoFixture(now, 7))).not.toBe(JSON.stringify(doc));
  });

  it('has the data set of docs/import.md, "The demo data set"', () => {
    expect(doc.workspaces!.map((w) => w.link)).toEqual(['acme', 'globex']);
    expect(doc.forms!.length).toBeGreaterThanOrEqual(5);
    expect(doc.api_keys).toBeUndefined();
    const responses = doc.responses!;
    expect(responses).toHaveLength(DEMO_RESPONSE_COUNT);
    const oldest = now.getTime() - 90 * 86_400_000;
    for (const r of responses) {
      const t = Date.parse(r.created_at!);
      expect(t >= oldest && t <= now.getTime()).toBe(true);
    }
    const acme = doc.workspaces![0]!.id;
    const formWs = new Map(doc.forms!.map((f) => [f.id, f.workspace_id]));
    expect(responses.filter((r) => formWs.get(r.form_id) === acme).length).toBeGreaterThan(DEMO_RESPONSE_COUNT / 2);
    const viaEmail = responses.filter((r) => r.email_id).length / responses.length;
    expect(viaEmail).toBeGreaterThan(0.28);
    expect(viaEmail).toBeLessThan(0.39);
    expect(responses.filter((r) => r.row_id).length).toBeGreaterThan(1000);
    expect(responses.some((r) => (r.actionlists ?? []).length > 0)).toBe(true);

    const translated = doc.forms!.filter((f) => Object.keys(f.translations ?? {}).length > 0);
    expect(translated).toHaveLength(1);
    for (const lang of ['de', 'fr']) {
      for (const q of translated[0]!.questions!) {
        expect(translated[0]!.translations![lang]![q.id!]!.title).toBeTruthy();
        for (const o of q.options ?? []) expect(translated[0]!.translations![lang]![q.id!]!.options![o.id]).toBeTruthy();
      }
    }
    expect(new Set(responses.filter((r) => r.form_id === translated[0]!.id).map((r) => r.language))).toEqual(new Set(['en', 'de', 'fr']));

    const customers = doc.datatables!.find((t) => t.name === 'Customers')!;
    expect(customers.fields!.map((f) => `${f.name}:${f.type}`)).toEqual([
      'id:string',
      'name:string',
      'email:string',
      'plan:string',
      'seats:number',
      'active:boolean',
      'signup_date:date',
    ]);
    expect(customers.rows!.length).toBeGreaterThanOrEqual(250);
    expect(doc.datatables!.find((t) => t.name === 'Accounts')!.workspace_id).toBe(doc.workspaces![1]!.id);

    const emailIds = new Set(responses.map((r) => r.email_id).filter(Boolean));
    expect(new Set(doc.email_events!.map((e) => e.type))).toEqual(new Set(['send', 'delivery', 'open', 'click', 'bounce', 'complaint', 'unsubscribe']));
    for (const e of doc.email_events!) expect(emailIds.has(e.email_id)).toBe(true);
  });

  it('passes every check of the importer', async () => {
    expect(await checkFixture(db, doc)).toEqual([]);
  });
});
