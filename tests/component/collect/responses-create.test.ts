/**
 * POST {ws}/responses in both styles (docs/migrating-between-styles.md, "How the style is chosen"; docs/collecting.md, "Server to server"): the one core submission path,
 * every validation rule per question type, language, score rule, backfill, row capture, Location,
 * idempotency, and the response visible at once in every read.
 */
import { useTestApp } from '../../support/app';
import { everyTypeForm, formWorkspace, goodAnswers, type FormWorkspace } from '../../support/given';

const t = useTestApp({ publicUrl: 'https://feedback.example.com' });

const post = (w: FormWorkspace, body: unknown, style?: 'A' | 'B') => {
  const req = t.http().post(`/api/v1/workspaces/${w.ws}/responses`).set('X-API-Key', w.key);
  if (style) req.set('X-API-Style', style);
  return req.send(body as object);
};
const get = (w: FormWorkspace, path: string, style?: 'A' | 'B') => {
  const req = t.http().get(`/api/v1/workspaces/${w.ws}${path}`).set('X-API-Key', w.key);
  if (style) req.set('X-API-Style', style);
  return req;
};
const stored = async (w: FormWorkspace) => Number((await t.db('responses').where('workspace_id', w.ws).count({ n: '*' }).first())!.n);

describe('POST {ws}/responses, Style A', () => {
  it('stores a response with every question type: 201, envelope, absolute Location, score from the nps question', async () => {
    const w = await formWorkspace(t.db);
    const res = await post(w, { form_id: w.form, answers: goodAnswers() });
    expect(res.status).toBe(201);
    expect(res.headers['x-api-style']).toBe('A');
    const id = res.body.data.id as string;
    expect(id).toMatch(/^rsp_/);
    expect(res.headers.location).toBe(`https://feedback.example.com/api/v1/workspaces/${w.ws}/responses/${id}`);
    expect(res.body).toEqual({
      data: {
        id,
        form_id: w.form,
        score: 9,
        created_at: expect.any(String),
        answers: [
          { question_id: 'q_nps', title: 'How likely?', type: 'nps', value: 9 },
          { question_id: 'q_plan', title: 'Plan?', type: 'single_choice', value: { id: 'opt_pro', value: 'Pro' } },
          {
            question_id: 'q_feat',
            title: 'Features?',
            type: 'multiple_choice',
            value: [
              { id: 'opt_api', value: 'API' },
              { id: 'opt_sso', value: 'SSO' },
            ],
          },
          { question_id: 'q_text', title: 'Why?', type: 'text', value: 'Great support', sentiment: { score: 0.5, label: 'positive' } },
          { question_id: 'q_email', title: 'Email?', type: 'email', value: 'a@example.com' },
          { question_id: 'q_num', title: 'Team size?', type: 'number', value: 12.5 },
          { question_id: 'q_rating', title: 'Stars?', type: 'rating', value: 4 },
          { question_id: 'q_date', title: 'Start?', type: 'date', value: '2024-02-29' },
        ],
        respondent_email: null,
        email_id: null,
        row_id: null,
        sentiment: { score: 0.5, label: 'positive' },
        table_data: null,
      },
      meta: {},
      links: {},
      request_id: res.headers['x-request-id'],
    });
    expect(Math.abs(Date.parse(res.body.data.created_at) - Date.now())).toBeLessThan(60_000);
  });

  it('is visible at once in both styles: lists, the single response, v2 labels, the summary and Style B totals', async () => {
    const w = await formWorkspace(t.db);
    const first = await post(w, {
      form_id: w.form,
      answers: [
        { question_id: 'q_nps', value: 6 },
        { question_id: 'q_plan', value: 'opt_basic' },
      ],
    });
    const res = await post(w, { form_id: w.form, language: 'de', answers: goodAnswers() });
    expect(first.status).toBe(201);
    expect(res.status).toBe(201);
    const id = res.body.data.id as string;

    const listA = await get(w, '/responses', 'A');
    expect(listA.body.data.map((r: { id: string }) => r.id)).toEqual([id, first.body.data.id]);
    expect(listA.body.data[0]).toEqual(res.body.data.table_data === null ? (({ table_data: _t, ...rest }) => rest)(res.body.data) : res.body.data);

    const listB = await get(w, '/responses', 'B');
    expect(listB.body.meta).toEqual({ total: 2, page: 1, limit: 50, filtered_total: 2 });
    expect(listB.body.data[0]).toMatchObject({ id, score: 9, version: 1, form: { id: w.form, name: `Every type ${w.form}` } });
    expect(listB.body.data[0].answers[1]).toEqual({ id: 'q_plan', title: 'Tarif?', type: 'single_choice', value: { id: 'opt_pro', value: 'Profi' } });

    const one = await get(w, `/responses/${id}`, 'B');
    expect(one.status).toBe(200);
    expect(one.body.data.createdAt).toBe(res.body.data.created_at);

    const v2 = await t.http().get(`/api/v2/workspaces/${w.ws}/responses`).set('X-API-Key', w.key).set('X-API-Style', 'A');
    expect(v2.body.data[0].answers.slice(0, 3)).toEqual([
      { question_id: 'q_nps', title: 'Wie wahrscheinlich?', type: 'nps', value: 9, reporting_label: 'How likely?' },
      { question_id: 'q_plan', title: 'Tarif?', type: 'single_choice', value: { id: 'opt_pro', value: 'Profi' }, reporting_label: 'Plan?' },
      {
        question_id: 'q_feat',
        title: 'Funktionen?',
        type: 'multiple_choice',
        value: [
          { id: 'opt_api', value: 'Schnittstelle' },
          { id: 'opt_sso', value: 'SSO' },
        ],
        reporting_label: 'Features?',
      },
    ]);

    const summary = await get(w, `/forms/${w.form}/analytics/summary`);
    expect(summary.body.data).toEqual({
      form_id: w.form,
      total_responses: 2,
      average_score: 7.5,
      last_response: { id, score: 9, created_at: res.body.data.created_at },
    });
  });

  it('reports one detail per bad answer, naming it, and stores nothing', async () => {
    const w = await formWorkspace(t.db);
    const res = await post(w, {
      form_id: w.form,
      answers: [
        { question_id: 'q_nps', value: 11 },
        { question_id: 'q_plan', value: { id: 'opt_gold' } },
        { question_id: 'q_feat', value: [{ id: 'opt_sso' }, { id: 'opt_sso' }] },
        { question_id: 'q_text', value: 'x'.repeat(10_001) },
        { question_id: 'q_email', value: 'not-an-address' },
        { question_id: 'q_num', value: 0 },
        { question_id: 'q_rating', value: 4.5 },
        { question_id: 'q_date', value: '2024-02-30' },
        { question_id: 'q_nope', value: 1 },
        { question_id: 'q_text', value: 'again' },
      ],
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'validation_error', status: 400 });
    const d = (field: string, message: RegExp | string) => ({
      location: 'body',
      field,
      message: typeof message === 'string' ? message : expect.stringMatching(message),
    });
    expect(res.body.error.details).toEqual([
      d('answers[0].value', '`answers[0].value` must be an integer from 0 to 10; got 11'),
      d('answers[1].value', '`answers[1].value` unknown option "opt_gold" of question "q_plan"'),
      d('answers[2].value', '`answers[2].value` option "opt_sso" is chosen twice'),
      d('answers[3].value', '`answers[3].value` must be at most 10000 characters; got 10001'),
      d('answers[4].value', /^`answers\[4\]\.value` must be an e-mail address/),
      d('answers[5].value', '`answers[5].value` must be a number from 1 to 100; got 0'),
      d('answers[6].value', '`answers[6].value` must be an integer from 1 to 5; got 4.5'),
      d('answers[7].value', /^`answers\[7\]\.value` must be a date "YYYY-MM-DD" that exists/),
      d('answers[8].question_id', /unknown question "q_nope"/),
      d('answers[9].question_id', /question "q_text" is answered twice/),
    ]);
    expect(await stored(w)).toBe(0);
  });

  it('rejects values of the wrong JSON type and names each required question left out', async () => {
    const w = await formWorkspace(t.db);
    const wrong = await post(w, {
      form_id: w.form,
      answers: [
        { question_id: 'q_nps', value: '9' },
        { question_id: 'q_plan', value: 5 },
        { question_id: 'q_feat', value: { id: 'opt_sso' } },
        { question_id: 'q_text', value: 5 },
        { question_id: 'q_num', value: true },
        { question_id: 'q_date', value: 20240101 },
        { question_id: 'q_email', value: null },
        { question_id: 'q_rating', value: [4] },
      ],
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.details.map((x: { field: string }) => x.field)).toEqual([0, 1, 2, 3, 4, 5, 6, 7].map((i) => `answers[${i}].value`));
    expect(wrong.body.error.details[0].message).toBe('`answers[0].value` must be an integer from 0 to 10; got the string "9"');

    const missing = await post(w, { form_id: w.form, answers: [{ question_id: 'q_text', value: 'only this' }] });
    expect(missing.status).toBe(400);
    // q_nps is the score question: required for submissions although not marked required.
    expect(missing.body.error.details).toEqual([
      { location: 'body', field: 'answers', message: 'question "q_nps" is required but has no answer' },
      { location: 'body', field: 'answers', message: 'question "q_plan" is required but has no answer' },
    ]);
    expect(await stored(w)).toBe(0);
  });

  it('checks the body members: unknown members, foreign form and row, the email pair, created_at', async () => {
    const w = await formWorkspace(t.db);
    const other = await formWorkspace(t.db);
    const base = { form_id: w.form, answers: goodAnswers() };
    const field = async (body: unknown) => {
      const res = await post(w, body);
      expect(res.status).toBe(400);
      return res.body.error.details.map((x: { field: string }) => x.field);
    };
    expect(await field({ ...base, score: 10 })).toEqual(['score']);
    expect(await field({ ...base, form_id: other.form })).toEqual(['form_id']);
    expect(await field({ ...base, row_id: other.row })).toEqual(['row_id']);
    expect(await field({ ...base, respondent_email: 'a@example.com' })).toEqual(['email_id']);
    expect(await field({ ...base, email_id: 'em_1' })).toEqual(['respondent_email']);
    expect(await field({ ...base, created_at: '2099-01-01T00:00:00Z' })).toEqual(['created_at']);
    expect(await field({ ...base, created_at: '2024-01-01T10:00:00' })).toEqual(['created_at']);
    expect(await field({ ...base, created_at: '2024-01-01' })).toEqual(['created_at']);
    expect(await field({ ...base, createdAt: '2024-01-01T10:00:00Z' })).toEqual(['createdAt']);
    expect(await field({ ...base, language: 'fr' })).toEqual(['language']);
    expect(await field({ ...base, answers: [{ id: 'q_nps', value: 9 }, ...base.answers.slice(1)] })).toEqual(['answers[0].id']);
    expect(await stored(w)).toBe(0);
  });

  it('backfills created_at, links a row and an email, and keeps the captured row when the row changes later', async () => {
    const w = await formWorkspace(t.db);
    const res = await post(w, {
      form_id: w.form,
      answers: goodAnswers(),
      created_at: '2025-03-01T10:15:30.123+02:00',
      row_id: w.row,
      respondent_email: 'b@example.com',
      email_id: 'em_backfill',
      version: 3,
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      created_at: '2025-03-01T08:15:30.123Z',
      row_id: w.row,
      respondent_email: 'b@example.com',
      email_id: 'em_backfill',
      table_data: { id: `c-${w.row}`, plan: 'pro', row_id: w.row, _captured_at: expect.any(String) },
    });
    const patched = await t
      .http()
      .patch(`/api/v1/workspaces/${w.ws}/datatables/${w.table}/rows/${w.row}`)
      .set('X-API-Key', w.key)
      .send({ data: { plan: 'basic' } });
    expect(patched.status).toBe(200);
    const b = await get(w, `/responses/${res.body.data.id}?include_table_data=true`, 'B');
    expect(b.body.data).toMatchObject({ version: 3, createdAt: '2025-03-01T08:15:30.123Z', table_data: { plan: 'pro', row_id: w.row } });
  });

  it('replays an Idempotency-Key without storing twice', async () => {
    const w = await formWorkspace(t.db);
    const body = { form_id: w.form, answers: goodAnswers() };
    const first = await post(w, body).set('Idempotency-Key', 'submit-1');
    const again = await post(w, body).set('Idempotency-Key', 'submit-1');
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers.location).toBe(first.headers.location);
    expect(again.text).toBe(first.text);
    expect(await stored(w)).toBe(1);
  });

  it('needs responses:write', async () => {
    const w = await formWorkspace(t.db, { key: { scopes: ['responses:read'] } });
    const res = await post(w, { form_id: w.form, answers: goodAnswers() });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('insufficient_scope');
    expect(await stored(w)).toBe(0);
  });
});

describe('POST {ws}/responses, Style B', () => {
  it('takes answers as {id, value} and createdAt, and answers in Style B', async () => {
    const w = await formWorkspace(t.db, { key: { style: 'B' } });
    const answers = goodAnswers().map(({ question_id, value }) => ({ id: question_id, value }));
    const res = await post(w, { form_id: w.form, answers, createdAt: '2025-01-02T03:04:05Z' });
    expect(res.status).toBe(201);
    expect(res.headers['x-api-style']).toBe('B');
    expect(res.headers.location).toBe(`https://feedback.example.com/api/v1/workspaces/${w.ws}/responses/${res.body.data.id}`);
    expect(res.body.data).toMatchObject({
      score: 9,
      version: 1,
      createdAt: '2025-01-02T03:04:05.000Z',
      form: { id: w.form, name: `Every type ${w.form}` },
      email_id: null,
      respondent_email: null,
      row_id: null,
      table_data: null,
      actionlist_data: [],
    });
    expect(res.body.data.answers[0]).toEqual({ id: 'q_nps', title: 'How likely?', type: 'nps', value: 9 });

    const bad = await post(w, {
      form_id: w.form,
      answers: [
        { question_id: 'q_nps', value: 9 },
        { id: 'q_plan', value: 'opt_x' },
      ],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.map((x: { field: string }) => x.field)).toEqual(['answers[0].question_id']);
    const badValue = await post(w, {
      form_id: w.form,
      answers: [
        { id: 'q_nps', value: 9 },
        { id: 'q_plan', value: 'opt_x' },
        { id: 'q_zz', value: 1 },
      ],
    });
    expect(badValue.body.error.details.map((x: { field: string }) => x.field)).toEqual(['answers[1].value', 'answers[2].id']);

    const list = await get(w, '/responses');
    expect(list.body.meta.total).toBe(1);
  });
});

describe('score rule', () => {
  it('uses score_question_id when set, else the first nps, else the first rating; a form with none scores 0', async () => {
    const w = await formWorkspace(t.db, {
      forms: (ws) => [
        everyTypeForm(ws, `${ws}_byid`, { score_question_id: 'q_rating' }),
        {
          id: `${ws}_rating`,
          workspace_id: ws,
          name: 'Rating only',
          questions: [
            { id: 'q_t', type: 'text', title: 'Text' },
            { id: 'q_r1', type: 'rating', title: 'First' },
            { id: 'q_r2', type: 'rating', title: 'Second' },
          ],
        },
        { id: `${ws}_none`, workspace_id: ws, name: 'No score', questions: [{ id: 'q_t', type: 'text', title: 'Text' }] },
      ],
    });
    const byId = await post(w, { form_id: `${w.ws}_byid`, answers: goodAnswers() });
    expect(byId.body.data.score).toBe(4);
    const rating = await post(w, {
      form_id: `${w.ws}_rating`,
      answers: [
        { question_id: 'q_r2', value: 2 },
        { question_id: 'q_r1', value: 5 },
      ],
    });
    expect(rating.body.data.score).toBe(5);
    const missing = await post(w, { form_id: `${w.ws}_rating`, answers: [{ question_id: 'q_r2', value: 2 }] });
    expect(missing.body.error.details).toEqual([{ location: 'body', field: 'answers', message: 'question "q_r1" is required but has no answer' }]);
    const none = await post(w, { form_id: `${w.ws}_none`, answers: [] });
    expect(none.status).toBe(201);
    expect(none.body.data).toMatchObject({ score: 0, answers: [] });
  });
});

describe('integers past their database column (openapi/ maximum)', () => {
  it.each(['A', 'B'] as const)('Style %s: version 99999999999999 is a 400 naming version, 2147483647 is stored', async (style) => {
    const w = await formWorkspace(t.db, { key: { style } });
    const answers = style === 'A' ? goodAnswers() : goodAnswers().map(({ question_id, value }) => ({ id: question_id, value }));
    const res = await post(w, { form_id: w.form, answers, version: 99999999999999 });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: 'validation_error',
      status: 400,
      details: [{ location: 'body', field: 'version', message: expect.stringContaining('2147483647') }],
    });
    expect(await stored(w)).toBe(0);
    const max = await post(w, { form_id: w.form, answers, version: 2147483647 });
    expect(max.status).toBe(201);
    const b = await get(w, `/responses/${max.body.data.id}`, 'B');
    expect(b.body.data.version).toBe(2147483647);
  });

  it('a Style B page past 2147483647 is a 400 naming page', async () => {
    const w = await formWorkspace(t.db, { key: { style: 'B' } });
    const res = await get(w, '/responses?page=99999999999999', 'B');
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'validation_error', details: [{ location: 'query', field: 'page' }] });
  });
});
