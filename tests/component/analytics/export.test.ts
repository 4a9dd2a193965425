/**
 * GET {ws}/responses/export (docs/analytics.md, "Exports"): the export equals the list walked page by page in
 * both styles and both formats; CSV is compared with csv-stringify's own RFC 4180 output of the rows
 * built from the list; a client that disconnects mid-export frees the database connection.
 */
import { onEmbeddedDb } from '../../support/db';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { stringify } from 'csv-stringify/sync';
import type { FixtureQuestion } from '../../../src/core/import/fixture-schema';
import { importFixture } from '../../../src/core/import/importer';
import { useTestApp } from '../../support/app';
import { keyFor, uid, workspaceWithKey } from '../../support/given';

// Several tests walk thousands of responses page by page; on PGlite (in this process) under a busy CI that took over 30 s.
jest.setTimeout(120_000);

const ctx = useTestApp();

const QUESTIONS: FixtureQuestion[] = [
  { id: 'q_nps', type: 'nps', title: 'How likely?', required: true },
  {
    id: 'q_plan',
    type: 'single_choice',
    title: 'Plan?',
    options: [
      { id: 'o_a', value: 'Alpha, "quoted"' },
      { id: 'o_b', value: 'Beta' },
    ],
  },
  {
    id: 'q_feat',
    type: 'multiple_choice',
    title: 'Features?',
    options: [
      { id: 'f_1', value: 'One' },
      { id: 'f_2', value: 'Two' },
    ],
  },
  { id: 'q_text', type: 'text', title: 'Comment' },
];

interface Data {
  ws: string;
  key: string;
  form: string;
  other: string;
  languages: Map<string, string>;
}

let data: Data;
const N = 2600;

beforeAll(async () => {
  const { ws, key } = await workspaceWithKey(ctx.db);
  const form = uid('frm');
  const other = uid('frm');
  const languages = new Map<string, string>();
  const base = Date.parse('2026-03-01T00:00:00.000Z');
  const filler = 'x'.repeat(2500);
  const responses = Array.from({ length: N }, (_, i) => {
    const id = uid('rsp');
    const language = i % 2 ? 'de' : 'en';
    languages.set(id, language);
    const f = i % 5 === 4 ? other : form;
    return {
      id,
      form_id: f,
      score: i % 11,
      language,
      // Ties on created_at every 3 rows: the id tie-breaker decides.
      created_at: new Date(base + Math.floor(i / 3) * 60_000).toISOString(),
      respondent_email: i % 7 === 0 ? `p${i}@example.com` : null,
      email_id: i % 7 === 0 ? `em_${i}` : null,
      answers: [
        { question_id: 'q_nps', value: i % 11 },
        ...(i % 3 ? [{ question_id: 'q_plan', value: { id: i % 2 ? 'o_a' : 'o_b' } }] : []),
        ...(i % 4 ? [{ question_id: 'q_feat', value: [{ id: 'f_1' }, { id: 'f_2' }] }] : []),
        ...(i % 6 === 0 ? [{ question_id: 'q_text', value: `line one\r\nline "two", ${i} ${i % 12 === 0 ? filler : ''}` }] : []),
      ],
    };
  });
  await importFixture(ctx.db, {
    forms: [
      { id: form, workspace_id: ws, name: 'Export', questions: QUESTIONS, translations: { de: { q_plan: { options: { o_a: 'Alfa', o_b: 'Beta (de)' } } } } },
      { id: other, workspace_id: ws, name: 'Other', questions: QUESTIONS },
    ],
    responses,
  });
  data = { ws, key, form, other, languages };
}, 120_000);

/** GET with the whole body as text, whatever the content type. */
function getText(path: string, headers: Record<string, string> = {}) {
  let req = ctx.http().get(path).set('X-API-Key', data.key);
  for (const [k, v] of Object.entries(headers)) req = req.set(k, v);
  return req.buffer(true).parse((res, cb) => {
    let text = '';
    res.setEncoding('utf8');
    res.on('data', (c: string) => (text += c));
    res.on('end', () => cb(null, text));
  });
}

/** Every item of a list, following links.next. */
async function walk(path: string, headers: Record<string, string> = {}): Promise<Array<Record<string, unknown>>> {
  const items: Array<Record<string, unknown>> = [];
  let next: string | null = path;
  while (next) {
    let req: ReturnType<ReturnType<typeof ctx.http>['get']> = ctx.http().get(next).set('X-API-Key', data.key);
    for (const [k, v] of Object.entries(headers)) req = req.set(k, v);
    const res: { status: number; body: { data: Array<Record<string, unknown>>; links: { next: string | null } } } = await req;
    expect(res.status).toBe(200);
    items.push(...res.body.data);
    next = res.body.links.next ? new URL(res.body.links.next).pathname + new URL(res.body.links.next).search : null;
  }
  return items;
}

const ndjson = (text: string) =>
  text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

function cell(answers: Array<Record<string, unknown>>, style: 'A' | 'B', q: string): string {
  const a = answers.find((x) => x[style === 'A' ? 'question_id' : 'id'] === q);
  if (!a) return '';
  const v = a.value as unknown;
  if (Array.isArray(v)) return v.map((o) => (o as { value: string }).value).join('; ');
  if (v !== null && typeof v === 'object') return (v as { value: string }).value;
  return String(v);
}

function expectedCsv(items: Array<Record<string, unknown>>, style: 'A' | 'B', questions: string[] | undefined): string {
  const header = ['id', 'form_id', style === 'A' ? 'created_at' : 'createdAt', 'score', 'language', 'respondent_email', 'email_id', 'row_id'];
  const rows: unknown[][] = [[...header, ...(questions ?? ['answers'])]];
  for (const it of items) {
    const answers = it.answers as Array<Record<string, unknown>>;
    rows.push([
      it.id,
      style === 'A' ? it.form_id : (it.form as { id: string }).id,
      style === 'A' ? it.created_at : it.createdAt,
      it.score,
      data.languages.get(it.id as string),
      it.respondent_email ?? '',
      it.email_id ?? '',
      it.row_id ?? '',
      ...(questions ? questions.map((q) => cell(answers, style, q)) : [JSON.stringify(answers)]),
    ]);
  }
  return stringify(rows, { record_delimiter: 'windows', quoted_match: /[\r\n]/ });
}

const ws = () => `/api/v1/workspaces/${data.ws}`;

describe('GET {ws}/responses/export', () => {
  it('Style A NDJSON equals the Style A list walked page by page (filters and sort)', async () => {
    const q = `form_id=${data.form}&score_gte=2&sort=score:asc`;
    const list = await walk(`${ws()}/responses?${q}&limit=100`);
    expect(list.length).toBeGreaterThan(1500);
    const res = await getText(`${ws()}/responses/export?${q}&format=ndjson`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/x-ndjson; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename="responses.ndjson"');
    expect(res.headers['x-api-style']).toBe('A');
    expect(ndjson(res.body as string)).toEqual(list);
  });

  it('Style B NDJSON equals the Style B list walked page by page (filter, dates, includes)', async () => {
    const q = `filter=${encodeURIComponent('score != 3')}&start_date=2026-03-01T02:00:00Z&include_actionlist_data=true&sort=${encodeURIComponent('score:desc,createdAt:asc')}`;
    const list = await walk(`${ws()}/responses?${q}&limit=1000`);
    expect(list.length).toBeGreaterThan(2000);
    const res = await getText(`${ws()}/responses/export?${q}&format=ndjson`);
    expect(res.status).toBe(200);
    expect(res.headers['x-api-style']).toBe('B');
    expect(ndjson(res.body as string)).toEqual(list);
  });

  it('CSV in both styles: a column per question with form_id, else an answers column; RFC 4180', async () => {
    const cases: Array<{ style: 'A' | 'B'; q: string; questions?: string[] }> = [
      { style: 'A', q: `form_id=${data.form}`, questions: QUESTIONS.map((x) => x.id!) },
      { style: 'A', q: 'created_before=2026-03-05&sort=score:desc' },
      { style: 'B', q: `form_id=${data.form}&sort=score:asc`, questions: QUESTIONS.map((x) => x.id!) },
      { style: 'B', q: `filter=${encodeURIComponent(`form_id = ${data.other}`)}` },
    ];
    for (const c of cases) {
      const headers = { 'X-API-Style': c.style };
      const list = await walk(`${ws()}/responses?${c.q}&limit=${c.style === 'A' ? 100 : 1000}`, headers);
      const res = await getText(`${ws()}/responses/export?${c.q}&format=csv`, headers);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(res.headers['content-disposition']).toBe('attachment; filename="responses.csv"');
      expect(res.body).toBe(expectedCsv(list, c.style, c.questions));
    }
    // The header row, spelled out once.
    const a = await getText(`${ws()}/responses/export?form_id=${data.form}&format=csv&created_before=2000-01-01`);
    expect(a.body).toBe('id,form_id,created_at,score,language,respondent_email,email_id,row_id,q_nps,q_plan,q_feat,q_text\r\n');
    const b = await getText(`${ws()}/responses/export?format=csv&start_date=2030-01-01`);
    expect(b.body).toBe('id,form_id,createdAt,score,language,respondent_email,email_id,row_id,answers\r\n');
  });

  it('rejects a bad format, a bad sort and parameters of both styles before streaming', async () => {
    const bad = await ctx.http().get(`${ws()}/responses/export?format=xml`).set('X-API-Key', data.key);
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('validation_error');
    const sort = await ctx.http().get(`${ws()}/responses/export?sort=email`).set('X-API-Key', data.key);
    expect(sort.status).toBe(400);
    expect(sort.body.error.details[0]).toMatchObject({ field: 'sort' });
    const mixed = await ctx.http().get(`${ws()}/responses/export?page=1&cursor=abc`).set('X-API-Key', data.key);
    expect(mixed.status).toBe(400);
  });

  it('counts as one request for the rate limit', async () => {
    const key = await keyFor(ctx.db, [data.ws], { rateLimitPerMinute: 40 });
    const first = await ctx.http().get(`${ws()}/responses/export?format=csv`).set('X-API-Key', key).buffer(true);
    expect(first.status).toBe(200);
    expect(first.headers['x-ratelimit-remaining']).toBe('39');
    const second = await ctx.http().get(`${ws()}/responses?limit=1`).set('X-API-Key', key);
    expect(second.headers['x-ratelimit-remaining']).toBe('38');
  });

  it('frees the database connection when the client disconnects mid-export', async () => {
    const server = ctx.app.listen(0, '127.0.0.1');
    await new Promise<void>((r) => server.once('listening', () => r()));
    const { port } = server.address() as AddressInfo;
    const pool = (ctx.db.client as { pool: { numUsed(): number } }).pool;
    const exporting = async () => {
      const r = (await ctx.db.raw(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'FETCH % FROM response_export' AND state = 'idle in transaction'",
      )) as { rows: Array<{ n: number }> };
      return r.rows[0]!.n;
    };
    const until = async (check: () => Promise<boolean>, ms = 15_000) => {
      const end = Date.now() + ms;
      while (!(await check())) {
        if (Date.now() > end) return false;
        await new Promise((r) => setTimeout(r, 50));
      }
      return true;
    };
    // On PostgreSQL the export must outlast the loopback socket buffers (several MB), so it really waits
    // for 'drain' when the client stops reading: a workspace of its own with ~15 MB of answers.
    const embedded = onEmbeddedDb();
    let path = `${ws()}/responses/export?format=ndjson`;
    let key = data.key;
    if (!embedded) {
      const big = await workspaceWithKey(ctx.db);
      const form = uid('frm');
      const text = 'y'.repeat(2500);
      await importFixture(ctx.db, {
        forms: [{ id: form, workspace_id: big.ws, name: 'Big', questions: QUESTIONS }],
        responses: Array.from({ length: 6000 }, (_, i) => ({
          id: uid('rsp'),
          form_id: form,
          score: i % 11,
          answers: [
            { question_id: 'q_nps', value: i % 11 },
            { question_id: 'q_text', value: text },
          ],
        })),
      });
      path = `/api/v1/workspaces/${big.ws}/responses/export?format=ndjson`;
      key = big.key;
    }
    try {
      const req = http.get({ host: '127.0.0.1', port, path, headers: { 'X-API-Key': key } });
      const response = await new Promise<http.IncomingMessage>((resolve) => req.once('response', resolve));
      response.pause(); // read nothing: the server fills the socket and waits for 'drain'
      expect(response.statusCode).toBe(200);
      // The embedded database has one connection, held by the export: it cannot be asked about itself,
      // but a connection the export kept would make the next query wait forever.
      // (Other test files may export at the same time: count at least one waiting cursor, and judge the
      // release by this app's own pool.)
      if (embedded) await new Promise((r) => setTimeout(r, 500));
      else expect(await until(async () => (await exporting()) >= 1 && pool.numUsed() === 1)).toBe(true);
      req.destroy();
      if (!embedded) expect(await until(async () => pool.numUsed() === 0)).toBe(true);
      const next = ctx.db.raw('SELECT 1 AS ok') as unknown as Promise<{ rows: Array<{ ok: number }> }>;
      const answered = await Promise.race([next.then((r) => r.rows[0]!.ok), new Promise((r) => setTimeout(() => r('timeout'), 10_000))]);
      expect(answered).toBe(1);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  }, 120_000);
});

describe('CSV cells that a spreadsheet would run as formulas (OWASP "CSV Injection")', () => {
  const FORMULA_CHARS: Array<[string, string]> = [
    ['=', '='],
    ['+', '+'],
    ['-', '-'],
    ['@', '@'],
    ['tab', '\t'],
    ['carriage return', '\r'],
  ];
  const questions: FixtureQuestion[] = [
    { id: 'q_text', type: 'text', title: 'Comment' },
    { id: 'q_num', type: 'number', title: 'Delta' },
  ];
  let w: { ws: string; key: string; form: string; ids: Map<string, string>; negative: string };
  beforeAll(async () => {
    const { ws, key } = await workspaceWithKey(ctx.db);
    const form = uid('frm');
    const ids = new Map(FORMULA_CHARS.map(([name]) => [name, uid('rsp')]));
    const negative = uid('rsp');
    await importFixture(ctx.db, {
      forms: [{ id: form, workspace_id: ws, name: 'Formulas', questions }],
      responses: [
        ...FORMULA_CHARS.map(([name, c]) => ({
          id: ids.get(name)!,
          form_id: form,
          score: 0,
          answers: [{ question_id: 'q_text', value: `${c}HYPERLINK("http://evil.example")` }],
        })),
        // A number answer is typed: -5 stays a number; the same characters as text are neutralised.
        {
          id: negative,
          form_id: form,
          score: 0,
          answers: [
            { question_id: 'q_text', value: '-5' },
            { question_id: 'q_num', value: -5 },
          ],
        },
      ],
    });
    w = { ws, key, form, ids, negative };
  });
  const csvOf = async (id: string, style: 'A' | 'B') => {
    const only = style === 'A' ? `id=${id}` : `filter=${encodeURIComponent(`id = ${id}`)}`;
    const res = await ctx
      .http()
      .get(`/api/v1/workspaces/${w.ws}/responses/export?format=csv&form_id=${w.form}&${only}`)
      .set('X-API-Key', w.key)
      .set('X-API-Style', style)
      .buffer(true)
      .parse((r, cb) => {
        let text = '';
        r.setEncoding('utf8');
        r.on('data', (c: string) => (text += c));
        r.on('end', () => cb(null, text));
      });
    expect(res.status).toBe(200);
    return (res.body as string).split('\r\n')[1];
  };

  it.each(FORMULA_CHARS)('a text answer starting with %s gets a leading quote, in both styles', async (name, c) => {
    for (const style of ['A', 'B'] as const) {
      const line = await csvOf(w.ids.get(name)!, style);
      const cell = stringify([[`'${c}HYPERLINK("http://evil.example")`]], { quoted_match: /[\r\n]/ }).replace(/\n$/, '');
      expect(line?.endsWith(`,${cell},`)).toBe(true);
    }
  });

  it('writes a number answer as the number (-5), but the text "-5" as \'-5', async () => {
    const line = await csvOf(w.negative, 'A');
    expect(line?.endsWith(",'-5,-5")).toBe(true);
  });
});
