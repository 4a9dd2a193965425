/**
 * Every page a browser opens loads without an error in its console (docs/collecting.md, "Hosted pages"):
 * the form, thank-you and 404 pages, `/docs` (Redoc, with JavaScript) and `/docs/migrating`. Each page
 * gets its own browser context, so Chromium asks for `/favicon.ico` afresh: the test waits until the
 * server has answered it (200, no key), and the shared watch in browser-app.ts fails the test on any
 * console error, page error or failed load. A screenshot of /docs goes to the test artifacts (tests/support/artifacts.ts).
 */
import type { Page } from 'playwright-core';
import { formWorkspace, surveyForm, type FormWorkspace } from '../support/given';
import { useBrowserApp } from './browser-app';
import { artifactPath } from '../support/artifacts';

const t = useBrowserApp();
let s: FormWorkspace;
beforeAll(async () => {
  s = await formWorkspace(t.db, { form: surveyForm });
});

/** Polls `read` every 50 ms until it returns a value (or fails after `ms`). */
async function eventually<T>(read: () => T | undefined, ms = 5000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`nothing after ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Opens `path` in a fresh context, checks the document's status, lets `ready` wait for the page's own
 * work, then waits for the icon Chromium asks for and returns the status the server gave it.
 */
async function open(path: string, status: number, opts: { javaScript?: boolean; ready?: (page: Page) => Promise<void> } = {}): Promise<number> {
  const { context, page } = await t.newPage({ javaScript: opts.javaScript });
  try {
    const from = t.servedToBrowser().length;
    const res = await page.goto(`${t.baseUrl}${path}`);
    expect(res!.status()).toBe(status);
    await opts.ready?.(page);
    return await eventually(
      () =>
        t
          .servedToBrowser()
          .slice(from)
          .find((r) => r.path === '/favicon.ico')?.status,
    );
  } finally {
    await context.close();
  }
}

describe('pages in a browser', () => {
  it('/docs renders the reference from local assets only, its footer logo included, and logs no error', async () => {
    const icon = await open('/docs', 200, {
      javaScript: true,
      ready: async (page) => {
        // Redoc renders the whole document in the browser: seconds on a busy machine.
        await page
          .getByRole('heading', { name: /Feedback Collection and Analytics Service API/ })
          .first()
          .waitFor({ timeout: 30_000 });
        await page.locator('a[href="https://redocly.com/redoc/"] img').waitFor({ state: 'attached' });
        expect(await page.getAttribute('a[href="https://redocly.com/redoc/"] img', 'src')).toMatch(/^data:image\/svg\+xml,/);
        await page.waitForLoadState('networkidle');
        await page.screenshot({ path: artifactPath('docs-1280.png') });
      },
    });
    expect(icon).toBe(200);
  }, 60_000);

  it('/docs/migrating logs no error, its translator form included', async () => {
    const icon = await open('/docs/migrating', 200, {
      ready: async (page) => {
        expect(await page.textContent('h1')).toContain('Migrating');
        await page.fill('#translate-request', '/api/v1/workspaces/ws_1/tables/tbl_1/entries?page=2');
        await Promise.all([page.waitForURL(/request=/), page.click('#translate button')]);
        expect(await page.textContent('#translate-curl')).toContain('/api/v1/translate');
      },
    });
    expect(icon).toBe(200);
  });

  it('the form page, the thank-you page and the 404 page log no error', async () => {
    expect(await open(`/f/${s.form}`, 200)).toBe(200);
    expect(await open(`/f/${s.form}/thanks?lang=en`, 200)).toBe(200);
    expect(await open('/f/frm_unknown', 404, { ready: async (page) => expect(await page.getAttribute('html', 'lang')).toBe('en') })).toBe(200);
  });
});
