/**
 * The hosted form page in headless Chromium with JavaScript off (docs/collecting.md, "Hosted pages"): every question
 * type filled with mouse and keyboard, a validation message beside its field with the values kept,
 * the response read back through both API styles, and a resubmitted page storing one response.
 * Screenshots at 1280 and 360 px go to the test artifacts (tests/support/artifacts.ts; looked at, not asserted on).
 */
import { formWorkspace, surveyForm, type FormWorkspace } from '../support/given';
import { useBrowserApp } from './browser-app';
import { artifactPath } from '../support/artifacts';

const t = useBrowserApp();
let s: FormWorkspace;
beforeAll(async () => {
  s = await formWorkspace(t.db, { form: surveyForm });
});

const responsesA = async () =>
  (await t.http().get(`/api/v1/workspaces/${s.ws}/forms/${s.form}/responses`).set('X-API-Key', s.key)).body.data as Array<Record<string, unknown>>;

describe('the hosted page in a browser', () => {
  it('takes every question type, shows messages beside wrong answers with the values kept, and stores the response', async () => {
    const { context, page } = await t.newPage();
    try {
      const first = await page.goto(`${t.baseUrl}/f/${s.form}`);
      expect(first!.status()).toBe(200);
      expect(await page.getAttribute('html', 'lang')).toBe('en');
      await page.screenshot({ path: artifactPath('page-1280.png'), fullPage: true });

      // A first try with mistakes: no NPS, no plan, too many seats, a broken address.
      await page.getByLabel('Reports').check();
      await page.getByLabel('API').check();
      await page.getByLabel('How many seats?').fill('9000');
      await page.getByLabel('Customer since').fill('2023-05-17');
      await page.getByLabel('Your email').fill('not-an-address');
      await page.getByLabel('Anything else?').fill('Fast <b>support</b> & friendly');
      // Keyboard: focus the first rating and move with the arrow keys (radios need no mouse).
      await page.focus('#q2-1');
      await page.keyboard.press('ArrowRight');
      await page.keyboard.press('ArrowRight');
      const wrong = page.waitForResponse((r) => r.request().method() === 'POST');
      await page.getByRole('button', { name: 'Send' }).click();
      expect((await wrong).status()).toBe(400);
      await page.waitForLoadState();

      expect(await page.textContent('#q1-error')).toBe('Please answer this question.');
      expect(await page.textContent('#q3-error')).toBe('Please answer this question.');
      expect(await page.textContent('#q5-error')).toBe('Must be a number from 1 to 500; got 9000.');
      expect(await page.textContent('#q7-error')).toContain('Must be an e-mail address');
      expect(await page.locator('[role=alert]').count()).toBe(1);
      expect(await page.getAttribute('#q5', 'aria-describedby')).toBe('q5-error');
      // Values kept.
      expect(await page.isChecked('#q2-3')).toBe(true);
      expect(await page.getByLabel('Reports').isChecked()).toBe(true);
      expect(await page.getByLabel('API').isChecked()).toBe(true);
      expect(await page.getByLabel('Export').isChecked()).toBe(false);
      expect(await page.inputValue('#q5')).toBe('9000');
      expect(await page.inputValue('#q6')).toBe('2023-05-17');
      expect(await page.inputValue('#q7')).toBe('not-an-address');
      expect(await page.inputValue('#q8')).toBe('Fast <b>support</b> & friendly');
      await page.setViewportSize({ width: 360, height: 800 });
      await page.screenshot({ path: artifactPath('page-errors-360.png'), fullPage: true });
      await page.setViewportSize({ width: 1280, height: 900 });

      // Fix them and send.
      await page.check('#q1-10'); // nps 9
      await page.getByLabel('Pro', { exact: true }).check();
      await page.getByLabel('How many seats?').fill('25');
      await page.getByLabel('Your email').fill('ana@example.com');
      await Promise.all([page.waitForURL(`**/f/${s.form}/thanks?lang=en`), page.getByRole('button', { name: 'Send' }).click()]);
      expect(await page.textContent('h1')).toBe('Thank you!');
      expect(await page.getAttribute('html', 'lang')).toBe('en');
      await page.setViewportSize({ width: 360, height: 640 });
      await page.screenshot({ path: artifactPath('thanks-360.png'), fullPage: true });
    } finally {
      await context.close();
    }

    const [stored, ...rest] = await responsesA();
    expect(rest).toHaveLength(0);
    const expectedA = [
      { question_id: 'q_nps', type: 'nps', title: 'How likely are you to recommend us?', value: 9 },
      { question_id: 'q_rating', type: 'rating', title: 'How do you rate the support?', value: 3 },
      { question_id: 'q_plan', type: 'single_choice', title: 'Which plan do you use?', value: { id: 'opt_pro', value: 'Pro' } },
      {
        question_id: 'q_features',
        type: 'multiple_choice',
        title: 'Which features do you use?',
        value: [
          { id: 'opt_reports', value: 'Reports' },
          { id: 'opt_api', value: 'API' },
        ],
      },
      { question_id: 'q_seats', type: 'number', title: 'How many seats?', value: 25 },
      { question_id: 'q_since', type: 'date', title: 'Customer since', value: '2023-05-17' },
      { question_id: 'q_email', type: 'email', title: 'Your email', value: 'ana@example.com' },
      { question_id: 'q_comment', type: 'text', title: 'Anything else?', value: 'Fast <b>support</b> & friendly' },
    ];
    expect(stored).toMatchObject({ form_id: s.form, score: 9, respondent_email: null, email_id: null, row_id: null });
    // The text answer's sentiment is the library's (docs/analytics.md, "Sentiment"): its label only.
    expect((stored!.answers as Array<Record<string, unknown>>).map(({ reporting_label: _r, sentiment: _s, ...a }) => a)).toEqual(expectedA);
    expect((stored!.answers as Array<Record<string, unknown>>).find((a) => a.question_id === 'q_comment')).toMatchObject({ sentiment: { label: 'positive' } });

    const b = await t
      .http()
      .get(`/api/v1/workspaces/${s.ws}/responses/${stored!.id as string}`)
      .set('X-API-Key', s.key)
      .set('X-API-Style', 'B');
    expect(b.status).toBe(200);
    expect(b.body.data).toMatchObject({ id: stored!.id, score: 9, version: 1, form: { id: s.form, name: 'Customer survey' } });
    expect(b.body.data.answers.map((a: { id: string; value: unknown }) => [a.id, a.value])).toEqual(expectedA.map((a) => [a.question_id, a.value]));
  });

  it('stores one response when the same page is sent twice with its token', async () => {
    const before = (await responsesA()).length;
    const { context, page } = await t.newPage({ width: 360, locale: 'de-DE' });
    const posts: number[] = [];
    page.on('response', (r) => {
      if (r.request().method() === 'POST') posts.push(r.status());
    });
    try {
      await page.goto(`${t.baseUrl}/f/${s.form}`);
      expect(await page.getAttribute('html', 'lang')).toBe('de');
      expect(await page.textContent('legend >> nth=0')).toContain('Wie wahrscheinlich empfehlen Sie uns weiter?');
      await page.screenshot({ path: artifactPath('page-360.png'), fullPage: true });
      await page.check('#q1-11');
      await page.check('#q2-5');
      await page.getByLabel('Basis').check();
      const sent = page.waitForRequest((r) => r.method() === 'POST');
      await Promise.all([page.waitForURL(`**/f/${s.form}/thanks?lang=de`), page.getByRole('button', { name: 'Senden' }).click()]);
      const body = (await sent).postData()!;
      expect(new URLSearchParams(body).get('_token')).toMatch(/^[0-9a-z]{6,8}\.[A-Za-z0-9_-]{24}$/);

      // The same page sent again (a double click, a resent request): the browser posts the same body.
      await page.goto(`${t.baseUrl}/f/${s.form}`);
      await page.route(`**/f/${s.form}`, (route) => (route.request().method() === 'POST' ? route.continue({ postData: body }) : route.continue()));
      await page.check('#q1-1');
      await page.getByLabel('Profi').check();
      await Promise.all([page.waitForURL(`**/f/${s.form}/thanks?lang=de`), page.getByRole('button', { name: 'Senden' }).click()]);
      expect(await page.textContent('h1')).toBe('Vielen Dank!');
    } finally {
      await context.close();
    }
    expect(posts).toEqual([303, 303]);
    const after = await responsesA();
    expect(after).toHaveLength(before + 1);
    expect(after[0]).toMatchObject({
      score: 10,
      answers: expect.arrayContaining([expect.objectContaining({ question_id: 'q_plan', value: { id: 'opt_basic', value: 'Basis' } })]),
    });
  });
});
