/**
 * Per-question analytics and time series (docs/analytics.md, "Per-question analytics"; docs/analytics.md, "Time series"): every value checked against values
 * computed in the test from the responses it created, over imports, direct SQL inserts (the stand-in
 * for submissions and backfills), updates, deletes and deleted linked rows.
 */
import type { FixtureQuestion } from '../../../src/core/import/fixture-schema';
import { importFixture } from '../../../src/core/import/importer';
import { useTestApp } from '../../support/app';
import { uid, workspaceWithKey } from '../../support/given';
import { expectedQuestions, expectedTimeseries, type RawResponse } from './expected';

const ctx = useTestApp();

const QUESTIONS: FixtureQuestion[] = [
  { id: 'q_nps', type: 'nps', title: 'How likely are you to recommend us?', required: true },
  {
    id: 'q_plan',
    type: 'single_choice',
    title: 'Plan?',
    options: [
      { id: 'opt_basic', value: 'Basic' },
      { id: 'opt_pro', value: 'Pro' },
      { id: 'opt_team', value: 'Team' },
    ],
  },
  {
    id: 'q_feat',
    type: 'multiple_choice',
    title: 'Features used?',
    options: [
      { id: 'f_a', value: 'Alerts' },
      { id: 'f_b', value: 'Boards' },
      { id: 'f_c', value: 'Charts' },
    ],
  },
  { id: 'q_rate', type: 'rating', title: 'Rate us' },
  { id: 'q_num', type: 'number', title: 'Seats?' },
  { id: 'q_text', type: 'text', title: 'Anything else?' },
  { id: 'q_date', type: 'date', title: 'Since when?' },
];

const TRANSLATIONS = {
  de: {
    q_nps: { title: 'Wie wahrscheinlich…?' },
    q_plan: { title: 'Tarif?', options: { opt_basic: 'Basis', opt_pro: 'Profi', opt_team: 'Gruppe' } },
    q_feat: { title: 'Funktionen?', options: { f_a: 'Alarme', f_b: 'Tafeln', f_c: 'Diagramme' } },
  },
};

/** Responses over several days (Jan 2026), both languages, NPS values 0/6/7/8/9/10, optional questions skipped. */
function makeResponses(formId: string, n: number, startIso = '2026-01-03T00:00:00.000Z'): Array<RawResponse & { form_id: string }> {
  const npsValues = [0, 6, 7, 8, 9, 10, 3, 10, 9, 7];
  const start = Date.parse(startIso);
  return Array.from({ length: n }, (_, i) => {
    const nps = npsValues[i % npsValues.length]!;
    const answers: RawResponse['answers'] = [{ question_id: 'q_nps', value: nps }];
    if (i % 4 !== 3) answers.push({ question_id: 'q_plan', value: { id: ['opt_basic', 'opt_pro', 'opt_pro'][i % 3]! } });
    if (i % 3 !== 1) answers.push({ question_id: 'q_feat', value: i % 2 ? [{ id: 'f_a' }, { id: 'f_c' }] : [{ id: 'f_c' }] });
    if (i % 5 !== 4) answers.push({ question_id: 'q_rate', value: (i % 5) + 1 });
    if (i % 2 === 0) answers.push({ question_id: 'q_num', value: i % 6 === 0 ? 2.5 : i });
    if (i % 3 === 0) answers.push({ question_id: 'q_text', value: `note ${i}` });
    if (i % 4 === 0) answers.push({ question_id: 'q_date', value: '2025-12-31' });
    // Spread over days with gaps: 0, 7h, 14h, …; hour 21 lands late in a day, to test partial-day bounds.
    const created = new Date(start + Math.floor(i * 7.25 * 3_600_000) + (i % 7 === 6 ? 3 * 86_400_000 : 0)).toISOString();
    return { id: uid('rsp'), form_id: formId, created_at: created, score: nps, language: i % 2 ? 'de' : 'en', answers };
  });
}

async function setup(n: number, questions = QUESTIONS) {
  const { ws, key } = await workspaceWithKey(ctx.db);
  const form = uid('frm');
  const responses = makeResponses(form, n);
  await importFixture(ctx.db, {
    forms: [{ id: form, workspace_id: ws, name: 'Survey', default_language: 'en', questions, translations: TRANSLATIONS }],
    responses,
  });
  return { ws, key, form, responses };
}

const get = (key: string, url: string) => ctx.http().get(url).set('X-API-Key', key);

describe('GET {ws}/forms/{form_id}/analytics/questions', () => {
  it('answers every analytic as computed from the imported responses (two languages, NPS edges)', async () => {
    const { ws, key, form, responses } = await setup(40);
    const res = await get(key, `/api/v1/workspaces/${ws}/forms/${form}/analytics/questions`);
    expect(res.status).toBe(200);
    expect(res.headers['x-api-style']).toBe('A');
    expect(res.body).toMatchObject({ meta: { limit: QUESTIONS.length, has_more: false }, links: { next: null, prev: null } });
    expect(res.body.data).toEqual(expectedQuestions(QUESTIONS, responses));
    // Spot check the NPS edges independently of the helper: 0 and 6 detract, 7 and 8 are passive, 9 and 10 promote.
    const nps = res.body.data[0];
    expect(nps.promoters + nps.passives + nps.detractors).toBe(40);
    expect(nps.distribution['0']).toBe(4);
    expect(nps.distribution['6']).toBe(4);
    // Options are in form order, in the default language, whatever language the answers were given in.
    expect(res.body.data[1].options.map((o: { value: string }) => o.value)).toEqual(['Basic', 'Pro', 'Team']);
  });

  it('answers nulls and zeros for a form without responses', async () => {
    const { ws, key } = await workspaceWithKey(ctx.db);
    const form = uid('frm');
    await importFixture(ctx.db, { forms: [{ id: form, workspace_id: ws, name: 'Empty', questions: QUESTIONS }] });
    const res = await get(key, `/api/v1/workspaces/${ws}/forms/${form}/analytics/questions`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(expectedQuestions(QUESTIONS, []));
    expect(res.body.data[0]).toEqual({
      question_id: 'q_nps',
      type: 'nps',
      title: QUESTIONS[0]!.title,
      answered: 0,
      skipped: 0,
      nps: null,
      promoters: 0,
      passives: 0,
      detractors: 0,
      distribution: { '0': 0, '1': 0, '2': 0, '3': 0, '4': 0, '5': 0, '6': 0, '7': 0, '8': 0, '9': 0, '10': 0 },
    });
    expect(res.body.data[1].options).toEqual([
      { id: 'opt_basic', value: 'Basic', count: 0, share: 0 },
      { id: 'opt_pro', value: 'Pro', count: 0, share: 0 },
      { id: 'opt_team', value: 'Team', count: 0, share: 0 },
    ]);
    expect(res.body.data[3]).toMatchObject({ mean: null, min: null, max: null, distribution: {} });
  });

  it('honours date bounds of both styles, whole days and date-times that cut a day', async () => {
    const { ws, key, form, responses } = await setup(40);
    const cases: Array<[string, (t: number) => boolean]> = [
      ['created_after=2026-01-05&created_before=2026-01-08', (t) => t >= Date.parse('2026-01-05') && t < Date.parse('2026-01-08')],
      ['start_date=2026-01-05&end_date=2026-01-08', (t) => t >= Date.parse('2026-01-05') && t < Date.parse('2026-01-09')],
      ['created_after=2026-01-04T13:30:00Z', (t) => t >= Date.parse('2026-01-04T13:30:00Z')],
      ['created_before=2026-01-07T09:00:00%2B02:00', (t) => t < Date.parse('2026-01-07T07:00:00Z')],
      [
        'created_after=2026-01-04T05:00:00Z&created_before=2026-01-09T20:00:00Z',
        (t) => t >= Date.parse('2026-01-04T05:00:00Z') && t < Date.parse('2026-01-09T20:00:00Z'),
      ],
      [
        'start_date=2026-01-05T06:00:00Z&end_date=2026-01-05T22:00:00Z',
        (t) => t >= Date.parse('2026-01-05T06:00:00Z') && t <= Date.parse('2026-01-05T22:00:00Z'),
      ],
      // An inclusive end_date instant: a response exactly at it counts.
      ['end_date=' + encodeURIComponent(responses[5]!.created_at), (t) => t <= Date.parse(responses[5]!.created_at)],
      ['start_date=2030-01-01', () => false],
    ];
    for (const [query, keep] of cases) {
      const res = await get(key, `/api/v1/workspaces/${ws}/forms/${form}/analytics/questions?${query}`);
      expect({ query, status: res.status }).toEqual({ query, status: 200 });
      const inRange = responses.filter((r) => keep(Date.parse(r.created_at)));
      expect({ query, data: res.body.data }).toEqual({ query, data: expectedQuestions(QUESTIONS, inRange) });
    }
  });

  it('rejects date parameters of both kinds with a 400 naming them, and a bad date', async () => {
    const { ws, key, form } = await setup(2);
    const res = await get(key, `/api/v1/workspaces/${ws}/forms/${form}/analytics/questions?created_after=2026-01-01&end_date=2026-02-01`);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.details.map((d: { field: string }) => d.field)).toEqual(['created_after', 'end_date']);
    const bad = await get(key, `/api/v1/workspaces/${ws}/forms/${form}/analytics/questions?start_date=2026-02-30`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0]).toMatchObject({ location: 'query', field: 'start_date' });
  });

  it('answers 404 for a form of another workspace and 403 without forms:read', async () => {
    const a = await setup(1);
    const other = await workspaceWithKey(ctx.db);
    const res = await get(other.key, `/api/v1/workspaces/${other.ws}/forms/${a.form}/analytics/questions`);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('resource_not_found');
    const limited = await workspaceWithKey(ctx.db, { scopes: ['responses:read'] });
    const forbidden = await get(limited.key, `/api/v1/workspaces/${limited.ws}/forms/x/analytics/questions`);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error.code).toBe('insufficient_scope');
  });
});

describe('rollups stay right with every write', () => {
  const rollupRows = async (ws: string) =>
    (await ctx.db.raw(`SELECT form_id, day::text, question_id, value_key, answers FROM answer_rollups WHERE workspace_id = ? ORDER BY 1, 2, 3, 4`, [ws])) as {
      rows: unknown[];
    };

  it('counts responses inserted with SQL (submissions, backfills), and subtracts deletes and moves updates', async () => {
    const { ws, key, form, responses } = await setup(12);
    const title = (id: string) => QUESTIONS.find((q) => q.id === id)!.title;
    // Stored answers as the collect path writes them: rendered, choice values {id, value}.
    const inserted: Array<RawResponse & { form_id: string }> = [
      {
        id: uid('rsp'),
        form_id: form,
        created_at: '2026-01-04T10:00:00.000Z',
        score: 10,
        language: 'de',
        answers: [
          { question_id: 'q_nps', value: 10 },
          { question_id: 'q_plan', value: { id: 'opt_team' } },
          { question_id: 'q_feat', value: [{ id: 'f_a' }, { id: 'f_b' }] },
        ],
      },
      {
        id: uid('rsp'),
        form_id: form,
        created_at: '2025-12-20T23:59:59.999Z',
        score: 6,
        answers: [
          { question_id: 'q_nps', value: 6 },
          { question_id: 'q_rate', value: 5 },
        ],
      },
    ];
    const stored = (a: { question_id: string; value: unknown }) => {
      const q = QUESTIONS.find((x) => x.id === a.question_id)!;
      const text = (id: string) => (q.options ?? []).find((o) => o.id === id)!.value;
      const value = Array.isArray(a.value)
        ? (a.value as Array<{ id: string }>).map((o) => ({ id: o.id, value: text(o.id) }))
        : typeof a.value === 'object'
          ? { id: (a.value as { id: string }).id, value: text((a.value as { id: string }).id) }
          : a.value;
      return { question_id: a.question_id, type: q.type, title: title(a.question_id), value };
    };
    await ctx.db('responses').insert(
      inserted.map((r) => ({
        workspace_id: ws,
        id: r.id,
        form_id: form,
        score: r.score,
        language: r.language ?? 'en',
        created_at: r.created_at,
        answers: JSON.stringify(r.answers.map(stored)),
      })),
    );
    let current = [...responses, ...inserted];
    const check = async () => {
      const res = await get(key, `/api/v1/workspaces/${ws}/forms/${form}/analytics/questions`);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual(expectedQuestions(QUESTIONS, current));
      const ts = await get(key, `/api/v1/workspaces/${ws}/forms/${form}/analytics/timeseries?interval=week`);
      expect(ts.body.data).toEqual(expectedTimeseries(current, 'week', 'q_nps'));
    };
    await check();

    // A delete subtracts.
    await ctx.db('responses').where({ workspace_id: ws }).whereIn('id', [responses[0]!.id, responses[1]!.id]).del();
    current = current.filter((r) => r.id !== responses[0]!.id && r.id !== responses[1]!.id);
    await check();

    // An update of time and answers moves the counts.
    const moved = responses[2]!;
    await ctx
      .db('responses')
      .where({ workspace_id: ws, id: moved.id })
      .update({ created_at: '2026-02-01T00:00:00.000Z', score: 9, answers: JSON.stringify([stored({ question_id: 'q_nps', value: 9 })]) });
    current = current.map((r) =>
      r.id === moved.id ? { ...r, created_at: '2026-02-01T00:00:00.000Z', score: 9, answers: [{ question_id: 'q_nps', value: 9 }] } : r,
    );
    await check();
  });

  it('leaves the rollups unchanged when a linked datatable row is deleted (row_id set to NULL)', async () => {
    const { ws, key } = await workspaceWithKey(ctx.db);
    const form = uid('frm');
    const table = uid('tbl');
    const rows = [uid('row'), uid('row')];
    const responses = makeResponses(form, 10).map((r, i) => ({ ...r, row_id: rows[i % 2]! }));
    await importFixture(ctx.db, {
      forms: [{ id: form, workspace_id: ws, name: 'Linked', questions: QUESTIONS, translations: TRANSLATIONS }],
      datatables: [
        {
          id: table,
          workspace_id: ws,
          name: 'Customers',
          fields: [{ name: 'id', type: 'string' }],
          rows: rows.map((row_id, i) => ({ row_id, data: { id: `c-${i}` } })),
        },
      ],
      responses,
    });
    const before = await rollupRows(ws);
    const del = await ctx.http().delete(`/api/v1/workspaces/${ws}/datatables/${table}/rows/${rows[0]}`).set('X-API-Key', key);
    expect(del.status).toBe(204);
    const patched = await ctx
      .http()
      .patch(`/api/v1/workspaces/${ws}/datatables/${table}/rows/${rows[1]}`)
      .set('X-API-Key', key)
      .send({ data: { id: 'c-9' } });
    expect(patched.status).toBe(200);
    const linked = await ctx.db('responses').where({ workspace_id: ws }).whereNull('row_id').count({ n: '*' }).first();
    expect(Number(linked!.n)).toBe(5);
    expect(await rollupRows(ws)).toEqual(before);
    const res = await get(key, `/api/v1/workspaces/${ws}/forms/${form}/analytics/questions`);
    expect(res.body.data).toEqual(expectedQuestions(QUESTIONS, responses));
  });
});

describe('GET {ws}/forms/{form_id}/analytics/timeseries', () => {
  it('answers day, week and month periods with empty periods and Monday weeks', async () => {
    const { ws, key, form, responses } = await setup(40);
    for (const interval of ['day', 'week', 'month'] as const) {
      const res = await get(key, `/api/v1/workspaces/${ws}/forms/${form}/analytics/timeseries?interval=${interval}`);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual(expectedTimeseries(responses, interval, 'q_nps'));
    }
    const days = await get(key, `/api/v1/workspaces/${ws}/forms/${form}/analytics/timeseries`);
    expect(days.body.data).toEqual(expectedTimeseries(responses, 'day', 'q_nps'));
    expect(days.body.data.some((p: { responses: number }) => p.responses === 0)).toBe(true);
    const weeks = await get(key, `/api/v1/workspaces/${ws}/forms/${form}/analytics/timeseries?interval=week`);
    for (const p of weeks.body.data) expect(new Date(`${p.period_start}T00:00:00Z`).getUTCDay()).toBe(1);
    // 2026-01-03 is a Saturday: its week starts Monday 2025-12-29.
    expect(weeks.body.data[0].period_start).toBe('2025-12-29');
  });

  it('applies date bounds (either style) and answers nps null for a form without an nps question', async () => {
    const { ws, key, form, responses } = await setup(40);
    const res = await get(key, `/api/v1/workspaces/${ws}/forms/${form}/analytics/timeseries?interval=day&start_date=2026-01-05T12:00:00Z&end_date=2026-01-09`);
    const inRange = responses.filter(
      (r) => Date.parse(r.created_at) >= Date.parse('2026-01-05T12:00:00Z') && Date.parse(r.created_at) < Date.parse('2026-01-10'),
    );
    expect(res.body.data).toEqual(expectedTimeseries(inRange, 'day', 'q_nps'));

    const noNps = QUESTIONS.filter((q) => q.type !== 'nps');
    const other = await workspaceWithKey(ctx.db);
    const form2 = uid('frm');
    const rs = makeResponses(form2, 8).map((r) => ({ ...r, answers: r.answers.filter((a) => a.question_id !== 'q_nps') }));
    await importFixture(ctx.db, { forms: [{ id: form2, workspace_id: other.ws, name: 'Plain', questions: noNps }], responses: rs });
    const plain = await get(other.key, `/api/v1/workspaces/${other.ws}/forms/${form2}/analytics/timeseries?interval=week`);
    expect(plain.body.data).toEqual(expectedTimeseries(rs, 'week', undefined));
    expect(plain.body.data.every((p: { nps: unknown }) => p.nps === null)).toBe(true);
  });

  it('answers an empty list without responses in range, and 400 for an unknown interval', async () => {
    const { ws, key, form } = await setup(3);
    const empty = await get(key, `/api/v1/workspaces/${ws}/forms/${form}/analytics/timeseries?created_after=2031-01-01`);
    expect(empty.status).toBe(200);
    expect(empty.body.data).toEqual([]);
    const bad = await get(key, `/api/v1/workspaces/${ws}/forms/${form}/analytics/timeseries?interval=quarter`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0]).toMatchObject({ location: 'query', field: 'interval' });
  });
});
