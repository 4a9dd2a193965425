/**
 * The hosted form page without a browser (docs/collecting.md, "Hosted pages"): HTML, languages, validation messages
 * with values kept, one-time tokens, the honeypot, CSP, the 404 page and the submission budget.
 * The browser tests (tests/browser) drive the same page in Chromium.
 */
import { mintSubmissionToken, SUBMISSION_TOKEN_TTL_DAYS } from '../../../src/core/responses/submission-tokens.store';
import { useTestApp } from '../../support/app';
import { formWorkspace, surveyForm, type FormWorkspace } from '../../support/given';

const t = useTestApp();
const tight = useTestApp({ submissionsPerMinute: 2 });
let s: FormWorkspace;
beforeAll(async () => {
  s = await formWorkspace(t.db, { form: surveyForm });
});

const tokenOf = (html: string) => /name="_token" value="([^"]+)"/.exec(html)![1]!;
const form = (fields: Record<string, string | string[]>) => {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) for (const x of Array.isArray(v) ? v : [v]) p.append(k, x);
  return p.toString();
};
const valid = (token: string) => ({ _token: token, _lang: 'en', 'q.q_nps': '9', 'q.q_rating': '4', 'q.q_plan': 'opt_pro' });
const responsesOf = async (ws: string, key: string) =>
  (await t.http().get(`/api/v1/workspaces/${ws}/forms/${s.form}/responses`).set('X-API-Key', key)).body.data as Array<Record<string, unknown>>;

describe('GET /f/{form_id}', () => {
  it('serves an accessible page with a control and label for every question, in the default language', async () => {
    const res = await t.http().get(`/f/${s.form}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    const csp = res.headers['content-security-policy'] as string;
    expect(csp).toMatch(
      /^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/=]+'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'$/,
    );
    const html = res.text;
    expect(html).toContain('<html lang="en">');
    expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(html).not.toContain('<script');
    // nps 0..10 and rating 1..5 as radios in fieldsets with legends; choices as radios / checkboxes.
    expect(html.match(/type="radio" id="q1-\d+" name="q.q_nps"/g)).toHaveLength(11);
    expect(html.match(/type="radio" id="q2-\d+" name="q.q_rating"/g)).toHaveLength(5);
    expect(html.match(/type="radio" id="q3-\d+" name="q.q_plan"/g)).toHaveLength(2);
    expect(html.match(/type="checkbox" id="q4-\d+" name="q.q_features"/g)).toHaveLength(3);
    expect(html).toContain('<input type="number" id="q5" name="q.q_seats" value="" inputmode="decimal" step="any" min="1" max="500"');
    expect(html).toContain('<input type="date" id="q6" name="q.q_since"');
    expect(html).toContain('<input type="email" id="q7" name="q.q_email"');
    expect(html).toContain('<textarea id="q8" name="q.q_comment"');
    expect(html.match(/<fieldset/g)).toHaveLength(4);
    expect(html.match(/<legend>/g)).toHaveLength(4);
    for (const id of ['q5', 'q6', 'q7', 'q8', 'hp-field']) expect(html).toContain(`<label for="${id}">`);
    expect(html.match(/<label for="q\d-\d+">/g)).toHaveLength(21);
    expect(html).toContain('How likely are you to recommend us?</span> <span class="req">(required)</span>');
    expect(html).toContain('role="radiogroup" aria-required="true"');
    expect(tokenOf(html)).toMatch(/^[0-9a-z]{6,8}\.[A-Za-z0-9_-]{24}$/);
  });

  it('renders the language of ?lang=, else Accept-Language, ignoring an unknown ?lang=', async () => {
    const byQuery = await t.http().get(`/f/${s.form}?lang=de`);
    expect(byQuery.text).toContain('<html lang="de">');
    expect(byQuery.text).toContain('Welchen Tarif nutzen Sie?');
    expect(byQuery.text).toContain('<label for="q3-2">Profi</label>');
    expect(byQuery.text).toContain('>Senden</button>');

    const byHeader = await t.http().get(`/f/${s.form}?lang=xx`).set('Accept-Language', 'de-CH, en;q=0.5');
    expect(byHeader.text).toContain('<html lang="de">');

    const fallback = await t.http().get(`/f/${s.form}`).set('Accept-Language', 'fr, *;q=0.1');
    expect(fallback.text).toContain('<html lang="en">');
  });

  it('answers an unknown form with a 404 HTML page', async () => {
    const res = await t.http().get('/f/frm_does_not_exist').set('Accept-Language', 'de');
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.text).toContain('<html lang="de">');
    expect(res.text).toContain('<h1>Formular nicht gefunden</h1>');
    const thanks = await t.http().get('/f/frm_does_not_exist/thanks');
    expect(thanks.status).toBe(404);
    expect(thanks.text).toContain('<h1>Form not found</h1>');
  });

  it('answers a form id holding NUL with the 404 page, also to a POST (no form can have it)', async () => {
    for (const res of [await t.http().get('/f/%00'), await t.http().post('/f/%00').type('form').send('q.x=1')]) {
      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.text).toContain('<h1>Form not found</h1>');
    }
  });
});

describe('POST /f/{form_id}', () => {
  it('stores a response of every question type and redirects 303 to the thank-you page in the same language', async () => {
    const token = tokenOf((await t.http().get(`/f/${s.form}?lang=de`)).text);
    const res = await t
      .http()
      .post(`/f/${s.form}`)
      .type('form')
      .send(
        form({
          _token: token,
          _lang: 'de',
          'q.q_nps': '10',
          'q.q_rating': '5',
          'q.q_plan': 'opt_basic',
          'q.q_features': ['opt_reports', 'opt_export'],
          'q.q_seats': '12.5',
          'q.q_since': '2024-02-29',
          'q.q_email': 'ana@example.com',
          'q.q_comment': 'Schön <b>bold</b>',
        }),
      );
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe(`/f/${s.form}/thanks?lang=de`);
    expect(res.headers['x-ratelimit-limit']).toBe('20');

    const thanks = await t.http().get(res.headers.location!);
    expect(thanks.status).toBe(200);
    expect(thanks.text).toContain('<html lang="de">');
    expect(thanks.text).toContain('<h1>Vielen Dank!</h1>');

    const [stored] = await responsesOf(s.ws, s.key);
    expect(stored).toMatchObject({
      form_id: s.form,
      score: 10,
      respondent_email: null,
      email_id: null,
      row_id: null,
      answers: [
        { question_id: 'q_nps', type: 'nps', title: 'Wie wahrscheinlich empfehlen Sie uns weiter?', value: 10 },
        { question_id: 'q_rating', type: 'rating', title: 'How do you rate the support?', value: 5 },
        { question_id: 'q_plan', type: 'single_choice', title: 'Welchen Tarif nutzen Sie?', value: { id: 'opt_basic', value: 'Basis' } },
        {
          question_id: 'q_features',
          type: 'multiple_choice',
          title: 'Which features do you use?',
          value: [
            { id: 'opt_reports', value: 'Reports' },
            { id: 'opt_export', value: 'Export' },
          ],
        },
        { question_id: 'q_seats', type: 'number', title: 'How many seats?', value: 12.5 },
        { question_id: 'q_since', type: 'date', title: 'Customer since', value: '2024-02-29' },
        { question_id: 'q_email', type: 'email', title: 'Your email', value: 'ana@example.com' },
        { question_id: 'q_comment', type: 'text', title: 'Sonst noch etwas?', value: 'Schön <b>bold</b>' },
      ],
    });
  });

  it('shows the page again (400) with a message beside each wrong answer and the sent values kept', async () => {
    const before = (await responsesOf(s.ws, s.key)).length;
    const res = await t
      .http()
      .post(`/f/${s.form}`)
      .type('form')
      .send(
        form({
          _token: 'tok-validation-000000000',
          _lang: 'en',
          'q.q_rating': '4',
          'q.q_seats': '9000',
          'q.q_email': 'not-an-address',
          'q.q_comment': '<script>x</script>',
          'q.q_features': 'opt_api',
        }),
      );
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    const html = res.text;
    expect(html).toContain('role="alert"');
    expect(html).toContain('<p class="error" id="q1-error">Please answer this question.</p>');
    expect(html).toContain('<p class="error" id="q3-error">Please answer this question.</p>');
    expect(html).toMatch(/<p class="error" id="q5-error">Must be a number from 1 to 500; got 9000\.<\/p>/);
    expect(html).toMatch(/<p class="error" id="q7-error">Must be an e-mail address; got the string &quot;not-an-address&quot;\.<\/p>/);
    expect(html).not.toContain('id="q2-error"');
    // Kept: the rating, the checkbox, the number, the email and the (escaped) text.
    expect(html).toContain('id="q2-4" name="q.q_rating" value="4" checked');
    expect(html).toContain('id="q4-2" name="q.q_features" value="opt_api" checked');
    expect(html).toContain('name="q.q_seats" value="9000"');
    expect(html).toContain('name="q.q_email" value="not-an-address"');
    expect(html).toContain('&lt;script&gt;x&lt;/script&gt;</textarea>');
    expect(html).not.toContain('<script>');
    expect(html).toContain('min="1" max="500" aria-invalid="true" aria-describedby="q5-error">');
    expect(html).toContain('name="_token" value="tok-validation-000000000"');
    expect(await responsesOf(s.ws, s.key)).toHaveLength(before);
  });

  it('stores one response for the same token sent twice, and answers the same 303 again', async () => {
    const before = (await responsesOf(s.ws, s.key)).length;
    const token = tokenOf((await t.http().get(`/f/${s.form}`)).text);
    const first = await t
      .http()
      .post(`/f/${s.form}`)
      .type('form')
      .send(form(valid(token)));
    const second = await t
      .http()
      .post(`/f/${s.form}`)
      .type('form')
      .send(form(valid(token)));
    expect([first.status, second.status]).toEqual([303, 303]);
    expect(second.headers.location).toBe(first.headers.location);
    expect(await responsesOf(s.ws, s.key)).toHaveLength(before + 1);
  });

  it('stores one response for two concurrent posts with the same token', async () => {
    const before = (await responsesOf(s.ws, s.key)).length;
    const token = tokenOf((await t.http().get(`/f/${s.form}`)).text);
    const results = await Promise.all(
      [0, 1, 2].map(() =>
        t
          .http()
          .post(`/f/${s.form}`)
          .type('form')
          .send(form(valid(token))),
      ),
    );
    expect(results.map((r) => r.status)).toEqual([303, 303, 303]);
    expect(await responsesOf(s.ws, s.key)).toHaveLength(before + 1);
  });

  it('answers a page open longer than its token lasts (7 days) with the page again, answers kept and a fresh token, storing nothing', async () => {
    const before = (await responsesOf(s.ws, s.key)).length;
    const stale = mintSubmissionToken(new Date(Date.now() - (SUBMISSION_TOKEN_TTL_DAYS * 86_400 + 60) * 1000));
    const res = await t
      .http()
      .post(`/f/${s.form}`)
      .type('form')
      .send(form(valid(stale)));
    expect(res.status).toBe(400);
    expect(res.text).toContain('This page was open for more than a week, so your answers were not sent yet. Check them and send again.');
    expect(res.text).toContain('id="q3-2" name="q.q_plan" value="opt_pro" checked');
    const fresh = tokenOf(res.text);
    expect(fresh).not.toBe(stale);
    expect(await responsesOf(s.ws, s.key)).toHaveLength(before);
    // The page it came back as sends as usual.
    expect(
      (
        await t
          .http()
          .post(`/f/${s.form}`)
          .type('form')
          .send(form(valid(fresh)))
      ).status,
    ).toBe(303);
    expect(await responsesOf(s.ws, s.key)).toHaveLength(before + 1);
  });

  it('stores nothing when the honeypot is filled, and still shows thanks', async () => {
    const before = (await responsesOf(s.ws, s.key)).length;
    const res = await t
      .http()
      .post(`/f/${s.form}`)
      .type('form')
      .send(form({ ...valid('tok-honeypot-0000000000'), website: 'http://spam.example' }));
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe(`/f/${s.form}/thanks?lang=en`);
    expect(await responsesOf(s.ws, s.key)).toHaveLength(before);
  });

  it('answers an unknown form with a 404 HTML page', async () => {
    const res = await t.http().post('/f/frm_does_not_exist').type('form').send('a=b');
    expect(res.status).toBe(404);
    expect(res.text).toContain('<h1>Form not found</h1>');
  });
});

describe('the submission budget', () => {
  it('counts page POSTs (not GETs) per address and form and answers a 429 page past it', async () => {
    const own = await formWorkspace(tight.db, { form: surveyForm });
    for (let i = 0; i < 3; i++) expect((await tight.http().get(`/f/${own.form}`)).status).toBe(200);
    const post = (n: number) =>
      tight
        .http()
        .post(`/f/${own.form}`)
        .type('form')
        .send(form({ ...valid(`tok-budget-${n}-00000000000`), _lang: 'de' }));
    expect((await post(1)).headers['x-ratelimit-remaining']).toBe('1');
    expect((await post(2)).status).toBe(303);
    const refused = await post(3);
    expect(refused.status).toBe(429);
    expect(refused.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    expect(refused.text).toContain('<html lang="de">');
    expect(refused.text).toContain('<h1>Zu viele Antworten</h1>');
  });
});

describe('bodies the page cannot take', () => {
  it('answers a body over the size limit with a 413 page and a NUL character with a message beside its answer', async () => {
    const big = await t
      .http()
      .post(`/f/${s.form}`)
      .type('form')
      .send(form({ 'q.q_comment': 'x'.repeat(300_000) }));
    expect(big.status).toBe(413);
    expect(big.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(big.text).toContain('<h1>Too much text</h1>');

    const before = (await responsesOf(s.ws, s.key)).length;
    const nul = await t
      .http()
      .post(`/f/${s.form}`)
      .type('form')
      .send(form({ ...valid('tok-nul-0000000000000000'), 'q.q_comment': 'a\u0000b' }));
    expect(nul.status).toBe(400);
    expect(nul.text).toContain('<p class="error" id="q8-error">This answer holds a character that cannot be stored (a NUL character). Please remove it.</p>');
    expect(await responsesOf(s.ws, s.key)).toHaveLength(before);
  });
});
