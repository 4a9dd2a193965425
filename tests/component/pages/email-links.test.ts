/**
 * Email links (docs/collecting.md, "Email links") without a browser: minting through the API, the click and open
 * events in both styles' lists, a response through a link, tampered / foreign / expired tokens.
 */
import { mintLink, verifyLinkToken } from '../../../src/core/links/links';
import { AppError } from '../../../src/core/errors';
import { formWorkspace, keyFor, surveyForm, uid, type FormWorkspace } from '../../support/given';
import { useTestApp } from '../../support/app';

const PUBLIC_URL = 'https://feedback.example.com';
const t = useTestApp({ publicUrl: PUBLIC_URL });
let s: FormWorkspace;
let other: FormWorkspace;
beforeAll(async () => {
  s = await formWorkspace(t.db, { form: surveyForm });
  other = await formWorkspace(t.db, { form: surveyForm });
});

const mint = (body: Record<string, unknown>, form = s.form, key = s.key) =>
  t.http().post(`/api/v1/workspaces/${s.ws}/forms/${form}/links`).set('X-API-Key', key).send(body);
const local = (url: string) => url.slice(PUBLIC_URL.length);
const tokenOf = (url: string) => new URL(url).searchParams.get('t')!;
const eventsA = async (emailId: string) =>
  (await t.http().get(`/api/v1/workspaces/${s.ws}/emails/${emailId}/events`).set('X-API-Key', s.key)).body.data as Array<Record<string, unknown>>;
const eventsB = async (emailId: string) =>
  (await t.http().get(`/api/v1/workspaces/${s.ws}/emails/events?email_id=${emailId}`).set('X-API-Key', s.key)).body.data as Array<Record<string, unknown>>;
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

describe('POST {ws}/forms/{form_id}/links', () => {
  it('mints a signed link on PUBLIC_URL with every given value, expiring in the given days', async () => {
    const before = Date.now();
    const res = await mint({ email: 'ana@example.com', email_id: 'em_given', row_id: s.row, flow_id: 'flow_1', expires_in_days: 7 });
    expect(res.status).toBe(201);
    expect(res.headers['x-api-style']).toBe('A');
    expect(res.body).toEqual({
      data: {
        url: expect.stringMatching(new RegExp(`^${PUBLIC_URL}/f/${s.form}\\?t=[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]{43}$`)),
        open_url: expect.stringMatching(new RegExp(`^${PUBLIC_URL}/e/[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]{43}\\.gif$`)),
        email_id: 'em_given',
        form_id: s.form,
        email: 'ana@example.com',
        row_id: s.row,
        flow_id: 'flow_1',
        expires_at: expect.any(String),
        max_responses: 1,
      },
      meta: {},
      links: {},
      request_id: expect.any(String),
    });
    expect(res.body.data.open_url).toBe(`${PUBLIC_URL}/e/${tokenOf(res.body.data.url)}.gif`);
    const expires = Date.parse(res.body.data.expires_at);
    expect(expires).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 + 7 * 86_400_000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 7 * 86_400_000);
  });

  it('generates an em_ email_id, 30 days and null row/flow when absent', async () => {
    const res = await mint({ email: 'bo@example.com' });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ email_id: expect.stringMatching(/^em_[0-9A-Za-z]{16}$/), row_id: null, flow_id: null });
    const days = (Date.parse(res.body.data.expires_at) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.99);
    expect(days).toBeLessThanOrEqual(30);
  });

  it('refuses a row of another workspace (400 naming row_id), bad days and addresses, an unknown form (404)', async () => {
    const foreignRow = await mint({ email: 'a@example.com', row_id: other.row });
    expect(foreignRow.status).toBe(400);
    expect(foreignRow.body.error).toMatchObject({
      code: 'validation_error',
      details: [{ location: 'body', field: 'row_id', message: expect.stringContaining(other.row) }],
    });
    for (const days of [0, 91]) {
      const res = await mint({ email: 'a@example.com', expires_in_days: days });
      expect(res.status).toBe(400);
      expect(res.body.error.details[0]).toMatchObject({ location: 'body', field: 'expires_in_days' });
    }
    for (const max of [0, 1001, 1.5]) {
      const res = await mint({ email: 'a@example.com', max_responses: max });
      expect(res.status).toBe(400);
      expect(res.body.error.details[0]).toMatchObject({ location: 'body', field: 'max_responses' });
    }
    const badEmail = await mint({ email: 'nope' });
    expect(badEmail.status).toBe(400);
    expect(badEmail.body.error.details[0]).toMatchObject({ location: 'body', field: 'email' });
    const foreignForm = await mint({ email: 'a@example.com' }, other.form);
    expect(foreignForm.status).toBe(404);
    expect(foreignForm.body.error.code).toBe('resource_not_found');
  });

  it('needs forms:write', async () => {
    const readOnly = await keyFor(t.db, [s.ws], { scopes: ['forms:read', 'responses:write'] });
    const res = await mint({ email: 'a@example.com' }, s.form, readOnly);
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ code: 'insufficient_scope', message: expect.stringContaining('forms:write') });
  });
});

describe('a link takes one response unless minted with more (max_responses)', () => {
  const pageToken = async (path: string) => /name="_token" value="([^"]+)"/.exec((await t.http().get(path)).text)![1]!;
  const answers = { 'q.q_nps': '6', 'q.q_rating': '3', 'q.q_plan': 'opt_pro' };
  const stored = async (emailId: string) => Number((await t.db('responses').where({ workspace_id: s.ws, email_id: emailId }).count({ n: '*' }).first())!.n);

  it('answers a second page through a used link with a 409 page and stores nothing; a double submit of one page is one response', async () => {
    const { data: link } = (await mint({ email: 'one@example.com' })).body;
    const first = await pageToken(local(link.url));
    const post = (token: string) =>
      t
        .http()
        .post(`/f/${s.form}`)
        .type('form')
        .send(form({ _token: token, _lang: 'de', _t: tokenOf(link.url), ...answers }));
    expect((await post(first)).status).toBe(303);
    // The same page sent again: the one-time token's thank-you page, not the link's refusal.
    const repeated = await post(first);
    expect([repeated.status, repeated.headers.location]).toEqual([303, `/f/${s.form}/thanks?lang=de`]);

    const second = await t
      .http()
      .post(`/f/${s.form}`)
      .type('form')
      .send(form({ _token: 'fresh-page-token', _lang: 'de', _t: tokenOf(link.url), ...answers }));
    expect(second.status).toBe(409);
    expect(second.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(second.text).toContain('<html lang="de">');
    expect(second.text).toContain('<h1>Dieser Link wurde bereits verwendet</h1>');
    expect(await stored(link.email_id)).toBe(1);

    // Following the used link again records the click and shows the message instead of the form.
    const again = await t.http().get(local(link.url));
    expect(again.status).toBe(409);
    expect(again.text).toContain('<h1>This link has already been used</h1>');
    expect(again.text).not.toContain('name="_token"');
    expect((await eventsA(link.email_id)).map((e) => e.type)).toEqual(['click', 'click']);
  });

  it('counts the page and the public JSON way together, up to max_responses', async () => {
    const { data: link } = (await mint({ email: 'team@example.com', max_responses: 2 })).body;
    expect(link.max_responses).toBe(2);
    const viaPage = await t
      .http()
      .post(`/f/${s.form}`)
      .type('form')
      .send(form({ _token: await pageToken(local(link.url)), _t: tokenOf(link.url), ...answers }));
    expect(viaPage.status).toBe(303);
    const viaJson = await t
      .http()
      .post(`/api/v1/forms/${s.form}/submissions`)
      .send({
        answers: [
          { question_id: 'q_nps', value: 9 },
          { question_id: 'q_rating', value: 4 },
          { question_id: 'q_plan', value: 'opt_pro' },
        ],
        t: tokenOf(link.url),
      });
    expect(viaJson.status).toBe(201);
    const third = await t
      .http()
      .post(`/f/${s.form}`)
      .type('form')
      .send(form({ _token: 'another-page-token', _t: tokenOf(link.url), ...answers }));
    expect(third.status).toBe(409);
    expect(third.text).toContain('<h1>This link has already been used</h1>');
    expect(await stored(link.email_id)).toBe(2);
  });
});

describe('following a link and loading its image', () => {
  it('records a click and an open, visible at once in both styles', async () => {
    const { data: link } = (await mint({ email: 'cy@example.com', row_id: s.row, flow_id: 'flow_9' })).body;
    const page = await t.http().get(local(link.url));
    expect(page.status).toBe(200);
    expect(page.text).toContain(`name="_t" value="${tokenOf(link.url)}"`);

    const gif = await t.http().get(local(link.open_url));
    expect(gif.status).toBe(200);
    expect(gif.headers['content-type']).toBe('image/gif');
    expect(gif.headers['cache-control']).toBe('no-store');
    expect(gif.body.subarray(0, 6).toString('latin1')).toBe('GIF89a');

    const a = await eventsA(link.email_id);
    expect(a.map((e) => e.type).sort()).toEqual(['click', 'open']);
    for (const e of a) {
      expect(e).toMatchObject({ email_id: link.email_id, email: 'cy@example.com', form_id: s.form, row_id: s.row, flow_id: 'flow_9' });
    }
    const b = await eventsB(link.email_id);
    expect(b.map((e) => e.event_type).sort()).toEqual(['click', 'open']);
    for (const e of b) expect(e).toMatchObject({ email_id: link.email_id, email: 'cy@example.com', form_id: s.form, row_id: s.row, flow_id: 'flow_9' });
  });

  it('stores a response with the link email, email_id, row and the row data as it was at submission', async () => {
    const { data: link } = (await mint({ email: 'di@example.com', row_id: s.row })).body;
    const page = await t.http().get(local(link.url));
    const submitToken = /name="_token" value="([^"]+)"/.exec(page.text)![1]!;
    const res = await t
      .http()
      .post(`/f/${s.form}`)
      .type('form')
      .send(form({ _token: submitToken, _lang: 'en', _t: tokenOf(link.url), 'q.q_nps': '3', 'q.q_rating': '2', 'q.q_plan': 'opt_basic' }));
    expect(res.status).toBe(303);

    // A later row write does not change the captured data.
    const patched = await t
      .http()
      .patch(`/api/v1/workspaces/${s.ws}/datatables/${s.table}/rows/${s.row}`)
      .set('X-API-Key', s.key)
      .send({ data: { plan: 'enterprise' } });
    expect(patched.status).toBe(200);

    const list = await t.http().get(`/api/v1/workspaces/${s.ws}/responses?form_id=${s.form}&include_table_data=true`).set('X-API-Key', s.key);
    const stored = list.body.data.find((r: { email_id: string }) => r.email_id === link.email_id);
    expect(stored).toMatchObject({
      respondent_email: 'di@example.com',
      email_id: link.email_id,
      row_id: s.row,
      score: 3,
      table_data: { row_id: s.row, id: `c-${s.row}`, plan: 'pro', _captured_at: expect.any(String) },
    });
    const b = await t.http().get(`/api/v1/workspaces/${s.ws}/responses/${stored.id}?include_table_data=true`).set('X-API-Key', s.key).set('X-API-Style', 'B');
    expect(b.body.data).toMatchObject({ respondent_email: 'di@example.com', email_id: link.email_id, row_id: s.row, table_data: { plan: 'pro' } });
    // Submitting records no extra click.
    expect((await eventsA(link.email_id)).map((e) => e.type)).toEqual(['click']);
    await t
      .http()
      .patch(`/api/v1/workspaces/${s.ws}/datatables/${s.table}/rows/${s.row}`)
      .set('X-API-Key', s.key)
      .send({ data: { plan: 'pro' } });
  });

  it('answers a tampered or foreign link with a 400 page and an expired one with a 410 page, recording nothing', async () => {
    const { data: link } = (await mint({ email: 'ed@example.com' })).body;
    const token = tokenOf(link.url);
    const flipped = token.slice(0, -2) + (token.endsWith('A') ? 'B' : 'A') + token.slice(-1);
    const tampered = await t.http().get(`/f/${s.form}?t=${flipped}`);
    expect(tampered.status).toBe(400);
    expect(tampered.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(tampered.text).toContain('<html lang="en">');
    expect(tampered.text).toContain('<h1>This link does not work</h1>');

    const { data: foreign } = (
      await t
        .http()
        .post(`/api/v1/workspaces/${other.ws}/forms/${other.form}/links`)
        .set('X-API-Key', other.key)
        .send({ email: 'ed@example.com', email_id: link.email_id })
    ).body;
    const wrongForm = await t.http().get(`/f/${s.form}?t=${tokenOf(foreign.url)}&lang=de`);
    expect(wrongForm.status).toBe(400);
    expect(wrongForm.text).toContain('<html lang="de">');
    expect(wrongForm.text).toContain('<h1>Dieser Link funktioniert nicht</h1>');

    const expired = await mintLink(
      t.db,
      s.ws,
      { formId: s.form, email: 'ed@example.com', emailId: link.email_id, expiresInDays: 1 },
      PUBLIC_URL,
      new Date(Date.now() - 2 * 86_400_000),
    );
    const gone = await t.http().get(local(expired.url));
    expect(gone.status).toBe(410);
    expect(gone.text).toContain('<h1>This link has expired</h1>');
    const post = await t
      .http()
      .post(`/f/${s.form}`)
      .type('form')
      .send(form({ _t: expired.token, 'q.q_nps': '9', 'q.q_rating': '4', 'q.q_plan': 'opt_pro' }));
    expect(post.status).toBe(410);

    // The GIF is served for every bad token, recording nothing.
    for (const bad of [`/e/${flipped}.gif`, local(expired.openUrl), '/e/garbage.gif']) {
      const gif = await t.http().get(bad);
      expect(gif.status).toBe(200);
      expect(gif.headers['content-type']).toBe('image/gif');
    }
    expect(await eventsA(link.email_id)).toEqual([]);
  });

  it('verifyLinkToken names t in a validation_error and throws 410 link_expired', async () => {
    const link = await mintLink(t.db, s.ws, { formId: s.form, email: 'fi@example.com' }, PUBLIC_URL);
    await expect(verifyLinkToken(t.db, link.token, s.form)).resolves.toMatchObject({
      workspaceId: s.ws,
      email: 'fi@example.com',
      emailId: link.emailId,
      rowId: null,
      flowId: null,
    });
    await expect(verifyLinkToken(t.db, `${link.token}x`, s.form, new Date(), 'body')).rejects.toMatchObject({
      code: 'validation_error',
      status: 400,
      details: [{ location: 'body', field: 't' }],
    });
    await expect(verifyLinkToken(t.db, link.token, other.form)).rejects.toMatchObject({
      code: 'validation_error',
      details: [{ location: 'query', field: 't', message: '`t` is an email link for another form.' }],
    });
    const later = new Date(link.expiresAt.getTime() + 1000);
    const err = await verifyLinkToken(t.db, link.token, s.form, later).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: 'link_expired', status: 410 });
  });

  it("opens the form of the token's workspace when another workspace has a form with the same id", async () => {
    // The importer refuses a form id twice, so the twin is written directly. Its workspace id sorts after
    // s.ws: an id-only lookup finds s.ws's form first.
    const twinWs = `ws_zzzz${uid('x').slice(2)}`;
    await t.db('workspaces').insert({ id: twinWs, name: 'Twin', link: twinWs.toLowerCase().replace(/_/g, '-') });
    await t.db('forms').insert({ workspace_id: twinWs, id: s.form, name: 'Twin survey', default_language: 'en' });
    await t.db('questions').insert({ workspace_id: twinWs, form_id: s.form, id: 'q_only', position: 0, type: 'rating', title: 'Twin rating?', required: true });
    const link = await mintLink(t.db, twinWs, { formId: s.form, email: 'tw@example.com' }, PUBLIC_URL);
    const page = await t.http().get(local(link.url));
    expect(page.status).toBe(200);
    expect(page.text).toContain('<h1>Twin survey</h1>');
    const token = /name="_token" value="([^"]+)"/.exec(page.text)![1]!;
    const res = await t
      .http()
      .post(`/f/${s.form}`)
      .type('form')
      .send(form({ _token: token, _t: link.token, 'q.q_only': '4' }));
    expect(res.status).toBe(303);
    const stored: Array<{ score: number; respondent_email: string }> = await t
      .db('responses')
      .where({ workspace_id: twinWs, form_id: s.form })
      .select('score', 'respondent_email');
    expect(stored).toEqual([{ score: 4, respondent_email: 'tw@example.com' }]);
    const clicks = await t.db('email_events').where({ workspace_id: twinWs, email_id: link.emailId }).select('type');
    expect(clicks).toEqual([{ type: 'click' }]);
  });
});
