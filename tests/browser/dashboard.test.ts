/**
 * The dashboard page of a shared link in headless Chromium (docs/analytics.md, "Dashboard links"), JavaScript off:
 * an NPS form, a rating form, a form without responses and a translated form (each with the topics card), each at 1280 and 360 px, checked
 * with axe-core (no serious or critical violation), the chart of the width shown, and the figures behind
 * `<details>`. Screenshots go to the test artifacts as dashboard-{form}-{width}.png (tests/support/artifacts.ts; looked at, not asserted on).
 */
import AxeBuilder from '@axe-core/playwright';
import { importFixture } from '../../src/core/import/importer';
import type { FixtureForm } from '../../src/core/import/fixture-schema';
import { formWorkspace, surveyForm, uid, type FormWorkspace } from '../support/given';
import { useBrowserApp } from './browser-app';
import { artifactPath } from '../support/artifacts';

const t = useBrowserApp();
let s: FormWorkspace;
const forms: Record<string, string> = {};

function ratingForm(ws: string, id: string): FixtureForm {
  return {
    id,
    workspace_id: ws,
    name: 'Support satisfaction',
    default_language: 'en',
    questions: [
      { id: 'q_csat', type: 'rating', title: 'How satisfied are you with the support?', required: true },
      {
        id: 'q_channel',
        type: 'single_choice',
        title: 'How did you contact us?',
        options: [
          { id: 'opt_mail', value: 'Email' },
          { id: 'opt_chat', value: 'Chat' },
          { id: 'opt_phone', value: 'Phone' },
        ],
      },
      { id: 'q_comment', type: 'text', title: 'What could we do better?' },
    ],
  } as FixtureForm;
}

beforeAll(async () => {
  s = await formWorkspace(t.db, { form: surveyForm });
  forms.nps = s.form;
  forms.rating = uid('frm');
  forms.empty = uid('frm');
  const day = (i: number) => new Date(Date.UTC(2026, 0, 1 + i, 10)).toISOString();
  const responses = [];
  for (let i = 0; i < 60; i++) {
    const nps = [10, 9, 8, 7, 3, 10, 6, 9][i % 8]!;
    responses.push({
      id: uid('rsp'),
      form_id: s.form,
      score: nps,
      language: i % 3 === 0 ? 'de' : 'en',
      created_at: day(i),
      answers: [
        { question_id: 'q_nps', value: nps },
        { question_id: 'q_rating', value: 1 + (i % 5) },
        { question_id: 'q_plan', value: { id: i % 4 === 0 ? 'opt_basic' : 'opt_pro' } },
        { question_id: 'q_features', value: [{ id: 'opt_reports' }, ...(i % 2 ? [{ id: 'opt_api' }] : [])] },
        { question_id: 'q_seats', value: 5 + (i % 7) },
        ...(i % 4 === 0 ? [{ question_id: 'q_comment', value: `Comment <em>${i}</em> & more` }] : []),
      ],
    });
    const csat = [5, 4, 4, 3, 5, 2][i % 6]!;
    responses.push({
      id: uid('rsp'),
      form_id: forms.rating,
      score: csat,
      created_at: day(i * 3),
      answers: [
        { question_id: 'q_csat', value: csat },
        { question_id: 'q_channel', value: { id: ['opt_mail', 'opt_chat', 'opt_phone'][i % 3]! } },
        ...(i % 5 === 0 ? [{ question_id: 'q_comment', value: 'Answer faster, please' }] : []),
      ],
    });
  }
  // Topics (docs/analytics.md, "Topics"): the import tags the responses, the page shows the topics card.
  for (const topic of [
    { name: 'comments', query: 'comment' },
    { name: 'speed', query: 'faster | slow' },
  ]) {
    const res = await t.http().post(`/api/v1/workspaces/${s.ws}/topics`).set('X-API-Key', s.key).send(topic);
    if (res.status !== 201) throw new Error(`creating a topic answered ${res.status}`);
  }
  await importFixture(t.db, {
    forms: [ratingForm(s.ws, forms.rating), { ...surveyForm(s.ws, forms.empty), name: 'Nobody answered yet' }],
    responses: responses as never,
  });
});

const linkOf = async (form: string) =>
  (await t.http().post(`/api/v1/workspaces/${s.ws}/forms/${form}/dashboard-links`).set('X-API-Key', s.key).send({})).body.data.url as string;

const cases: Array<{ name: string; form: string; locale?: string; heading: string; lang: string }> = [
  { name: 'nps', form: 'nps', heading: 'Customer survey', lang: 'en' },
  { name: 'rating', form: 'rating', heading: 'Support satisfaction', lang: 'en' },
  { name: 'empty', form: 'empty', heading: 'Nobody answered yet', lang: 'en' },
  { name: 'translated', form: 'nps', locale: 'de-DE', heading: 'Customer survey', lang: 'de' },
];

describe('the dashboard page in a browser', () => {
  for (const c of cases) {
    for (const width of [1280, 360]) {
      it(`${c.name} form at ${width} px: every chart of that width, figures behind details, no serious axe violation`, async () => {
        const url = await linkOf(forms[c.form]!);
        // Script on for axe (the page has none of its own; its CSP would refuse any).
        const { context, page } = await t.newPage({ width, javaScript: true, ...(c.locale ? { locale: c.locale } : {}) });
        try {
          const res = await page.goto(url);
          expect(res!.status()).toBe(200);
          expect(await page.getAttribute('html', 'lang')).toBe(c.lang);
          expect(await page.textContent('h1')).toBe(c.heading);
          const shown = width >= 600 ? '.chart-wide' : '.chart-narrow';
          const hidden = width >= 600 ? '.chart-narrow' : '.chart-wide';
          const charts = await page.locator(shown).count();
          if (c.form === 'empty') {
            expect(charts).toBe(0);
            expect(await page.textContent('.empty')).toMatch(c.lang === 'de' ? /Noch keine/ : /No responses yet/);
          } else {
            // The score over time plus one chart per choice or rating question.
            expect(charts).toBeGreaterThanOrEqual(c.form === 'rating' ? 3 : 6);
            for (let i = 0; i < charts; i++) {
              const box = await page.locator(shown).nth(i).boundingBox();
              expect(box!.width).toBeGreaterThan(200);
              expect(box!.x + box!.width).toBeLessThanOrEqual(width);
            }
            expect(await page.locator(hidden).first().isVisible()).toBe(false);
            expect(await page.getByRole('img').count()).toBe(charts);
            // The figures open without script.
            const details = page.locator('details.figures').first();
            await details.locator('summary').click();
            expect(await details.locator('table tbody tr').count()).toBeGreaterThan(0);
          }
          if (c.name === 'translated') expect(await page.textContent('body')).toContain('Wie wahrscheinlich empfehlen Sie uns weiter?');
          if (c.name === 'nps') {
            // A shared page shows the text question's keywords (from 3 responses or more), never an answer as written.
            expect(await page.textContent('body')).not.toContain('Comment <em>56</em> & more');
            expect(await page.locator('table.keywords caption').first().textContent()).toBe('Keywords');
            expect(await page.locator('table.keywords th[scope="row"]').first().textContent()).toBe('comment');
            expect(await page.locator('#topics-title').textContent()).toBe('Topics');
          }
          // No horizontal scrolling at either width.
          expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(width);
          await page.screenshot({ path: artifactPath(`dashboard-${c.name}-${width}.png`), fullPage: true });
          const axe = await new AxeBuilder({ page }).analyze();
          const bad = axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help} (${v.nodes.length})`);
          expect(bad).toEqual([]);
        } finally {
          await context.close();
        }
      });
    }
  }
});
