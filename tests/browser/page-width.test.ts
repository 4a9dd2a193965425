/**
 * Every served HTML page fits a 360 px wide screen (issue 26 item 6): `/docs`, `/docs/migrating` (with its
 * translator filled in), the form, thank-you and 404 pages, the email-link pages (a followed link, a tampered one,
 * an expired one) and a dashboard page. Nothing may scroll sideways: document.documentElement.scrollWidth <= 360.
 */
import { mintLink } from '../../src/core/links/links';
import { formWorkspace, surveyForm, type FormWorkspace } from '../support/given';
import { artifactPath } from '../support/artifacts';
import { useBrowserApp } from './browser-app';

const t = useBrowserApp();
let s: FormWorkspace;
let pages: Array<{ name: string; url: string; status: number; javaScript?: boolean }>;

beforeAll(async () => {
  s = await formWorkspace(t.db, { form: surveyForm });
  const link = await mintLink(t.db, s.ws, { formId: s.form, email: 'width@example.com', emailId: 'em_width' }, t.baseUrl);
  const expired = await mintLink(
    t.db,
    s.ws,
    { formId: s.form, email: 'width@example.com', emailId: 'em_width', expiresInDays: 1 },
    t.baseUrl,
    new Date(Date.now() - 3 * 86_400_000),
  );
  const dashboard = await t.http().post(`/api/v1/workspaces/${s.ws}/forms/${s.form}/dashboard-links`).set('X-API-Key', s.key).send({});
  expect(dashboard.status).toBe(201);
  const translate = new URLSearchParams({ method: 'GET', request: '/api/v1/workspaces/ws_1/tables/tbl_1/entries?page=2&limit=50&filter=plan%3Dpro' });
  pages = [
    { name: 'docs', url: `${t.baseUrl}/docs`, status: 200, javaScript: true },
    { name: 'docs-migrating', url: `${t.baseUrl}/docs/migrating`, status: 200 },
    { name: 'docs-migrating-translated', url: `${t.baseUrl}/docs/migrating?${translate}`, status: 200 },
    { name: 'form', url: `${t.baseUrl}/f/${s.form}`, status: 200 },
    { name: 'thanks', url: `${t.baseUrl}/f/${s.form}/thanks?lang=en`, status: 200 },
    { name: 'form-404', url: `${t.baseUrl}/f/frm_unknown`, status: 404 },
    { name: 'email-link', url: link.url, status: 200 },
    { name: 'email-link-400', url: `${link.url}x`, status: 400 },
    { name: 'email-link-410', url: expired.url, status: 410 },
    { name: 'dashboard', url: dashboard.body.data.url as string, status: 200, javaScript: true },
    { name: 'dashboard-404', url: `${t.baseUrl}/d/not-a-token`, status: 404 },
  ];
});

describe('every page at 360 px', () => {
  it('is at most 360 px wide', async () => {
    const wide: string[] = [];
    for (const p of pages) {
      const { context, page } = await t.newPage({ width: 360, javaScript: p.javaScript });
      try {
        const res = await page.goto(p.url);
        expect(`${p.name} ${res!.status()}`).toBe(`${p.name} ${p.status}`);
        // /docs renders in the browser (Redoc): wait for its content before measuring.
        if (p.name === 'docs')
          await page
            .getByRole('heading', { name: /Feedback Collection and Analytics Service API/ })
            .first()
            .waitFor({ timeout: 30_000 });
        if (p.javaScript) await page.waitForLoadState('networkidle');
        const width = (await page.evaluate('document.documentElement.scrollWidth')) as number;
        if (width > 360) {
          wide.push(`${p.name}: ${width} px`);
          await page.screenshot({ path: artifactPath(`wide-${p.name}-360.png`), fullPage: true });
        }
      } finally {
        await context.close();
      }
    }
    expect(wide).toEqual([]);
  }, 120_000);
});
