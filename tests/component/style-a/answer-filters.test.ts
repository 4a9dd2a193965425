/**
 * Filters on answers (docs/api-rules.md, "Filters on answers"): over a form with every question type and responses
 * that answer some questions and skip others, every operator of both styles (Style B `filter` on
 * `answers.<question_id>`, Style A `answer…` parameters) holds exactly the ids a plain scan of the fixture keeps, in
 * list order; Style B's `filtered_total` is that count; the Style B request translated by `POST /api/v1/translate`
 * holds them too. Bad input is a 400 naming `filter` or the parameter.
 */
import { importFixture } from '../../../src/core/import/importer';
import type { FixtureResponse } from '../../../src/core/import/fixture-schema';
import { useTestApp } from '../../support/app';
import { everyTypeForm, newestFirst, uid, workspaceWithKey } from '../../support/given';

const t = useTestApp();

type Raw = Record<string, unknown>;
interface Rsp {
  id: string;
  created_at: string;
  answers: Raw;
}

let ws: string;
let key: string;
let form: string;
let other: string;
const responses: Rsp[] = [];

const TEXTS = ['Too SLOW to load', 'fast', '100% slow_ish', '', 'Ünïcode and "quotes", commas [x]', 'back\\slash'];
const EMAILS = ['a@example.com', 'B@Example.org', 'c@example.com'];
const DATES = ['2024-02-29', '2025-12-31', '2026-01-01', '2026-06-15'];
const NUMS = [1, 12.5, 100, 50, 12.25];
const FEATS = [['opt_sso'], ['opt_api'], ['opt_sso', 'opt_api'], []];

/** The answers of response `i`: each question answered on its own rhythm, so every filter keeps some and drops some. */
function answersOf(i: number): Raw {
  const a: Raw = {};
  if (i % 7 !== 3) a.q_nps = i % 11;
  if (i % 5 !== 4) a.q_plan = i % 2 ? 'opt_pro' : 'opt_basic';
  if (i % 4 !== 3 && FEATS[i % 4]!.length > 0) a.q_feat = FEATS[i % 4];
  if (i % 7 !== 2) a.q_text = TEXTS[i % TEXTS.length];
  if (i % 6 < 4) a.q_email = EMAILS[i % EMAILS.length];
  if (i % 4 !== 1) a.q_num = NUMS[i % NUMS.length];
  if (i % 5 !== 0) a.q_rating = (i % 5) + 1;
  if (i % 3 !== 0) a.q_date = DATES[i % DATES.length];
  if (i % 2 === 0) a['q:odd'] = i % 4 ? 'yes: odd' : 'no';
  if (i % 3 !== 1) a.q_wide = (i * 37) % 501;
  return a;
}

beforeAll(async () => {
  ({ ws, key } = await workspaceWithKey(t.db));
  form = uid('frm');
  other = uid('frm');
  const base = everyTypeForm(ws, form);
  const fixture: FixtureResponse[] = [];
  for (let i = 0; i < 40; i++) {
    const answers = answersOf(i);
    // Pairs share a timestamp: the id tie-breaker orders them.
    const r: Rsp = { id: uid('rsp'), created_at: new Date(Date.parse('2026-02-01T10:00:00Z') + Math.floor(i / 2) * 60_000).toISOString(), answers };
    responses.push(r);
    fixture.push({
      id: r.id,
      form_id: form,
      score: typeof answers.q_nps === 'number' ? answers.q_nps : 0,
      created_at: r.created_at,
      answers: Object.entries(answers).map(([question_id, value]) => ({ question_id, value })),
    });
  }
  // Another form with the same question ids: an answer filter narrows to the form it names.
  fixture.push({ id: uid('rsp'), form_id: other, score: 9, answers: [{ question_id: 'q_plan', value: 'opt_pro' }] });
  await importFixture(t.db, {
    forms: [
      {
        ...base,
        questions: [
          ...(base.questions ?? []),
          // A rating scale too wide to list its values: its bounds compare each answer (answer-filter.ts).
          { id: 'q_wide', type: 'rating', title: 'Points?', validation: { min: 0, max: 500 } },
          { id: 'q:odd', type: 'text', title: 'Odd id?' },
        ],
      },
      everyTypeForm(ws, other, { translations: {} }),
    ],
    responses: fixture,
  });
});

const get = (path: string) => t.http().get(path).set('X-API-Key', key);
const ids = (body: { data: Array<{ id: string }> }) => body.data.map((r) => r.id);
type Pairs = Array<[string, string]>;
const qs = (pairs: Pairs) => pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
const list = () => `/api/v1/workspaces/${ws}/responses`;

async function styleA(pairs: Pairs, path = list()): Promise<string[]> {
  const res = await get(`${path}?${qs([...pairs, ['limit', '100']])}`);
  expect({ status: res.status, error: res.body.error }).toEqual({ status: 200, error: undefined });
  expect(res.headers['x-api-style']).toBe('A');
  expect(res.body.meta.has_more).toBe(false);
  return ids(res.body);
}

async function styleB(filter: string, extra: Pairs = [['form_id', form]]): Promise<{ ids: string[]; filteredTotal: number }> {
  const res = await get(`${list()}?${qs([['filter', filter], ['limit', '1000'], ...extra])}`);
  expect({ status: res.status, error: res.body.error }).toEqual({ status: 200, error: undefined });
  expect(res.headers['x-api-style']).toBe('B');
  return { ids: ids(res.body), filteredTotal: res.body.meta.filtered_total as number };
}

/** The Style B request through the translator, then the Style A request it names (one page: limit 100 here). */
async function translated(filter: string): Promise<string[]> {
  const tr = await t
    .http()
    .post('/api/v1/translate')
    .set('X-API-Key', key)
    .send({ method: 'GET', path: list(), query: { filter, form_id: form, limit: '100' }, headers: { 'X-API-Style': 'B' } });
  expect({ status: tr.status, error: tr.body.error }).toEqual({ status: 200, error: undefined });
  const request = tr.body.data.request as { path: string; query: Record<string, string | string[]>; headers: Record<string, string> };
  const pairs = Object.entries(request.query).flatMap(([k, v]) => (Array.isArray(v) ? v : [v]).map((one): [string, string] => [k, one]));
  const res = await get(`${request.path}?${qs(pairs)}`).set(request.headers);
  expect({ status: res.status, error: res.body.error }).toEqual({ status: 200, error: undefined });
  expect(res.body.meta.has_more).toBe(false);
  return ids(res.body);
}

interface Case {
  b: string;
  a: Pairs;
  keep: (a: Raw) => boolean;
}

const has = (a: Raw, q: string) => a[q] !== undefined;
const num = (a: Raw, q: string) => (typeof a[q] === 'number' ? (a[q] as number) : undefined);
const str = (a: Raw, q: string) => (typeof a[q] === 'string' ? (a[q] as string) : undefined);
const feats = (a: Raw) => (a.q_feat as string[] | undefined) ?? [];
const cmp = <T extends number | string>(v: T | undefined, f: (x: T) => boolean) => v !== undefined && f(v);

const CASES: Record<string, Case> = {
  'single choice =': { b: 'answers.q_plan = opt_pro', a: [['answer', 'q_plan:opt_pro']], keep: (a) => a.q_plan === 'opt_pro' },
  'single choice != keeps the unanswered': { b: 'answers.q_plan != opt_pro', a: [['answer_ne', 'q_plan:opt_pro']], keep: (a) => a.q_plan !== 'opt_pro' },
  'single choice in [v, null]': {
    b: 'answers.q_plan in [opt_basic, null]',
    a: [
      ['answer_in', 'q_plan:opt_basic'],
      ['answer_in', 'q_plan'],
    ],
    keep: (a) => a.q_plan === 'opt_basic' || !has(a, 'q_plan'),
  },
  'multiple choice = holds the option': { b: 'answers.q_feat = opt_api', a: [['answer', 'q_feat:opt_api']], keep: (a) => feats(a).includes('opt_api') },
  'multiple choice != lacks it': { b: 'answers.q_feat != opt_api', a: [['answer_ne', 'q_feat:opt_api']], keep: (a) => !feats(a).includes('opt_api') },
  'multiple choice in holds one of them': {
    b: 'answers.q_feat in [opt_sso, opt_api]',
    a: [
      ['answer_in', 'q_feat:opt_sso'],
      ['answer_in', 'q_feat:opt_api'],
    ],
    keep: (a) => feats(a).length > 0,
  },
  'rating in': {
    b: 'answers.q_rating in [1, 2]',
    a: [
      ['answer_in', 'q_rating:1'],
      ['answer_in', 'q_rating:2'],
    ],
    keep: (a) => cmp(num(a, 'q_rating'), (x) => x === 1 || x === 2),
  },
  'rating >=': { b: 'answers.q_rating >= 4', a: [['answer_gte', 'q_rating:4']], keep: (a) => cmp(num(a, 'q_rating'), (x) => x >= 4) },
  'rating >': { b: 'answers.q_rating > 4', a: [['answer_gt', 'q_rating:4']], keep: (a) => cmp(num(a, 'q_rating'), (x) => x > 4) },
  'rating <': { b: 'answers.q_rating < 2.5', a: [['answer_lt', 'q_rating:2.5']], keep: (a) => cmp(num(a, 'q_rating'), (x) => x < 2.5) },
  'rating <=': { b: 'answers.q_rating <= 2', a: [['answer_lte', 'q_rating:2']], keep: (a) => cmp(num(a, 'q_rating'), (x) => x <= 2) },
  'nps = compares as a number': { b: 'answers.q_nps = 9.0', a: [['answer', 'q_nps:9.0']], keep: (a) => a.q_nps === 9 },
  'nps != keeps the unanswered': { b: 'answers.q_nps != 9', a: [['answer_ne', 'q_nps:9']], keep: (a) => a.q_nps !== 9 },
  'nps range': {
    b: 'answers.q_nps >= 7, answers.q_nps < 9',
    a: [
      ['answer_gte', 'q_nps:7'],
      ['answer_lt', 'q_nps:9'],
    ],
    keep: (a) => cmp(num(a, 'q_nps'), (x) => x >= 7 && x < 9),
  },
  'nps >= 0 is every answer': { b: 'answers.q_nps >= 0', a: [['answer_gte', 'q_nps:0']], keep: (a) => has(a, 'q_nps') },
  'nps > a fraction': { b: 'answers.q_nps > 8.5', a: [['answer_gt', 'q_nps:8.5']], keep: (a) => cmp(num(a, 'q_nps'), (x) => x > 8.5) },
  'nps <= past the scale': { b: 'answers.q_nps <= 99', a: [['answer_lte', 'q_nps:99']], keep: (a) => has(a, 'q_nps') },
  'rating in, a value twice and off the scale': {
    b: 'answers.q_rating in [2, 2.0, 3, 2.5, 9]',
    a: [
      ['answer_in', 'q_rating:2'],
      ['answer_in', 'q_rating:2.0'],
      ['answer_in', 'q_rating:3'],
      ['answer_in', 'q_rating:2.5'],
      ['answer_in', 'q_rating:9'],
    ],
    keep: (a) => cmp(num(a, 'q_rating'), (x) => x === 2 || x === 3),
  },
  'wide rating >= compares each answer': { b: 'answers.q_wide >= 250', a: [['answer_gte', 'q_wide:250']], keep: (a) => cmp(num(a, 'q_wide'), (x) => x >= 250) },
  'wide rating in': {
    b: 'answers.q_wide in [0, 37]',
    a: [
      ['answer_in', 'q_wide:0'],
      ['answer_in', 'q_wide:37'],
    ],
    keep: (a) => a.q_wide === 0 || a.q_wide === 37,
  },
  'single choice in, both options': {
    b: 'answers.q_plan in [opt_pro, opt_basic]',
    a: [
      ['answer_in', 'q_plan:opt_pro'],
      ['answer_in', 'q_plan:opt_basic'],
    ],
    keep: (a) => has(a, 'q_plan'),
  },
  'multiple choice in, one option twice': {
    b: 'answers.q_feat in [opt_sso, opt_sso]',
    a: [
      ['answer_in', 'q_feat:opt_sso'],
      ['answer_in', 'q_feat:opt_sso'],
    ],
    keep: (a) => feats(a).includes('opt_sso'),
  },
  'number > with a fraction': { b: 'answers.q_num > 12.25', a: [['answer_gt', 'q_num:12.25']], keep: (a) => cmp(num(a, 'q_num'), (x) => x > 12.25) },
  'number =': { b: 'answers.q_num = 12.50', a: [['answer', 'q_num:12.50']], keep: (a) => a.q_num === 12.5 },
  'number in, exponent spelling': {
    b: 'answers.q_num in [1e2, 1]',
    a: [
      ['answer_in', 'q_num:1e2'],
      ['answer_in', 'q_num:1'],
    ],
    keep: (a) => a.q_num === 100 || a.q_num === 1,
  },
  'text ~ ignores case': {
    b: 'answers.q_text ~ slow',
    a: [['answer_contains', 'q_text:slow']],
    keep: (a) => cmp(str(a, 'q_text'), (x) => String(x).toLowerCase().includes('slow')),
  },
  'text ~ takes % and _ literally': {
    b: 'answers.q_text ~ "0% slow_"',
    a: [['answer_contains', 'q_text:0% slow_']],
    keep: (a) => cmp(str(a, 'q_text'), (x) => String(x).includes('0% slow_')),
  },
  'text ~ a backslash': {
    b: 'answers.q_text ~ "k\\\\s"',
    a: [['answer_contains', 'q_text:k\\s']],
    keep: (a) => cmp(str(a, 'q_text'), (x) => String(x).includes('k\\s')),
  },
  'text ~ non-ASCII, quotes and commas': {
    b: 'answers.q_text ~ "ÜNÏCODE AND \\"QUOTES\\", COMMAS [X]"',
    a: [['answer_contains', 'q_text:ünïcode and "quotes", commas [x]']],
    keep: (a) => a.q_text === TEXTS[4],
  },
  'text ~ "" holds every text answer, the empty one too': { b: 'answers.q_text ~ ""', a: [['answer_contains', 'q_text:']], keep: (a) => has(a, 'q_text') },
  'text = is exact': { b: 'answers.q_text = fast', a: [['answer', 'q_text:fast']], keep: (a) => a.q_text === 'fast' },
  'text = "" is the empty answer': { b: 'answers.q_text = ""', a: [['answer', 'q_text:']], keep: (a) => a.q_text === '' },
  'email =': { b: 'answers.q_email = a@example.com', a: [['answer', 'q_email:a@example.com']], keep: (a) => a.q_email === 'a@example.com' },
  'email ~': {
    b: 'answers.q_email ~ EXAMPLE.COM',
    a: [['answer_contains', 'q_email:EXAMPLE.COM']],
    keep: (a) => cmp(str(a, 'q_email'), (x) => String(x).toLowerCase().includes('example.com')),
  },
  'email in': {
    b: 'answers.q_email in [B@Example.org, c@example.com]',
    a: [
      ['answer_in', 'q_email:B@Example.org'],
      ['answer_in', 'q_email:c@example.com'],
    ],
    keep: (a) => a.q_email === 'B@Example.org' || a.q_email === 'c@example.com',
  },
  'date = a leap day': { b: 'answers.q_date = 2024-02-29', a: [['answer', 'q_date:2024-02-29']], keep: (a) => a.q_date === '2024-02-29' },
  'date half-open range': {
    b: 'answers.q_date >= 2025-12-31, answers.q_date < 2026-06-15',
    a: [
      ['answer_gte', 'q_date:2025-12-31'],
      ['answer_lt', 'q_date:2026-06-15'],
    ],
    keep: (a) => cmp(str(a, 'q_date'), (x) => x >= '2025-12-31' && x < '2026-06-15'),
  },
  'date > and <=': {
    b: 'answers.q_date > 2024-02-29, answers.q_date <= 2026-01-01',
    a: [
      ['answer_gt', 'q_date:2024-02-29'],
      ['answer_lte', 'q_date:2026-01-01'],
    ],
    keep: (a) => cmp(str(a, 'q_date'), (x) => x > '2024-02-29' && x <= '2026-01-01'),
  },
  'a question id with a colon, quoted': { b: 'answers."q:odd" ~ ODD', a: [['answer_contains', '"q:odd":odd']], keep: (a) => a['q:odd'] === 'yes: odd' },
  'several questions and score, ANDed': {
    b: 'answers.q_plan = opt_pro, answers.q_rating >= 2, answers.q_text != null, score in [1, 3, 5, 7, 9]',
    a: [
      ['answer', 'q_plan:opt_pro'],
      ['answer_gte', 'q_rating:2'],
      ['answer_present', 'q_text:true'],
      ['score_in', '1'],
      ['score_in', '3'],
      ['score_in', '5'],
      ['score_in', '7'],
      ['score_in', '9'],
    ],
    keep: (a) => a.q_plan === 'opt_pro' && cmp(num(a, 'q_rating'), (x) => x >= 2) && has(a, 'q_text') && [1, 3, 5, 7, 9].includes((a.q_nps as number) ?? 0),
  },
};

// Answered and not answered, for every question.
for (const q of ['q_nps', 'q_plan', 'q_feat', 'q_text', 'q_email', 'q_num', 'q_rating', 'q_wide', 'q_date', 'q:odd']) {
  const field = q.includes(':') ? `answers."${q}"` : `answers.${q}`;
  const k = q.includes(':') ? `"${q}"` : q;
  CASES[`${q} answered`] = { b: `${field} != null`, a: [['answer_present', `${k}:true`]], keep: (a) => has(a, q) };
  CASES[`${q} not answered`] = { b: `${field} = null`, a: [['answer_present', `${k}:false`]], keep: (a) => !has(a, q) };
}

describe('filters on answers answer as a plain scan, in both styles and translated', () => {
  it.each(Object.keys(CASES).map((name) => [name]))('%s', async (name) => {
    const c = CASES[name]!;
    const expected = newestFirst(responses.filter((r) => c.keep(r.answers))).map((r) => r.id);
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(responses.length);
    const [a, b, tr] = await Promise.all([styleA([['form_id', form], ...c.a]), styleB(c.b), translated(c.b)]);
    expect(a).toEqual(expected);
    expect(b).toEqual({ ids: expected, filteredTotal: expected.length });
    expect(tr).toEqual(expected);
  });

  it.each([
    ['a rating bound past the scale', 'answers.q_rating > 5', [['answer_gt', 'q_rating:5']]],
    ['an nps value off the scale', 'answers.q_nps = 10.5', [['answer', 'q_nps:10.5']]],
    ['a rating below the scale', 'answers.q_rating < 1', [['answer_lt', 'q_rating:1']]],
  ])('%s keeps nothing, with filtered_total 0', async (_name, b, a) => {
    expect(await styleA([['form_id', form], ...(a as Pairs)])).toEqual([]);
    expect(await styleB(b)).toEqual({ ids: [], filteredTotal: 0 });
    expect(await translated(b)).toEqual([]);
  });

  it('counts filtered_total the same with the form in the filter, with a date bound and with a second clause', async () => {
    const keep = newestFirst(responses.filter((r) => cmp(num(r.answers, 'q_nps'), (x) => x >= 9))).map((r) => r.id);
    // The form by a `form_id` condition: the total from the rollups; one for another form keeps nothing.
    expect(await styleB(`form_id = ${form}, answers.q_nps >= 9`, [])).toEqual({ ids: keep, filteredTotal: keep.length });
    expect(await styleB(`form_id = ${other}, answers.q_nps >= 9`, [['form_id', form]])).toEqual({ ids: [], filteredTotal: 0 });
    // A date bound or a second clause: a COUNT over the responses, the same number.
    expect(
      await styleB('answers.q_nps >= 9', [
        ['form_id', form],
        ['start_date', '2026-02-01T10:00:00Z'],
      ]),
    ).toEqual({ ids: keep, filteredTotal: keep.length });
    const both = newestFirst(responses.filter((r) => cmp(num(r.answers, 'q_nps'), (x) => x >= 9) && has(r.answers, 'q_text'))).map((r) => r.id);
    expect(await styleB('answers.q_nps >= 9, answers.q_text != null')).toEqual({ ids: both, filteredTotal: both.length });
  });

  it('takes the form from a `form_id = v` condition, the form path, v2 and the export', async () => {
    const keep = newestFirst(responses.filter((r) => r.answers.q_plan === 'opt_pro')).map((r) => r.id);
    expect(await styleB(`form_id = ${form}, answers.q_plan = opt_pro`, [])).toEqual({ ids: keep, filteredTotal: keep.length });
    expect(await styleA([['answer', 'q_plan:opt_pro']], `/api/v1/workspaces/${ws}/forms/${form}/responses`)).toEqual(keep);
    expect(
      await styleA(
        [
          ['form_id', form],
          ['answer', 'q_plan:opt_pro'],
        ],
        `/api/v2/workspaces/${ws}/responses`,
      ),
    ).toEqual(keep);
    for (const [style, query] of [
      [
        'A',
        qs([
          ['form_id', form],
          ['answer', 'q_plan:opt_pro'],
        ]),
      ],
      [
        'B',
        qs([
          ['form_id', form],
          ['filter', 'answers.q_plan = opt_pro'],
        ]),
      ],
    ]) {
      const res = await get(`/api/v1/workspaces/${ws}/responses/export?${query}`).set('X-API-Style', style!);
      expect(res.status).toBe(200);
      const lines = res.text
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { id: string }).id);
      expect(lines).toEqual(keep);
    }
  });

  it('pages with exact totals (Style B) and by cursor (Style A)', async () => {
    const keep = newestFirst(responses.filter((r) => cmp(num(r.answers, 'q_rating'), (x) => x >= 3))).map((r) => r.id);
    const page = await get(
      `${list()}?${qs([
        ['filter', 'answers.q_rating >= 3'],
        ['form_id', form],
        ['page', '2'],
        ['limit', '4'],
      ])}`,
    );
    expect(page.body.meta).toEqual({ total: responses.length + 1, page: 2, limit: 4, filtered_total: keep.length });
    expect(ids(page.body)).toEqual(keep.slice(4, 8));
    const seen: string[] = [];
    let url: string | null = `${list()}?${qs([
      ['form_id', form],
      ['answer_gte', 'q_rating:3'],
      ['limit', '3'],
    ])}`;
    while (url) {
      const res = await get(url.replace(/^https?:\/\/[^/]+/, ''));
      expect(res.status).toBe(200);
      seen.push(...ids(res.body));
      url = res.body.links.next as string | null;
    }
    expect(seen).toEqual(keep);
  });
});

describe('filters on answers: bad input is a 400 naming the field', () => {
  const fail = async (query: Pairs, field: string, message: RegExp, path = list()) => {
    const res = await get(`${path}?${qs(query)}`);
    expect({ status: res.status, code: res.body.error?.code, fields: (res.body.error?.details ?? []).map((d: { field: string }) => d.field) }).toEqual({
      status: 400,
      code: 'validation_error',
      fields: [field],
    });
    expect(res.body.error.details[0].message).toMatch(message);
  };

  it.each([
    ['no form', [['filter', 'answers.q_plan = opt_pro']], /needs `form_id`: question ids belong to a form/],
    [
      'an unknown question',
      [
        ['form_id', 'FORM'],
        ['filter', 'score = 1, answers.q_nope = 1'],
      ],
      /unknown question "q_nope" in form "frm_\w+"; its questions: q_nps, q_plan, .*, q:odd \(position 12\)\.$/,
    ],
    [
      'an unknown form',
      [
        ['form_id', 'frm_none'],
        ['filter', 'answers.q_plan = opt_pro'],
      ],
      /unknown question "q_plan" in form "frm_none".*its questions: none/,
    ],
    [
      '~ on a choice',
      [
        ['form_id', 'FORM'],
        ['filter', 'answers.q_plan ~ pro'],
      ],
      /"~" \(contains\) applies to text and email answers; "q_plan" is a single_choice question/,
    ],
    [
      '>= on text',
      [
        ['form_id', 'FORM'],
        ['filter', 'answers.q_text >= a'],
      ],
      /">=" applies to number, rating, nps and date answers; "q_text" is a text question/,
    ],
    [
      '< on a multiple choice',
      [
        ['form_id', 'FORM'],
        ['filter', 'answers.q_feat < opt_api'],
      ],
      /"<" applies to number, rating, nps and date answers/,
    ],
    [
      'a comparison with null',
      [
        ['form_id', 'FORM'],
        ['filter', 'answers.q_rating >= null'],
      ],
      /">=" needs a value, not null/,
    ],
    [
      'a rating that is no number',
      [
        ['form_id', 'FORM'],
        ['filter', 'answers.q_rating in [1, abc]'],
      ],
      /"abc" is not a number for the rating question "q_rating"/,
    ],
    [
      'an impossible date',
      [
        ['form_id', 'FORM'],
        ['filter', 'answers.q_date = 2024-02-30'],
      ],
      /"2024-02-30" is not a date YYYY-MM-DD/,
    ],
    [
      'an unknown option',
      [
        ['form_id', 'FORM'],
        ['filter', 'answers.q_plan = opt_gold'],
      ],
      /"opt_gold" is not an option of question "q_plan"; its options: opt_pro, opt_basic/,
    ],
    [
      'a comparison on a plain field',
      [['filter', 'score >= 9']],
      /">=" does not apply to "score", which takes =, !=, ~ and in; comparisons apply to answers.<question_id>/,
    ],
  ])('Style B: %s names filter', async (_name, query, message) => {
    await fail(
      (query as Pairs).map(([k, v]) => [k, v === 'FORM' ? form : v]),
      'filter',
      message,
    );
  });

  it.each([
    ['no form', [['answer', 'q_plan:opt_pro']], 'answer', /needs `form_id`/],
    ['an unknown question', [['answer_in', 'q_nope:1']], 'answer_in', /unknown question "q_nope"/],
    ['contains on a number', [['answer_contains', 'q_num:1']], 'answer_contains', /"~" \(contains\) applies to text and email answers/],
    ['a bound on a choice', [['answer_gte', 'q_plan:opt_pro']], 'answer_gte', /">=" applies to number, rating, nps and date answers/],
    ['a number that is no number', [['answer_lt', 'q_num:ten']], 'answer_lt', /"ten" is not a number for the number question "q_num"/],
    ['a bad date', [['answer_gt', 'q_date:2026-13-01']], 'answer_gt', /is not a date YYYY-MM-DD/],
    ['no question id', [['answer', 'opt_pro']], 'answer', /`answer` must be <question_id>:<value>; got "opt_pro"/],
    ['a present that is not true or false', [['answer_present', 'q_text:yes']], 'answer_present', /must be <question_id>:true or <question_id>:false/],
    ['an empty value', [['answer_ne', '']], 'answer_ne', /answer_ne/],
  ])('Style A: %s names the parameter', async (name, query, field, message) => {
    const pairs = name === 'no form' ? (query as Pairs) : [['form_id', form] as [string, string], ...(query as Pairs)];
    await fail(pairs, field as string, message);
  });

  it('Style A on the form path: an unknown question names the parameter', async () => {
    await fail([['answer_present', 'q_nope:true']], 'answer_present', /unknown question "q_nope" in form/, `/api/v1/workspaces/${ws}/forms/${form}/responses`);
  });

  it('an answer parameter with filter is the 400 naming both; with X-API-Style: B it names the parameter', async () => {
    const both = await get(
      `${list()}?${qs([
        ['answer', 'q_plan:opt_pro'],
        ['filter', 'score = 1'],
      ])}`,
    );
    expect(both.status).toBe(400);
    expect((both.body.error.details as Array<{ field: string }>).map((d) => d.field).sort()).toEqual(['answer', 'filter']);
    const b = await get(`${list()}?${qs([['answer_gte', 'q_rating:1']])}`).set('X-API-Style', 'B');
    expect(b.status).toBe(400);
    expect((b.body.error.details as Array<{ field: string }>).map((d) => d.field)).toEqual(['answer_gte']);
  });
});
