/**
 * No date makes a page unbounded (docs/api-rules.md, "Dates"; docs/analytics.md, "Time series"): a response carries a
 * creation time from 1970-01-01T00:00:00Z (EARLIEST_RESPONSE_TIME) to now, on writes of both styles and in the
 * import; and a time series has at most MAX_SERIES_POINTS points whatever the stored dates (rows from before the
 * rule, or seeded directly): a span that needs more periods of the interval asked comes in the first coarser one,
 * named by `meta.interval`, and the dashboard's `?interval=` cannot force more.
 */
import { MAX_SERIES_POINTS } from '../../../src/core/analytics/analytics.store';
import { ImportError, importFixture, type ImportProblem } from '../../../src/core/import/importer';
import { useTestApp } from '../../support/app';
import { formWorkspace, goodAnswers, surveyForm, uid, type FormWorkspace } from '../../support/given';

const PUBLIC_URL = 'https://feedback.example.com';
const t = useTestApp({ publicUrl: PUBLIC_URL });

const post = (w: FormWorkspace, body: unknown, style: 'A' | 'B') =>
  t
    .http()
    .post(`/api/v1/workspaces/${w.ws}/responses`)
    .set('X-API-Key', w.key)
    .set('X-API-Style', style)
    .send(body as object);
const series = (w: FormWorkspace, query: string) =>
  t.http().get(`/api/v1/workspaces/${w.ws}/forms/${w.form}/analytics/timeseries?${query}`).set('X-API-Key', w.key);

/** Inserts responses straight into the table (as rows written before the rule, or a seed, would be). */
async function seed(w: FormWorkspace, times: string[]): Promise<void> {
  await t.db('responses').insert(
    times.map((created) => ({
      workspace_id: w.ws,
      id: uid('rsp'),
      form_id: w.form,
      score: 9,
      language: 'en',
      created_at: created,
      answers: JSON.stringify([{ question_id: 'q_nps', type: 'nps', title: 'How likely?', value: 9 }]),
    })),
  );
}

async function importProblems(doc: unknown): Promise<ImportProblem[]> {
  try {
    await importFixture(t.db, doc);
  } catch (e) {
    if (e instanceof ImportError) return e.problems;
    throw e;
  }
  return [];
}

describe('the earliest date a response may carry', () => {
  it('answers 400 naming created_at (Style A) and createdAt (Style B) for year 0001 and 1969, and stores 1970-01-01', async () => {
    const w = await formWorkspace(t.db);
    for (const at of ['0001-01-01T00:00:00Z', '1969-12-31T23:59:59.999Z']) {
      const a = await post(w, { form_id: w.form, answers: goodAnswers(), created_at: at }, 'A');
      expect(a.status).toBe(400);
      expect(a.body.error).toMatchObject({
        code: 'validation_error',
        details: [{ location: 'body', field: 'created_at', message: `\`created_at\` must not be before 1970-01-01T00:00:00Z; got "${at}".` }],
      });
      const b = await post(w, { form_id: w.form, answers: goodAnswers().map(({ question_id, value }) => ({ id: question_id, value })), createdAt: at }, 'B');
      expect(b.status).toBe(400);
      expect(b.body.error).toMatchObject({
        code: 'validation_error',
        details: [{ location: 'body', field: 'createdAt', message: `\`createdAt\` must not be before 1970-01-01T00:00:00Z; got "${at}".` }],
      });
    }
    expect(Number((await t.db('responses').where('workspace_id', w.ws).count({ n: '*' }).first())!.n)).toBe(0);
    const first = await post(w, { form_id: w.form, answers: goodAnswers(), created_at: '1970-01-01T00:00:00Z' }, 'A');
    expect(first.status).toBe(201);
    expect(first.body.data.created_at).toBe('1970-01-01T00:00:00.000Z');
  });

  it('reports an imported response from year 0001 or from the future at its created_at, and imports nothing', async () => {
    const w = await formWorkspace(t.db, { form: surveyForm });
    const response = (created_at: string) => ({ id: uid('rsp'), form_id: w.form, score: 9, created_at, answers: [{ question_id: 'q_nps', value: 9 }] });
    const problems = await importProblems({
      responses: [response('2026-01-05T10:00:00Z'), response('0001-01-01T00:00:00Z'), response('2999-01-01T00:00:00Z')],
    });
    expect(problems).toEqual([
      { path: 'responses[1].created_at', message: '`created_at` must not be before 1970-01-01T00:00:00Z' },
      { path: 'responses[2].created_at', message: '`created_at` must not be in the future' },
    ]);
    expect(Number((await t.db('responses').where('workspace_id', w.ws).count({ n: '*' }).first())!.n)).toBe(0);
  });
});

describe('a time series over a huge span', () => {
  it('answers year points (2026, at most MAX_SERIES_POINTS) for responses from year 0001 to 2026, whatever interval is asked', async () => {
    const w = await formWorkspace(t.db, { form: surveyForm });
    await seed(w, ['0001-01-01T00:00:00Z', '2026-01-05T10:00:00Z']);
    for (const interval of ['day', 'week', 'month', 'year']) {
      const res = await series(w, `interval=${interval}`);
      expect(res.status).toBe(200);
      expect(res.body.meta).toEqual({ limit: 2026, has_more: false, interval: 'year' });
      expect(res.body.data).toHaveLength(2026);
      expect(res.body.data[0]).toEqual({ period_start: '0001-01-01', responses: 1, average_score: 9, nps: 100 });
      expect(res.body.data[1]).toEqual({ period_start: '0002-01-01', responses: 0, average_score: null, nps: null });
      expect(res.body.data[2025]).toEqual({ period_start: '2026-01-01', responses: 1, average_score: 9, nps: 100 });
    }
    expect(MAX_SERIES_POINTS).toBe(10_000);
  });

  it('answers weeks for days asked from the earliest allowed date to now, and the interval asked when it fits', async () => {
    const w = await formWorkspace(t.db, { form: surveyForm });
    await seed(w, ['1970-01-01T00:00:00Z', new Date().toISOString()]);
    const mondayOf = (ms: number) => ms - ((new Date(ms).getUTCDay() + 6) % 7) * 86_400_000;
    const today = Date.parse(`${new Date().toISOString().slice(0, 10)}T00:00:00Z`);
    const weeks = (mondayOf(today) - Date.parse('1969-12-29T00:00:00Z')) / (7 * 86_400_000) + 1;
    const days = await series(w, 'interval=day');
    expect(days.status).toBe(200);
    expect(days.body.meta).toEqual({ limit: weeks, has_more: false, interval: 'week' });
    expect(days.body.data).toHaveLength(weeks);
    expect(days.body.data[0]).toEqual({ period_start: '1969-12-29', responses: 1, average_score: 9, nps: 100 });
    const now = new Date();
    const months = (now.getUTCFullYear() - 1970) * 12 + now.getUTCMonth() + 1;
    const byMonth = await series(w, 'interval=month');
    expect(byMonth.body.meta).toEqual({ limit: months, has_more: false, interval: 'month' });
    expect(byMonth.body.data[0]).toEqual({ period_start: '1970-01-01', responses: 1, average_score: 9, nps: 100 });
  });

  it('says the interval asked in meta when nothing needs a coarser one, and refuses an unknown interval', async () => {
    const w = await formWorkspace(t.db, { form: surveyForm });
    await seed(w, ['2026-01-05T10:00:00Z', '2026-01-07T10:00:00Z']);
    const res = await series(w, 'interval=day');
    expect(res.body).toMatchObject({
      meta: { limit: 3, has_more: false, interval: 'day' },
      data: [
        { period_start: '2026-01-05', responses: 1, average_score: 9, nps: 100 },
        { period_start: '2026-01-06', responses: 0, average_score: null, nps: null },
        { period_start: '2026-01-07', responses: 1, average_score: 9, nps: 100 },
      ],
    });
    const bad = await series(w, 'interval=quarter');
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0]).toMatchObject({ location: 'query', field: 'interval' });
  });

  it('shows the dashboard of such a form by year, whatever ?interval= asks', async () => {
    const w = await formWorkspace(t.db, { form: surveyForm });
    await seed(w, ['0001-01-01T00:00:00Z', '2026-01-05T10:00:00Z']);
    const link = await t.http().post(`/api/v1/workspaces/${w.ws}/forms/${w.form}/dashboard-links`).set('X-API-Key', w.key).send({});
    expect(link.status).toBe(201);
    const res = await t.http().get(`${(link.body.data.url as string).slice(PUBLIC_URL.length)}?interval=day`);
    expect(res.status).toBe(200);
    expect(res.text).toMatch(/aria-current="page">Year</);
    // The figures table: one row per year, 0001 to 2026.
    const periods = res.text.match(/<th scope="row">\d{4}-\d{2}-\d{2}<\/th>/g)!;
    expect(periods).toHaveLength(2026);
    expect(periods[0]).toBe('<th scope="row">0001-01-01</th>');
    expect(periods[2025]).toBe('<th scope="row">2026-01-01</th>');
  });
});
