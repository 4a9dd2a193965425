/**
 * Dashboard links (docs/analytics.md, "Dashboard links") without a browser: minting, listing and revoking in both
 * styles, the page (figures, escaping, language, CSP, budget headers), refusals (revoked, expired, tampered,
 * another workspace's form) and the one-time downloads. The revocation across two instances is in
 * tests/component/platform/scale-out.test.ts.
 */
import { createHash } from 'node:crypto';
import { importFixture } from '../../../src/core/import/importer';
import { formWorkspace, keyFor, surveyForm, uid, type FormWorkspace } from '../../support/given';
import { useTestApp } from '../../support/app';

const PUBLIC_URL = 'https://feedback.example.com';
const t = useTestApp({ publicUrl: PUBLIC_URL });
let s: FormWorkspace;
let other: FormWorkspace;
let empty: string;

const answers = (nps: number, comment?: string) => [
  { question_id: 'q_nps', value: nps },
  { question_id: 'q_rating', value: 4 },
  { question_id: 'q_plan', value: { id: 'opt_pro' } },
  ...(comment === undefined ? [] : [{ question_id: 'q_comment', value: comment }]),
];

beforeAll(async () => {
  s = await formWorkspace(t.db, { form: surveyForm });
  other = await formWorkspace(t.db, { form: surveyForm });
  empty = uid('frm');
  await importFixture(t.db, {
    forms: [{ ...surveyForm(s.ws, empty), name: 'Nobody answered yet' }],
    responses: [
      { id: uid('rsp'), form_id: s.form, score: 10, created_at: '2026-01-05T10:00:00.000Z', answers: answers(10, 'Fast <b>support</b> & "friendly"') },
      { id: uid('rsp'), form_id: s.form, score: 9, created_at: '2026-01-06T10:00:00.000Z', answers: answers(9) },
      { id: uid('rsp'), form_id: s.form, score: 3, created_at: '2026-01-20T10:00:00.000Z', answers: answers(3, 'Too slow') },
      { id: uid('rsp'), form_id: other.form, score: 7, created_at: '2026-01-07T10:00:00.000Z', answers: answers(7, 'other workspace') },
    ] as never,
  });
});

const keyIdOf = async (secret: string) =>
  ((await t.db('api_keys').first('id').where('key_hash', createHash('sha256').update(secret).digest('hex'))) as { id: string }).id;
const base = (form = s.form, ws = s.ws) => `/api/v1/workspaces/${ws}/forms/${form}/dashboard-links`;
const mint = (body: Record<string, unknown> = {}, style: 'A' | 'B' = 'A', form = s.form) =>
  t.http().post(base(form)).set('X-API-Key', s.key).set('X-API-Style', style).send(body);
const pathOf = (url: string) => url.slice(PUBLIC_URL.length);
const page = (url: string, lang?: string) => {
  const r = t.http().get(pathOf(url));
  return lang ? r.set('Accept-Language', lang) : r;
};
const downloadHref = (html: string, format: string) =>
  new RegExp(`href="(/d/[^"]+/export\\?format=${format}&amp;t=[^"]+)"`).exec(html)![1]!.replace(/&amp;/g, '&');

describe('dashboard links through the API', () => {
  it('mints a link in Style A (30 days by default) and in Style B with expiresAt', async () => {
    const a = await mint();
    expect(a.status).toBe(201);
    expect(a.body.data).toEqual({
      id: expect.stringMatching(/^dl_[0-9a-z]{16}$/),
      form_id: s.form,
      url: expect.stringMatching(new RegExp(`^${PUBLIC_URL}/d/[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]{43}$`)),
      expires_at: expect.any(String),
      created_at: expect.any(String),
      created_by: await keyIdOf(s.key),
      include_addresses: false,
    });
    const days = (Date.parse(a.body.data.expires_at) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThanOrEqual(30);
    const at = new Date(Date.now() + 5 * 86_400_000);
    const b = await mint({ expiresAt: at.toISOString() }, 'B');
    expect(b.status).toBe(201);
    expect(b.headers['x-api-style']).toBe('B');
    expect(Object.keys(b.body.data).sort()).toEqual(['createdAt', 'createdBy', 'expiresAt', 'formId', 'id', 'includeAddresses', 'url']);
    expect(b.body.data.expiresAt).toBe(new Date(Math.floor(at.getTime() / 1000) * 1000).toISOString());
  });

  it('answers 400 naming the field for an expiry past 90 days, in the past, not a date-time with an offset, or in the other style', async () => {
    const far = await mint({ expires_at: new Date(Date.now() + 91 * 86_400_000).toISOString() });
    expect(far.status).toBe(400);
    expect(far.body.error.details[0]).toMatchObject({ location: 'body', field: 'expires_at' });
    const past = await mint({ expiresAt: '2020-01-01T00:00:00Z' }, 'B');
    expect(past.status).toBe(400);
    expect(past.body.error.details[0]).toMatchObject({ field: 'expiresAt' });
    // No offset, or not a real day: the same date rules as every other date of the API.
    for (const bad of ['2027-01-01T00:00:00', '2027-02-30T00:00:00Z']) {
      const r = await mint({ expires_at: bad });
      expect(r.status).toBe(400);
      expect(r.body.error.details[0]).toMatchObject({ location: 'body', field: 'expires_at' });
    }
    const foreign = await mint({ expiresAt: new Date(Date.now() + 86_400_000).toISOString() }, 'A');
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.details[0]).toMatchObject({ field: 'expiresAt' });
  });

  it('refuses a form of another workspace: 404 under the own workspace, 403 under the other', async () => {
    const res = await t.http().post(base(other.form)).set('X-API-Key', s.key).send({});
    expect(res.status).toBe(404);
    const res2 = await t.http().post(base(other.form, other.ws)).set('X-API-Key', s.key).send({});
    expect(res2.status).toBe(403);
    expect(res2.body.error.code).toBe('workspace_access_denied');
  });

  it('lists the unrevoked links in both styles, never their URLs, and revokes one: its page is the 404 page', async () => {
    const made = (await mint()).body.data as { id: string; url: string; expires_at: string; created_at: string };
    expect((await page(made.url)).status).toBe(200);
    const listA = await t.http().get(base()).set('X-API-Key', s.key);
    expect(listA.body.data.find((l: { id: string }) => l.id === made.id)).toEqual({
      id: made.id,
      form_id: s.form,
      expires_at: made.expires_at,
      created_at: made.created_at,
      created_by: await keyIdOf(s.key),
      include_addresses: false,
    });
    const listB = await t.http().get(base()).set('X-API-Key', s.key).set('X-API-Style', 'B');
    expect(listB.body.meta).toMatchObject({ page: 1 });
    expect(listB.body.data.find((l: { id: string }) => l.id === made.id)).toEqual({
      id: made.id,
      formId: s.form,
      expiresAt: made.expires_at,
      createdAt: made.created_at,
      createdBy: await keyIdOf(s.key),
      includeAddresses: false,
    });
    for (const list of [listA, listB]) expect(JSON.stringify(list.body)).not.toContain('/d/');
    expect((await t.http().delete(`${base()}/${made.id}`).set('X-API-Key', s.key).set('X-API-Style', 'B')).status).toBe(204);
    expect((await t.http().delete(`${base()}/${made.id}`).set('X-API-Key', s.key)).status).toBe(404);
    const after = await page(made.url);
    expect(after.status).toBe(404);
    expect(after.headers['content-type']).toMatch(/^text\/html/);
    expect(after.text).toContain('This link does not work');
    const listed = await t.http().get(base()).set('X-API-Key', s.key);
    expect(listed.body.data.map((l: { id: string }) => l.id)).not.toContain(made.id);
  });
});

describe('GET /d/{token}', () => {
  it('shows the name, count, NPS parts, a chart per question with its figures, no text answer as written, CSP and budget headers', async () => {
    const { url } = (await mint()).body.data as { url: string };
    const res = await page(url);
    expect(res.status).toBe(200);
    expect(res.headers['content-security-policy']).toMatch(/^default-src 'none'; style-src 'sha256-/);
    expect(res.headers['cache-control']).toBe('no-store');
    for (const h of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) expect(res.headers[h]).toMatch(/^\d+$/);
    const html = res.text;
    expect(html).toContain('<h1>Customer survey</h1>');
    expect(html).toMatch(/<dt>Responses<\/dt><dd>3<\/dd>/);
    // 2 promoters, 1 detractor: NPS 33.3.
    expect(html).toMatch(/<dt>NPS<\/dt><dd>33.3<\/dd>/);
    expect(html).toMatch(/<dt>Promoters<\/dt><dd>2<\/dd>/);
    expect(html).toMatch(/<dt>Detractors<\/dt><dd>1<\/dd>/);
    expect(html).toContain('How likely are you to recommend us?');
    expect(html).toContain('Which plan do you use?');
    expect(html.match(/<svg role="img" aria-label="[^"]+"/g)!.length).toBeGreaterThanOrEqual(8);
    expect(html.match(/<details class="figures">/g)!.length).toBeGreaterThanOrEqual(4);
    // A shared page shows keywords of at least 3 responses, never an answer as written (docs/analytics.md, "Privacy on shared pages").
    expect(html).not.toContain('friendly');
    expect(html).not.toContain('Too slow');
    expect(html).toContain('No word was used in 3 or more responses yet.');
    expect(html).not.toContain('other workspace');
    // No inline style attribute and no script: the CSP allows neither.
    expect(html).not.toMatch(/ style="|<script/);
    // Two weeks of data: by day, with links to the other periods.
    expect(html).toMatch(/aria-current="page">Day</);
    expect(html).toContain('?interval=month');
  });

  it('picks the period from ?interval and the language from Accept-Language (the form frame and its translations)', async () => {
    const { url } = (await mint()).body.data as { url: string };
    const res = await page(`${url}?interval=week`, 'de-DE,de;q=0.9');
    expect(res.status).toBe(200);
    expect(res.text).toContain('<html lang="de">');
    expect(res.text).toContain('Wie wahrscheinlich empfehlen Sie uns weiter?');
    expect(res.text).toContain('Profi');
    expect(res.text).toMatch(/aria-current="page">Woche</);
    expect(res.text).toContain('2026-01-05');
  });

  it('shows a form without responses with its empty state', async () => {
    const { url } = (await mint({}, 'A', empty)).body.data as { url: string };
    const res = await page(url);
    expect(res.status).toBe(200);
    expect(res.text).toContain('No responses yet.');
    expect(res.text).toMatch(/<dt>Responses<\/dt><dd>0<\/dd>/);
  });

  it('answers the 404 page for an expired link, a tampered token and a token naming another workspace', async () => {
    const made = (await mint()).body.data as { id: string; url: string };
    await t
      .db('dashboard_links')
      .where({ workspace_id: s.ws, id: made.id })
      .update({ expires_at: new Date(Date.now() - 1000) });
    expect((await page(made.url)).status).toBe(404);
    const good = (await mint()).body.data as { url: string };
    const [payload, sig] = pathOf(good.url).slice(3).split('.') as [string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    const forged = `${Buffer.from(JSON.stringify({ ...claims, ws: other.ws })).toString('base64url')}.${sig}`;
    for (const path of [`/d/${forged}`, `/d/${payload}.${sig.slice(0, -2)}xx`, '/d/nonsense', '/d/%FF']) {
      const res = await t.http().get(path);
      expect({ path, status: res.status, type: res.headers['content-type'] }).toEqual({ path, status: 404, type: expect.stringMatching(/^text\/html/) });
    }
  });

  it('serves each download once, only the link form responses', async () => {
    const { url } = (await mint()).body.data as { url: string };
    const html = (await page(url)).text;
    const csv = downloadHref(html, 'csv');
    const first = await t.http().get(csv);
    expect(first.status).toBe(200);
    expect(first.headers['content-type']).toMatch(/^text\/csv/);
    expect(first.text.trim().split('\r\n')).toHaveLength(4);
    expect(first.text).not.toContain(other.form);
    expect((await t.http().get(csv)).status).toBe(404);
    const nd = await t.http().get(downloadHref(html, 'ndjson'));
    expect(nd.status).toBe(200);
    expect(
      nd.text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).form_id),
    ).toEqual([s.form, s.form, s.form]);
    // The token of another link's page does not open this one.
    const otherLink = (await mint()).body.data as { url: string };
    const stolen = downloadHref((await page(otherLink.url)).text, 'csv').replace(/^\/d\/[^/]+/, pathOf(url));
    expect((await t.http().get(stolen)).status).toBe(404);
  });
});

describe('privacy on the shared page: keywords only, from at least 3 responses, no address, URL or long number', () => {
  it('shows a word used in 3 responses with its sentiment, hides one used in 2 and every planted address, URL and number', async () => {
    const f = await formWorkspace(t.db, { form: surveyForm });
    const texts = [
      'The checkout is slow, write to planted.one@example.com',
      'Slow checkout, see https://planted.example.org/page and call 01701234567',
      'slow again, planted.one@example.com https://planted.example.org/page 01701234567',
      'pricey plan',
      'Pricey, but planted.one@example.com likes it https://planted.example.org/page 01701234567',
    ];
    await importFixture(t.db, {
      responses: texts.map((text, i) => ({
        id: uid('rsp'),
        form_id: f.form,
        score: 5,
        created_at: `2026-01-0${i + 1}T10:00:00.000Z`,
        answers: answers(5, text),
      })) as never,
    });
    const minted = await t.http().post(base(f.form, f.ws)).set('X-API-Key', f.key).set('X-API-Style', 'A').send({});
    expect(minted.status).toBe(201);
    const html = (await page((minted.body.data as { url: string }).url)).text;
    const rows = [...html.matchAll(/<tr><th scope="row">([^<]+)<\/th><td>(\d+)<\/td><td class="[^"]*">([^<]+)<\/td><\/tr>/g)].map((m) => [m[1], m[2], m[3]]);
    const api = await t.http().get(`/api/v1/workspaces/${f.ws}/forms/${f.form}/analytics/keywords`).set('X-API-Key', f.key).set('X-API-Style', 'A');
    const slow = (api.body.data[0].terms as Array<{ term: string; count: number; sentiment: { label: string } }>).find((x) => x.term === 'slow')!;
    expect(slow.count).toBe(3);
    expect(rows).toEqual([['slow', '3', slow.sentiment.label]]);
    expect(html).toContain('<caption>Keywords</caption>');
    for (const planted of ['planted', 'example.com', 'example.org', '01701234567', 'pricey', 'checkout', 'Slow checkout']) expect(html).not.toContain(planted);
    // The API (a key's reader) sees the words of fewer than 3 responses; it never sees the planted ones either.
    const apiText = JSON.stringify(api.body.data);
    expect(apiText).toContain('"pricey"');
    for (const planted of ['planted', 'example.com', 'example.org', '01701234567']) expect(apiText).not.toContain(planted);
  });
});

describe('who may mint, list, revoke and download (issue 25 item 1; docs/analytics.md, "Dashboard links")', () => {
  const addressForm = uid('frm');
  beforeAll(async () => {
    await importFixture(t.db, {
      forms: [{ ...surveyForm(s.ws, addressForm), name: 'With addresses' }],
      responses: [
        {
          id: uid('rsp'),
          form_id: addressForm,
          score: 9,
          respondent_email: 'ada@example.com',
          email_id: 'em_ada',
          created_at: '2026-01-05T10:00:00.000Z',
          answers: [...answers(9, 'Nice'), { question_id: 'q_email', value: 'ada.private@example.com' }],
        },
      ] as never,
    });
  });
  const withScopes = (scopes: string[], opts: { expiresAt?: string } = {}) => keyFor(t.db, [s.ws], { scopes: scopes as never, ...opts });
  const mintWith = (key: string, body: Record<string, unknown> = {}, form = addressForm) => t.http().post(base(form)).set('X-API-Key', key).send(body);
  const download = async (url: string, format: 'csv' | 'ndjson') => t.http().get(downloadHref((await page(url)).text, format));

  it('refuses a forms:read key the mint (403 naming forms:write), a key without responses:read too, and the revoke', async () => {
    const reader = await withScopes(['forms:read']);
    const mintRead = await mintWith(reader);
    expect(mintRead.status).toBe(403);
    expect(mintRead.body.error).toMatchObject({ code: 'insufficient_scope', message: 'This API key lacks the scope "forms:write".' });
    const writer = await withScopes(['forms:read', 'forms:write']);
    const mintWrite = await mintWith(writer);
    expect(mintWrite.status).toBe(403);
    expect(mintWrite.body.error).toMatchObject({ code: 'insufficient_scope', message: 'This API key lacks the scope "responses:read".' });
    const made = (await mint({}, 'A', addressForm)).body.data as { id: string; url: string };
    const revoke = await t
      .http()
      .delete(`${base(addressForm)}/${made.id}`)
      .set('X-API-Key', reader);
    expect(revoke.status).toBe(403);
    expect(revoke.body.error).toMatchObject({ code: 'insufficient_scope', message: 'This API key lacks the scope "forms:write".' });
    // The reader may list the links, without a URL to open.
    const list = await t.http().get(base(addressForm)).set('X-API-Key', reader);
    expect(list.status).toBe(200);
    expect(list.body.data.map((l: { id: string }) => l.id)).toContain(made.id);
    expect(JSON.stringify(list.body)).not.toContain(made.url.slice(PUBLIC_URL.length));
    expect((await page(made.url)).status).toBe(200);
    expect(
      (
        await t
          .http()
          .delete(`${base(addressForm)}/${made.id}`)
          .set('X-API-Key', writer)
      ).status,
    ).toBe(204);
  });

  it('mints with forms:write and responses:read, records the minting key, and downloads carry no address nor email answer', async () => {
    const minter = await withScopes(['forms:write', 'responses:read']);
    const made = await mintWith(minter);
    expect(made.status).toBe(201);
    expect(made.body.data).toMatchObject({ created_by: await keyIdOf(minter), include_addresses: false });
    const csv = await download(made.body.data.url, 'csv');
    expect(csv.status).toBe(200);
    const [header, row] = csv.text.trim().split('\r\n') as [string, string];
    const cells = Object.fromEntries(header.split(',').map((h, i) => [h, row.split(',')[i]]));
    expect(cells).toMatchObject({ respondent_email: '', q_email: '', q_comment: 'Nice' });
    expect(csv.text).not.toContain('@example.com');
    const nd = await download(made.body.data.url, 'ndjson');
    const record = JSON.parse(nd.text.trim()) as { respondent_email: unknown; answers: Array<{ question_id: string }> };
    expect(record.respondent_email).toBeNull();
    expect(record.answers.map((a) => a.question_id)).toEqual(['q_nps', 'q_rating', 'q_plan', 'q_comment']);
    expect(nd.text).not.toContain('@example.com');
  });

  it('carries addresses and email answers only for a link minted with the opt-in, in either style', async () => {
    const a = await mintWith(s.key, { include_addresses: true });
    expect(a.body.data.include_addresses).toBe(true);
    const csv = (await download(a.body.data.url, 'csv')).text;
    expect(csv).toContain('ada@example.com');
    expect(csv).toContain('ada.private@example.com');
    const b = await t.http().post(base(addressForm)).set('X-API-Key', s.key).set('X-API-Style', 'B').send({ includeAddresses: true });
    expect(b.body.data.includeAddresses).toBe(true);
    const nd = JSON.parse((await download(b.body.data.url, 'ndjson')).text.trim()) as {
      respondent_email: unknown;
      answers: Array<{ question_id: string; value: unknown }>;
    };
    expect(nd.respondent_email).toBe('ada@example.com');
    expect(nd.answers.find((x) => x.question_id === 'q_email')?.value).toBe('ada.private@example.com');
    const foreign = await mintWith(s.key, { includeAddresses: true });
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.details[0]).toMatchObject({ location: 'body', field: 'includeAddresses' });
  });

  it("never outlives its minting key: the default expiry is cut to the key's, a later one is a 400 naming the field", async () => {
    const keyExpiry = new Date(Date.now() + 10 * 60_000);
    const shortLived = await withScopes(['forms:write', 'responses:read'], { expiresAt: keyExpiry.toISOString() });
    const made = await mintWith(shortLived);
    expect(made.status).toBe(201);
    expect(made.body.data.expires_at).toBe(new Date(Math.floor(keyExpiry.getTime() / 1000) * 1000).toISOString());
    const later = await mintWith(shortLived, { expires_at: new Date(keyExpiry.getTime() + 60_000).toISOString() });
    expect(later.status).toBe(400);
    expect(later.body.error.details[0]).toMatchObject({ location: 'body', field: 'expires_at' });
  });

  it('stops working when its minting key is revoked, and when that key expires', async () => {
    const minter = await withScopes(['forms:write', 'responses:read', 'api_keys:write']);
    const made = (await mintWith(minter)).body.data as { id: string; url: string };
    expect((await page(made.url)).status).toBe(200);
    expect(
      (
        await t
          .http()
          .delete(`/api/v1/workspaces/${s.ws}/api-keys/${await keyIdOf(minter)}`)
          .set('X-API-Key', minter)
      ).status,
    ).toBe(204);
    expect((await page(made.url)).status).toBe(404);
    const gone = await t.db('dashboard_links').first('revoked_at').where({ workspace_id: s.ws, id: made.id });
    expect(gone.revoked_at).toBeInstanceOf(Date);
    // An expiry moved earlier by an operator reaches the link too.
    const other = await withScopes(['forms:write', 'responses:read']);
    const second = (await mintWith(other)).body.data as { id: string; url: string };
    await t
      .db('api_keys')
      .where('id', await keyIdOf(other))
      .update({ expires_at: new Date(Date.now() - 1000) });
    expect((await page(second.url)).status).toBe(404);
  });
});

describe('dashboard CSV download: cells a spreadsheet would run as formulas (OWASP "CSV Injection")', () => {
  const FORMULA_CHARS: Array<[string, string]> = [
    ['=', '='],
    ['+', '+'],
    ['-', '-'],
    ['@', '@'],
    ['tab', '\t'],
    ['carriage return', '\r'],
  ];
  const lines = new Map<string, string>();
  beforeAll(async () => {
    const f = await formWorkspace(t.db, { form: surveyForm });
    // Anyone can send these: the public submission path of the form, no key.
    for (const [name, c] of FORMULA_CHARS) {
      const answers = [...answers3(), { question_id: 'q_comment', value: `${c}cmd|' /C calc'!A0` }];
      const sent = await t.http().post(`/api/v1/forms/${f.form}/submissions`).send({ answers });
      expect(sent.status).toBe(201);
      lines.set(name, sent.body.data.id as string);
    }
    const link = await t.http().post(base(f.form, f.ws)).set('X-API-Key', f.key).send({});
    const html = (await page(link.body.data.url as string)).text;
    const csv = await t.http().get(downloadHref(html, 'csv'));
    expect(csv.status).toBe(200);
    for (const line of csv.text.split('\r\n')) {
      const entry = [...lines].find(([, id]) => line.startsWith(`${id},`));
      if (entry) lines.set(entry[0], line);
    }
  });
  const answers3 = () => [
    { question_id: 'q_nps', value: 5 },
    { question_id: 'q_rating', value: 3 },
    { question_id: 'q_plan', value: { id: 'opt_basic' } },
  ];

  it.each(FORMULA_CHARS)('a text answer starting with %s gets a leading quote', (name, c) => {
    // q_comment is the last column; a cell holding CR is quoted (RFC 4180).
    const cell = c === '\r' ? `"'\rcmd|' /C calc'!A0"` : `'${c}cmd|' /C calc'!A0`;
    expect(lines.get(name)?.endsWith(`,${cell}`)).toBe(true);
  });
});
