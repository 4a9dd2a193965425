/**
 * Full-text search over text answers (docs/api-rules.md, "Searching text answers"): `q` in both styles, on the
 * workspace list, the form's list, v2 and the export. Stemming cannot be re-implemented in the test, so the data is
 * chosen so that each query's hits are known by hand: English "pricing"/"prices" stem to "price", German
 * "Preise"/"Preis" to "preis", a language PostgreSQL does not stem (`xx`) is searched word for word, an email
 * answer is never searched, a second text question is. Each case's ids are compared with that hand-made scan in
 * list order, in Style A, Style B (with `filtered_total`) and translated. Relevance order: the same on both
 * databases (this file runs on pg and pglite with one expectation), ties by id. Bad input: a 400 naming `q` or `sort`.
 */
import { importFixture } from '../../../src/core/import/importer';
import type { FixtureResponse } from '../../../src/core/import/fixture-schema';
import { useTestApp } from '../../support/app';
import { everyTypeForm, newestFirst, uid, workspaceWithKey } from '../../support/given';

const t = useTestApp();

interface Row {
  label: string;
  language: string;
  text?: string;
  more?: string;
  email?: string;
  plan: 'opt_pro' | 'opt_basic';
  /** Minutes after the first response; equal minutes tie on created_at. */
  minute: number;
}

/** The responses, by label. */
const ROWS: Row[] = [
  { label: 'E1', language: 'en', text: 'The pricing is confusing', plan: 'opt_pro', minute: 1 },
  { label: 'E2', language: 'en', text: 'Prices went up again', plan: 'opt_basic', minute: 2 },
  { label: 'E3', language: 'en', text: 'Support was slow to answer', plan: 'opt_pro', minute: 3 },
  { label: 'E4', language: 'en', text: 'The app is too expensive for what it does', plan: 'opt_basic', minute: 4 },
  { label: 'E5', language: 'en', text: 'Great support, fast answers', plan: 'opt_pro', minute: 5 },
  { label: 'E6', language: 'en', text: 'Pricing, pricing, pricing: the price is everything', plan: 'opt_pro', minute: 6 },
  { label: 'E7', language: 'en', text: '<script>alert(1)</script> price & value', plan: 'opt_basic', minute: 7 },
  { label: 'D1', language: 'de', text: 'Die Preise sind zu hoch', plan: 'opt_pro', minute: 8 },
  { label: 'D2', language: 'de', text: 'Der Preis ist in Ordnung', plan: 'opt_basic', minute: 9 },
  { label: 'D3', language: 'de', text: 'Sehr langsam', plan: 'opt_pro', minute: 10 },
  { label: 'X1', language: 'xx', text: 'pricing here is unstemmed', plan: 'opt_pro', minute: 11 },
  { label: 'M1', language: 'en', email: 'price@example.com', plan: 'opt_pro', minute: 12 },
  { label: 'M2', language: 'en', text: '', plan: 'opt_basic', minute: 13 },
  { label: 'M3', language: 'en', text: 'I like it', more: 'The pricing page', plan: 'opt_pro', minute: 14 },
  { label: 'T1', language: 'en', text: 'fair price', plan: 'opt_pro', minute: 15 },
  { label: 'T2', language: 'en', text: 'fair price', plan: 'opt_pro', minute: 15 },
];

let ws: string;
let key: string;
let form: string;
let other: string;
const idOf = new Map<string, string>();
const labelOf = new Map<string, string>();
const START = Date.parse('2026-03-01T10:00:00Z');
const createdAt = (minute: number) => new Date(START + minute * 60_000).toISOString();

beforeAll(async () => {
  ({ ws, key } = await workspaceWithKey(t.db));
  form = uid('frm');
  other = uid('frm');
  const base = everyTypeForm(ws, form);
  const fixture: FixtureResponse[] = ROWS.map((r) => {
    const id = uid('rsp');
    idOf.set(r.label, id);
    labelOf.set(id, r.label);
    const answers: Array<{ question_id: string; value: string }> = [{ question_id: 'q_plan', value: r.plan }];
    if (r.text !== undefined) answers.push({ question_id: 'q_text', value: r.text });
    if (r.more !== undefined) answers.push({ question_id: 'q_more', value: r.more });
    if (r.email !== undefined) answers.push({ question_id: 'q_email', value: r.email });
    return { id, form_id: form, score: 0, language: r.language, created_at: createdAt(r.minute), answers };
  });
  // Another form: the workspace-wide list searches it too, a form's list does not.
  const otherId = uid('rsp');
  idOf.set('O1', otherId);
  labelOf.set(otherId, 'O1');
  fixture.push({ id: otherId, form_id: other, score: 0, created_at: createdAt(16), answers: [{ question_id: 'q_text', value: 'price list please' }] });
  await importFixture(t.db, {
    forms: [{ ...base, questions: [...(base.questions ?? []), { id: 'q_more', type: 'text', title: 'More?' }] }, everyTypeForm(ws, other)],
    responses: fixture,
  });
});

const get = (path: string) => t.http().get(path).set('X-API-Key', key);
type Pairs = Array<[string, string]>;
const qs = (pairs: Pairs) => pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
const list = () => `/api/v1/workspaces/${ws}/responses`;
const labels = (body: { data: Array<{ id: string }> }) => body.data.map((r) => labelOf.get(r.id) ?? r.id);
/** Labels in the list's normal order (newest first, ties by id descending). */
const newest = (ls: string[]) =>
  newestFirst(ls.map((l) => ({ id: idOf.get(l)!, created_at: l === 'O1' ? createdAt(16) : createdAt(ROWS.find((r) => r.label === l)!.minute) }))).map((r) =>
    labelOf.get(r.id)!,
  );

async function styleA(pairs: Pairs, path = list()) {
  const res = await get(`${path}?${qs([...pairs, ['limit', '100']])}`).set('X-API-Style', 'A');
  expect({ status: res.status, error: res.body.error }).toEqual({ status: 200, error: undefined });
  expect(res.body.meta.has_more).toBe(false);
  return res.body as { data: Array<{ id: string; search_excerpt?: string | null }> };
}

async function styleB(pairs: Pairs) {
  const res = await get(`${list()}?${qs([...pairs, ['limit', '1000']])}`).set('X-API-Style', 'B');
  expect({ status: res.status, error: res.body.error }).toEqual({ status: 200, error: undefined });
  return res.body as { data: Array<{ id: string; searchExcerpt?: string | null }>; meta: { filtered_total: number } };
}

/** The Style B request through the translator, then the Style A request it names. */
async function translated(query: Record<string, string>): Promise<string[]> {
  const tr = await t
    .http()
    .post('/api/v1/translate')
    .set('X-API-Key', key)
    .send({ method: 'GET', path: list(), query: { ...query, limit: '100' }, headers: { 'X-API-Style': 'B' } });
  expect({ status: tr.status, error: tr.body.error }).toEqual({ status: 200, error: undefined });
  const request = tr.body.data.request as { path: string; query: Record<string, string | string[]>; headers: Record<string, string> };
  const pairs = Object.entries(request.query).flatMap(([k, v]) => (Array.isArray(v) ? v : [v]).map((one): [string, string] => [k, one]));
  const res = await get(`${request.path}?${qs(pairs)}`).set(request.headers);
  expect({ status: res.status, error: res.body.error }).toEqual({ status: 200, error: undefined });
  return labels(res.body);
}

/** `q` (with Style A and Style B extra parameters) and the labels it must find on the form. */
interface Case {
  q: string;
  a?: Pairs;
  b?: Pairs;
  hits: string[];
}

const CASES: Record<string, Case> = {
  'English stemming: price finds pricing and prices; German and unstemmed rows by their own rules': {
    q: 'price',
    hits: ['E1', 'E2', 'E6', 'E7', 'M3', 'T1', 'T2'],
  },
  'the same stem from another spelling': { q: 'PRICING', hits: ['E1', 'E2', 'E6', 'E7', 'M3', 'T1', 'T2', 'X1'] },
  'German stemming: Preis finds Preise': { q: 'Preis', hits: ['D1', 'D2'] },
  'a phrase': { q: '"too expensive"', hits: ['E4'] },
  'a phrase in other words order is no phrase': { q: '"confusing pricing"', hits: [] },
  'words are ANDed': { q: 'confusing pricing', hits: ['E1'] },
  or: { q: 'slow or langsam', hits: ['E3', 'D3'] },
  '-word excludes': { q: 'price -fair', hits: ['E1', 'E2', 'E6', 'E7', 'M3'] },
  'punctuation is ignored': { q: 'support,,, !!', hits: ['E3', 'E5'] },
  'the second text question is searched': { q: 'page', hits: ['M3'] },
  'an email answer is not searched': { q: 'example', hits: [] },
  'combined with an answer filter and a date filter': {
    q: 'price',
    a: [
      ['answer', 'q_plan:opt_pro'],
      ['created_after', createdAt(2)],
    ],
    b: [
      ['filter', 'answers.q_plan = opt_pro'],
      ['start_date', createdAt(2)],
    ],
    hits: ['E6', 'M3', 'T1', 'T2'],
  },
};

describe('search: the hits of a plain scan, in list order, in both styles and translated', () => {
  it.each(Object.keys(CASES).map((name) => [name]))('%s', async (name) => {
    const c = CASES[name]!;
    const expected = newest(c.hits);
    const [a, b] = await Promise.all([styleA([['form_id', form], ['q', c.q], ...(c.a ?? [])]), styleB([['form_id', form], ['q', c.q], ...(c.b ?? [])])]);
    expect(labels(a)).toEqual(expected);
    expect({ hits: labels(b), total: b.meta.filtered_total }).toEqual({ hits: expected, total: expected.length });
    const bQuery = Object.fromEntries([['form_id', form], ['q', c.q], ...(c.b ?? [])]);
    expect(await translated(bQuery)).toEqual(expected);
  });

  it('searches the workspace, the form path and v2', async () => {
    const all = newest(['E1', 'E2', 'E6', 'E7', 'M3', 'T1', 'T2', 'O1']);
    expect(labels(await styleA([['q', 'price']]))).toEqual(all);
    expect(labels(await styleB([['q', 'price']]))).toEqual(all);
    const onForm = newest(['E1', 'E2', 'E6', 'E7', 'M3', 'T1', 'T2']);
    expect(labels(await styleA([['q', 'price']], `/api/v1/workspaces/${ws}/forms/${form}/responses`))).toEqual(onForm);
    expect(labels(await styleA([['q', 'price']], `/api/v2/workspaces/${ws}/responses`))).toEqual(all);
  });

  it('the export holds the same responses', async () => {
    for (const style of ['A', 'B']) {
      const res = await get(
        `${list()}/export?${qs([
          ['form_id', form],
          ['q', 'Preis'],
        ])}`,
      ).set('X-API-Style', style);
      expect(res.status).toBe(200);
      const got = res.text
        .trim()
        .split('\n')
        .map((l) => labelOf.get((JSON.parse(l) as { id: string }).id));
      expect(got).toEqual(newest(['D1', 'D2']));
    }
  });
});

describe('search: relevance order and excerpts', () => {
  /** Labels by their ids, descending (the tie-breaker of a descending order). */
  const byIdDescending = (ls: string[]) =>
    ls
      .map((l) => idOf.get(l)!)
      .sort()
      .reverse()
      .map((id) => labelOf.get(id)!);

  it('orders by relevance, ties by id, the same in both styles, by cursor and by page', async () => {
    const a = labels(
      await styleA([
        ['form_id', form],
        ['q', 'pricing'],
        ['sort', 'relevance'],
      ]),
    );
    const b = labels(
      await styleB([
        ['form_id', form],
        ['q', 'pricing'],
        ['sort', 'relevance:desc'],
      ]),
    );
    expect(a).toEqual(b);
    expect(a[0]).toBe('E6');
    // Every other hit holds the word once (the English stem, or X1's unstemmed word): they tie, by id descending.
    expect(a).toEqual(['E6', ...byIdDescending(['E1', 'E2', 'E7', 'M3', 'T1', 'T2', 'X1'])]);
    // Walk Style A by cursor, two at a time; Style B by page, two at a time.
    const walked: string[] = [];
    let url: string | null = `${list()}?${qs([
      ['form_id', form],
      ['q', 'pricing'],
      ['sort', 'relevance'],
      ['limit', '2'],
    ])}`;
    while (url) {
      const res = await get(url.replace(/^https?:\/\/[^/]+/, '')).set('X-API-Style', 'A');
      expect(res.status).toBe(200);
      walked.push(...labels(res.body));
      url = res.body.links.next as string | null;
    }
    expect(walked).toEqual(a);
    const paged: string[] = [];
    for (let page = 1; page <= 4; page++) {
      const res = await get(
        `${list()}?${qs([
          ['form_id', form],
          ['q', 'pricing'],
          ['sort', 'relevance:desc'],
          ['page', String(page)],
          ['limit', '2'],
        ])}`,
      );
      expect(res.body.meta.filtered_total).toBe(a.length);
      paged.push(...labels(res.body));
    }
    expect(paged).toEqual(a);
    expect(await translated({ form_id: form, q: 'pricing', sort: 'relevance:desc' })).toEqual(a);
  });

  it('a cursor in relevance order belongs to its search', async () => {
    const first = await get(
      `${list()}?${qs([
        ['form_id', form],
        ['q', 'pricing'],
        ['sort', 'relevance'],
        ['limit', '2'],
      ])}`,
    );
    const cursor = new URL(first.body.links.next as string, 'http://localhost').searchParams.get('cursor')!;
    const res = await get(
      `${list()}?${qs([
        ['form_id', form],
        ['q', 'prices'],
        ['sort', 'relevance'],
        ['limit', '2'],
        ['cursor', cursor],
      ])}`,
    );
    expect({ status: res.status, field: res.body.error?.details?.[0]?.field }).toEqual({ status: 400, field: 'cursor' });
  });

  it('each item carries the excerpt with the match marked, HTML-escaped; none without q', async () => {
    const a = await styleA([
      ['form_id', form],
      ['q', 'price'],
    ]);
    const b = await styleB([
      ['form_id', form],
      ['q', 'price'],
    ]);
    const excerptA = new Map(a.data.map((r) => [labelOf.get(r.id), r.search_excerpt]));
    const excerptB = new Map(b.data.map((r) => [labelOf.get(r.id), r.searchExcerpt]));
    expect(excerptB).toEqual(excerptA);
    expect(excerptA.get('E1')).toBe('The <mark>pricing</mark> is confusing');
    // Escaped before the headline: no tag survives; the fragment starts at the first word, after the `&lt;` entity.
    expect(excerptA.get('E7')).toBe('script&gt;alert(1)&lt;/script&gt; <mark>price</mark> &amp; value');
    expect(excerptA.get('M3')).toMatch(/The <mark>pricing<\/mark> page/);
    const de = await styleA([
      ['form_id', form],
      ['q', 'preis'],
    ]);
    expect(de.data.map((r) => r.search_excerpt)).toEqual(['Der <mark>Preis</mark> ist in Ordnung', 'Die <mark>Preise</mark> sind zu hoch']);
    const plain = await styleA([['form_id', form]]);
    expect(plain.data.every((r) => !('search_excerpt' in r))).toBe(true);
    const excluded = await styleA([
      ['form_id', form],
      ['q', '-price -pricing -slow -support -preis -langsam -expensive -like -page'],
    ]);
    expect(excluded.data.find((r) => labelOf.get(r.id) === 'M1')?.search_excerpt).toBeNull();
  });
});

describe('search: bad input is a 400 naming the field', () => {
  const fail = async (query: Pairs, style: 'A' | 'B', field: string, message: RegExp) => {
    const res = await get(`${list()}?${qs(query)}`).set('X-API-Style', style);
    expect({ status: res.status, code: res.body.error?.code, fields: (res.body.error?.details ?? []).map((d: { field: string }) => d.field) }).toEqual({
      status: 400,
      code: 'validation_error',
      fields: [field],
    });
    expect(res.body.error.details[0].message).toMatch(message);
  };

  it.each([
    ['only tsquery syntax', '&|!():*'],
    ['only punctuation', '... ,;; ???'],
    ['a lone dash', '-'],
    ['quotes around nothing', '""'],
  ])('a q of %s', async (_name, q) => {
    for (const style of ['A', 'B'] as const) await fail([['q', q]], style, 'q', /`q` holds no word to search for/);
  });

  it('an empty q (the request validator names it)', async () => {
    for (const style of ['A', 'B'] as const) await fail([['q', '']], style, 'q', /Empty value found for query parameter 'q'/);
  });

  it('a q too long: 501 and 10,000 characters', async () => {
    for (const style of ['A', 'B'] as const) {
      for (const n of [501, 10_000]) {
        const res = await get(`${list()}?${qs([['q', 'a'.repeat(n)]])}`).set('X-API-Style', style);
        expect({ status: res.status, fields: (res.body.error?.details ?? []).map((d: { field: string }) => d.field) }).toEqual({ status: 400, fields: ['q'] });
      }
    }
    const ok = await get(`${list()}?${qs([['q', 'é'.repeat(500)]])}`);
    expect(ok.status).toBe(200);
  });

  it('sort by relevance without q', async () => {
    await fail([['sort', 'relevance']], 'A', 'sort', /give `q`/);
    await fail([['sort', 'relevance:desc']], 'B', 'sort', /give `q`/);
    await fail([['sort', 'created_at:desc,relevance:desc']], 'B', 'sort', /give `q`/);
  });

  it('the translator refuses what Style B refuses', async () => {
    const tr = await t
      .http()
      .post('/api/v1/translate')
      .set('X-API-Key', key)
      .send({ method: 'GET', path: list(), query: { sort: 'relevance:desc' }, headers: { 'X-API-Style': 'B' } });
    expect({ status: tr.status, field: tr.body.error?.details?.[0]?.field }).toEqual({ status: 422, field: 'query.sort' });
    expect(tr.body.error.details[0].message).toMatch(/^Style B refuses this request: `sort` by relevance orders the matches of a search: give `q`/);
    const long = await t
      .http()
      .post('/api/v1/translate')
      .set('X-API-Key', key)
      .send({ method: 'GET', path: list(), query: { q: 'a'.repeat(501) }, headers: { 'X-API-Style': 'B' } });
    expect({ status: long.status, field: long.body.error?.details?.[0]?.field }).toEqual({ status: 422, field: 'query.q' });
  });
});
