/**
 * Keywords of text answers (docs/analytics.md, "Keywords"): `GET {ws}/forms/{form_id}/analytics/keywords` in both
 * styles, checked against a plain computation on the same data (each answer's own to_tsvector, counted here); stop
 * words gone, German stemmed with the german configuration, the period filter (whole and partial days), the rollup
 * exact after a single delete, a bulk delete and an erasure; terms that look like an email address, a URL or a long
 * number never counted; bad input a 400 naming the field. The answers are validated against openapi/ by the test app.
 */
import { importFixture } from '../../../src/core/import/importer';
import type { FixtureResponse } from '../../../src/core/import/fixture-schema';
import { useTestApp } from '../../support/app';
import { formWorkspace, uid, type FormWorkspace } from '../../support/given';

const t = useTestApp();

const ENGLISH = [
  'The price is too high',
  'Support was slow and the price is high',
  'Great support, fast delivery',
  'Not bad at all, fast delivery',
  'Slow support, slow delivery, price too high',
  'Mail me at planted.person@example.com or see https://planted.example.org/secret-page',
  'My phone is 01701234567 and the price is high',
  'fast delivery and great support',
];
const GERMAN = ['Die Preise sind zu hoch', 'Der Support war langsam, die Preise zu hoch', 'Schnelle Lieferung und guter Support'];

interface Plain {
  count: number;
  scored: number;
  sum: number;
}
type PlainTerms = Map<string, Map<string, Plain>>;

const at = (day: number, hour: number, month = 0) => new Date(Date.UTC(2026, month, day, hour)).toISOString();

let w: FormWorkspace;
let fixture: FixtureResponse[];

beforeAll(async () => {
  w = await formWorkspace(t.db, {
    form: (ws, id) => ({
      id,
      workspace_id: ws,
      name: 'Keywords',
      default_language: 'en',
      questions: [
        { id: 'q_nps', type: 'nps', title: 'How likely?' },
        { id: 'q_why', type: 'text', title: 'Why?' },
        { id: 'q_more', type: 'text', title: 'Anything else?' },
        { id: 'q_email', type: 'email', title: 'Email?' },
      ],
    }),
  });
  fixture = [];
  for (let i = 0; i < 33; i++) {
    const german = i % 3 === 2;
    const texts = german ? GERMAN : ENGLISH;
    fixture.push({
      id: uid('rsp'),
      form_id: w.form,
      score: i % 11,
      language: german ? 'de' : 'en',
      created_at: at(10 + (i % 6), 6 + (i % 12), i % 5 === 4 ? 1 : 0),
      answers: [
        { question_id: 'q_nps', value: i % 11 },
        ...(i % 7 === 6 ? [] : [{ question_id: 'q_why', value: texts[(german ? Math.floor(i / 3) : i) % texts.length]! }]),
        ...(i % 4 === 0 ? [{ question_id: 'q_more', value: texts[(i + 1) % texts.length]! }] : []),
        ...(i % 5 === 0 ? [{ question_id: 'q_email', value: `erase-${i}@example.com` }] : []),
      ],
    } as FixtureResponse);
  }
  await importFixture(t.db, { responses: fixture });
});

/**
 * The plain computation: every stored response of the form in range, each text answer's own to_tsvector with the
 * configuration of the response's language; words and adjacent pairs counted here, once per answer.
 */
async function plain(range: { from?: string; before?: string } = {}): Promise<PlainTerms> {
  const q = t
    .db('responses as r')
    .joinRaw('CROSS JOIN LATERAL jsonb_array_elements(r.answers) AS a')
    .where({ 'r.workspace_id': w.ws, 'r.form_id': w.form })
    .whereRaw("a->>'type' = 'text'")
    .select(
      t.db.raw("a->>'question_id' AS question_id"),
      t.db.raw("to_tsvector(response_search_config(r.language), a->>'value')::text AS vec"),
      t.db.raw("a->'sentiment'->'score' AS score"),
    );
  if (range.from) q.where('r.created_at', '>=', range.from);
  if (range.before) q.where('r.created_at', '<', range.before);
  const rows = (await q) as Array<{ question_id: string; vec: string; score: number | null }>;
  const out: PlainTerms = new Map();
  const privateTerm = (x: string) => /[@/:]/.test(x) || /[\p{L}\p{N}]\.[\p{L}\p{N}]/u.test(x) || x.replace(/\D/g, '').length >= 5;
  for (const r of rows) {
    const at = new Map<number, string>();
    for (const m of r.vec.matchAll(/'((?:[^']|'')*)':([\d,]+)/g)) {
      const lexeme = m[1]!.replace(/''/g, "'");
      if (privateTerm(lexeme)) continue;
      for (const p of m[2]!.split(',')) at.set(Number(p), lexeme);
    }
    const terms = new Set<string>(at.values());
    for (const [p, lexeme] of at) if (at.has(p + 1)) terms.add(`${lexeme} ${at.get(p + 1)!}`);
    let byTerm = out.get(r.question_id);
    if (!byTerm) out.set(r.question_id, (byTerm = new Map()));
    for (const term of terms) {
      const c = byTerm.get(term) ?? { count: 0, scored: 0, sum: 0 };
      c.count += 1;
      if (typeof r.score === 'number') {
        c.scored += 1;
        c.sum += r.score;
      }
      byTerm.set(term, c);
    }
  }
  return out;
}

const round3 = (n: number) => {
  const r = Math.round(n * 1000) / 1000;
  return r === 0 ? 0 : r;
};
const label = (s: number) => (s >= 0.05 ? 'positive' : s <= -0.05 ? 'negative' : 'neutral');

/** The top `limit` terms and phrases of a question by the plain computation, in the answer's order. */
function top(p: PlainTerms, questionId: string, limit: number) {
  const all = [...(p.get(questionId) ?? new Map<string, Plain>())].map(([term, c]) => ({
    term,
    // The readable form comes from a sample of answers: checked on its own below.
    text: expect.any(String) as unknown as string,
    count: c.count,
    sentiment: c.scored > 0 ? { score: round3(c.sum / c.scored), label: label(round3(c.sum / c.scored)) } : null,
  }));
  all.sort((a, b) => b.count - a.count || (a.term < b.term ? -1 : a.term > b.term ? 1 : 0));
  return { terms: all.filter((x) => !x.term.includes(' ')).slice(0, limit), phrases: all.filter((x) => x.term.includes(' ')).slice(0, limit) };
}

const get = (path: string, style: 'A' | 'B') =>
  t.http().get(`/api/v1/workspaces/${w.ws}/forms/${w.form}/analytics/keywords${path}`).set('X-API-Key', w.key).set('X-API-Style', style);

async function expectAgree(query: string, style: 'A' | 'B', range: { from?: string; before?: string } = {}, limit = 50) {
  const res = await get(`?limit=${limit}${query}`, style);
  expect({ status: res.status, error: res.body.error }).toEqual({ status: 200, error: undefined });
  const p = await plain(range);
  const idKey = style === 'A' ? 'question_id' : 'questionId';
  expect(res.body.data).toEqual([
    { [idKey]: 'q_why', title: 'Why?', ...top(p, 'q_why', limit) },
    { [idKey]: 'q_more', title: 'Anything else?', ...top(p, 'q_more', limit) },
  ]);
  return res.body.data as Array<{ terms: Array<{ term: string; count: number }>; phrases: Array<{ term: string; count: number }> }>;
}

describe('GET {ws}/forms/{form_id}/analytics/keywords', () => {
  it('Style A: terms and phrases with counts and sentiment agree with a plain computation; stop words gone', async () => {
    const data = await expectAgree('', 'A');
    const terms = data[0]!.terms.map((x) => x.term);
    expect(terms).toEqual(expect.arrayContaining(['price', 'high', 'slow', 'support', 'deliveri', 'fast']));
    for (const stop of ['the', 'is', 'and', 'too', 'die', 'und', 'sind', 'zu', 'der']) expect(terms).not.toContain(stop);
    expect(data[0]!.phrases.map((x) => x.term)).toEqual(expect.arrayContaining(['fast deliveri', 'great support']));
    // "price is high": a stop word between breaks the pair.
    expect(data[0]!.phrases.map((x) => x.term)).not.toContain('price high');
    expect(data[0]!.terms.length).toBeGreaterThan(5);
  });

  it('German answers are stemmed with the german configuration (Preise → preis, Lieferung → liefer)', async () => {
    const data = await expectAgree('', 'B');
    const terms = data[0]!.terms.map((x) => x.term);
    expect(terms).toEqual(expect.arrayContaining(['preis', 'hoch', 'langsam', 'schnell', 'liefer']));
    expect(data[0]!.phrases.map((x) => x.term)).toContain('schnell liefer');
  });

  it('shows each term as people wrote it (the most frequent word behind the lexeme), phrases too', async () => {
    const res = await get('?limit=50', 'A');
    const text = (list: Array<{ term: string; text: string }>) => new Map(list.map((x) => [x.term, x.text]));
    const terms = text(res.body.data[0].terms);
    const phrases = text(res.body.data[0].phrases);
    expect([terms.get('deliveri'), terms.get('price'), terms.get('preis'), terms.get('liefer'), terms.get('langsam')]).toEqual([
      'delivery',
      'price',
      'preise',
      'lieferung',
      'langsam',
    ]);
    expect([phrases.get('fast deliveri'), phrases.get('schnell liefer')]).toEqual(['fast delivery', 'schnelle lieferung']);
  });

  it('never counts an email address, a URL or a long number found in the text', async () => {
    const res = await get('?limit=50', 'A');
    const all = JSON.stringify(res.body.data);
    for (const planted of ['planted', 'example.com', 'example.org', 'secret-page', '01701234567', 'http']) expect(all).not.toContain(planted);
    // The words around them still count.
    expect(all).toContain('"mail"');
  });

  it('the period: Style A created_after/created_before (partial days) and Style B start_date/end_date agree', async () => {
    await expectAgree('&created_after=2026-01-11T09:00:00Z&created_before=2026-01-14T13:00:00Z', 'A', {
      from: '2026-01-11T09:00:00Z',
      before: '2026-01-14T13:00:00Z',
    });
    await expectAgree('&start_date=2026-01-12&end_date=2026-01-13', 'B', { from: '2026-01-12T00:00:00Z', before: '2026-01-14T00:00:00Z' });
    // Whole months from the monthly rollup with the days around them from the daily one.
    await expectAgree('&created_after=2026-01-12', 'A', { from: '2026-01-12T00:00:00Z' });
    await expectAgree('&start_date=2026-01-01&end_date=2026-02-12', 'B', { from: '2026-01-01T00:00:00Z', before: '2026-02-13T00:00:00Z' });
    await expectAgree('&created_before=2026-02-11T10:00:00Z', 'A', { before: '2026-02-11T10:00:00Z' });
    await expectAgree('&created_after=2026-01-12T07:00:00Z&created_before=2026-01-12T15:00:00Z', 'A', {
      from: '2026-01-12T07:00:00Z',
      before: '2026-01-12T15:00:00Z',
    });
  });

  it('limit cuts each list; Style B answers one page with totals', async () => {
    const res = await get('?limit=2', 'B');
    expect(res.status).toBe(200);
    expect(res.body.meta).toEqual({ total: 2, page: 1, limit: 2, filtered_total: 2 });
    const p = await plain();
    expect(res.body.data[0]).toEqual({ questionId: 'q_why', title: 'Why?', ...top(p, 'q_why', 2) });
  });

  it('answers 400 naming the field for a bad limit, a bad date and parameters of both styles; 404 for another form', async () => {
    const bad = await get('?limit=0', 'A');
    expect(bad.status).toBe(400);
    expect(bad.body.error.details).toEqual([expect.objectContaining({ field: 'limit' })]);
    const date = await get('?created_after=yesterday', 'A');
    expect(date.status).toBe(400);
    expect(date.body.error.details).toEqual([expect.objectContaining({ field: 'created_after' })]);
    const both = await t
      .http()
      .get(`/api/v1/workspaces/${w.ws}/forms/${w.form}/analytics/keywords?created_after=2026-01-01&start_date=2026-01-01`)
      .set('X-API-Key', w.key);
    expect(both.status).toBe(400);
    expect((both.body.error.details as Array<{ field: string }>).map((d) => d.field).sort()).toEqual(['created_after', 'start_date']);
    const gone = await t.http().get(`/api/v1/workspaces/${w.ws}/forms/frm_nothere/analytics/keywords`).set('X-API-Key', w.key);
    expect(gone.status).toBe(404);
  });
});

describe('the rollup stays exact when responses go', () => {
  /** Every (question, term) of the rollup summed over days, against the plain computation over every response. */
  async function expectRollupExact() {
    const rows = (await t
      .db('keyword_rollups')
      .where({ workspace_id: w.ws, form_id: w.form })
      .select('question_id', 'term')
      .sum({ n: 'answers', scored: 'scored', ss: 'sentiment_sum' })
      .groupBy('question_id', 'term')) as Array<{ question_id: string; term: string; n: unknown; scored: unknown; ss: unknown }>;
    const got = rows
      .filter((r) => Number(r.n) !== 0 || Number(r.scored) !== 0 || Number(r.ss) !== 0)
      .map((r) => `${r.question_id}|${r.term}|${Number(r.n)}|${Number(r.scored)}|${round3(Number(r.ss))}`)
      .sort();
    const p = await plain();
    const want = [...p].flatMap(([q, m]) => [...m].map(([term, c]) => `${q}|${term}|${c.count}|${c.scored}|${round3(c.sum)}`)).sort();
    expect(got).toEqual(want);
    // The monthly rollup holds the same sums.
    const monthly = (await t
      .db('keyword_rollups_monthly')
      .where({ workspace_id: w.ws, form_id: w.form })
      .select('question_id', 'term')
      .sum({ n: 'answers', scored: 'scored', ss: 'sentiment_sum' })
      .groupBy('question_id', 'term')) as typeof rows;
    expect(
      monthly
        .filter((r) => Number(r.n) !== 0 || Number(r.scored) !== 0 || Number(r.ss) !== 0)
        .map((r) => `${r.question_id}|${r.term}|${Number(r.n)}|${Number(r.scored)}|${round3(Number(r.ss))}`)
        .sort(),
    ).toEqual(want);
  }

  it('after a single delete, a bulk delete and an erasure (each in its own transaction)', async () => {
    await expectRollupExact();
    const one = fixture[0]!;
    const del = await t.http().delete(`/api/v1/workspaces/${w.ws}/responses/${one.id}`).set('X-API-Key', w.key).set('X-API-Style', 'A');
    expect(del.status).toBe(204);
    await expectRollupExact();
    const bulk = await t
      .http()
      .post(`/api/v1/workspaces/${w.ws}/response-deletions`)
      .set('X-API-Key', w.key)
      .set('X-API-Style', 'A')
      .send({ form_id: w.form, created_after: '2026-01-15', created_before: '2026-01-16' });
    expect(bulk.status).toBe(200);
    expect(bulk.body.data.deleted).toBeGreaterThan(0);
    await expectRollupExact();
    const erase = await t
      .http()
      .post(`/api/v1/workspaces/${w.ws}/erasure-requests`)
      .set('X-API-Key', w.key)
      .set('X-API-Style', 'A')
      .send({ email: 'erase-5@example.com' });
    expect(erase.status).toBe(201);
    await expectRollupExact();
    await expectAgree('', 'A');
  });
});
