/**
 * Email links end to end in headless Chromium (docs/collecting.md, "Email links"): mint through the API, follow the
 * link (click), load the image (open), answer the form (the response carries the link's email,
 * email_id, row and the row's data), events in both styles' lists; a tampered (400) and an expired
 * (410) link show a page and record nothing; a used link (one response per link) shows a 409 page.
 */
import { mintLink } from '../../src/core/links/links';
import { formWorkspace, surveyForm, type FormWorkspace } from '../support/given';
import { useBrowserApp } from './browser-app';
import { artifactPath } from '../support/artifacts';

const t = useBrowserApp();
let s: FormWorkspace;
beforeAll(async () => {
  s = await formWorkspace(t.db, { form: surveyForm });
});

const api = (path: string, style: 'A' | 'B' = 'A') => t.http().get(`/api/v1/workspaces/${s.ws}${path}`).set('X-API-Key', s.key).set('X-API-Style', style);

describe('an email link in a browser', () => {
  it('records a click and an open, and the response carries the link and the row as it was', async () => {
    const minted = await t
      .http()
      .post(`/api/v1/workspaces/${s.ws}/forms/${s.form}/links`)
      .set('X-API-Key', s.key)
      .send({ email: 'ana@example.com', row_id: s.row, flow_id: 'flow_onboarding' });
    expect(minted.status).toBe(201);
    const link = minted.body.data as { url: string; open_url: string; email_id: string };
    expect(link.url.startsWith(`${t.baseUrl}/f/${s.form}?t=`)).toBe(true);

    const { context, page } = await t.newPage({ width: 360 });
    try {
      const opened = await page.goto(link.open_url);
      expect(opened!.status()).toBe(200);
      expect(opened!.headers()['content-type']).toBe('image/gif');
      expect(opened!.headers()['cache-control']).toBe('no-store');

      const followed = await page.goto(link.url);
      expect(followed!.status()).toBe(200);
      expect(await page.getAttribute('html', 'lang')).toBe('en');
      await page.check('#q1-9'); // nps 8
      await page.check('#q2-4');
      await page.getByLabel('Pro', { exact: true }).check();
      await page.getByLabel('Anything else?').fill('Sent from the email link');
      await Promise.all([page.waitForURL(`**/f/${s.form}/thanks?lang=en`), page.getByRole('button', { name: 'Send' }).click()]);
      expect(await page.textContent('h1')).toBe('Thank you!');
    } finally {
      await context.close();
    }

    // The row changes after the submission; the response keeps the data it had then.
    const patched = await t
      .http()
      .patch(`/api/v1/workspaces/${s.ws}/datatables/${s.table}/rows/${s.row}`)
      .set('X-API-Key', s.key)
      .send({ data: { plan: 'enterprise' } });
    expect(patched.status).toBe(200);

    const a = await api(`/forms/${s.form}/responses?include_table_data=true`);
    expect(a.body.data).toHaveLength(1);
    expect(a.body.data[0]).toMatchObject({
      score: 8,
      respondent_email: 'ana@example.com',
      email_id: link.email_id,
      row_id: s.row,
      table_data: { row_id: s.row, id: `c-${s.row}`, plan: 'pro', _captured_at: expect.any(String) },
    });
    const b = await api(`/responses/${a.body.data[0].id}?include_table_data=true`, 'B');
    expect(b.body.data).toMatchObject({ respondent_email: 'ana@example.com', email_id: link.email_id, row_id: s.row, table_data: { plan: 'pro' } });

    const eventsA = await api(`/email-events?email_id=${link.email_id}`);
    expect(eventsA.body.data.map((e: { type: string }) => e.type)).toEqual(['click', 'open']);
    for (const e of eventsA.body.data) {
      expect(e).toMatchObject({ email_id: link.email_id, email: 'ana@example.com', form_id: s.form, row_id: s.row, flow_id: 'flow_onboarding' });
    }
    const eventsB = await api(`/emails/events?email_id=${link.email_id}`, 'B');
    expect(eventsB.body.meta.filtered_total).toBe(2);
    expect(eventsB.body.data.map((e: { event_type: string }) => e.event_type)).toEqual(['click', 'open']);
    for (const e of eventsB.body.data) {
      expect(e).toMatchObject({ email_id: link.email_id, email: 'ana@example.com', form_id: s.form, row_id: s.row, flow_id: 'flow_onboarding' });
    }
  });

  it('shows a 400 page for a tampered link and a 410 page for an expired one, recording nothing', async () => {
    const good = await mintLink(t.db, s.ws, { formId: s.form, email: 'bo@example.com', emailId: 'em_bad_links' }, t.baseUrl);
    const expired = await mintLink(
      t.db,
      s.ws,
      { formId: s.form, email: 'bo@example.com', emailId: 'em_bad_links', expiresInDays: 1 },
      t.baseUrl,
      new Date(Date.now() - 3 * 86_400_000),
    );
    const [payload, signature] = good.token.split('.') as [string, string];
    // Another recipient in the claims, the old signature: tampered.
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), e: 'eve@example.com' })).toString('base64url');

    const { context, page } = await t.newPage({ width: 360 });
    try {
      const tampered = await page.goto(`${t.baseUrl}/f/${s.form}?t=${forged}.${signature}`);
      expect(tampered!.status()).toBe(400);
      expect(await page.textContent('h1')).toBe('This link does not work');
      expect(await page.getAttribute('html', 'lang')).toBe('en');
      await page.screenshot({ path: artifactPath('link-400-360.png'), fullPage: true });

      const gone = await page.goto(`${expired.url}&lang=de`);
      expect(gone!.status()).toBe(410);
      expect(await page.textContent('h1')).toBe('Dieser Link ist abgelaufen');
      expect(await page.getAttribute('html', 'lang')).toBe('de');

      const pixel = await page.goto(expired.openUrl);
      expect(pixel!.status()).toBe(200);
      expect(pixel!.headers()['content-type']).toBe('image/gif');
    } finally {
      await context.close();
    }
    const events = await api('/email-events?email_id=em_bad_links');
    expect(events.body.data).toEqual([]);
  });

  it('shows a 409 page when the link is followed again after its one response', async () => {
    const link = await mintLink(t.db, s.ws, { formId: s.form, email: 'cy@example.com' }, t.baseUrl);
    const { context, page } = await t.newPage({ width: 360 });
    try {
      expect((await page.goto(link.url))!.status()).toBe(200);
      await page.check('#q1-9');
      await page.check('#q2-4');
      await page.getByLabel('Pro', { exact: true }).check();
      await Promise.all([page.waitForURL(`**/f/${s.form}/thanks?lang=en`), page.getByRole('button', { name: 'Send' }).click()]);
      const again = await page.goto(`${link.url}&lang=de`);
      expect(again!.status()).toBe(409);
      expect(await page.textContent('h1')).toBe('Dieser Link wurde bereits verwendet');
      expect(await page.getAttribute('html', 'lang')).toBe('de');
      expect(await page.locator('form').count()).toBe(0);
      await page.screenshot({ path: artifactPath('link-409-360.png'), fullPage: true });
    } finally {
      await context.close();
    }
  });
});
