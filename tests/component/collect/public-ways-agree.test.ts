/**
 * The two public ways in, the hosted page `POST /f/{form_id}` and the public JSON `POST /api/v1/forms/{form_id}/submissions`,
 * run one use case (src/core/responses/public-submission.ts; docs/collecting.md, "Collecting responses"): the same
 * submissions sent both ways get the same outcome and store the same rows. Each way gets a fixture of its own, alike
 * but for its ids, so that what one way stores or uses up never decides the other's outcome.
 */
import { mintLink } from '../../../src/core/links/links';
import { claimLinkUse } from '../../../src/core/links/link-uses.store';
import { withTransaction } from '../../../src/db';
import { useTestApp } from '../../support/app';
import { formWorkspace, surveyForm, uid } from '../../support/given';

const PUBLIC_URL = 'https://feedback.example.com';
const t = useTestApp({ publicUrl: PUBLIC_URL });

type Answers = Record<string, string>;
interface Submission {
  name: string;
  formId: string;
  /** Question id → the value as a page field sends it (numbers and option ids). */
  answers: Answers;
  linkToken?: string;
}

/**
 * One way's fixture: a workspace with the survey form, a twin workspace holding its own copy of that form id (sorting
 * after it, so an id-only lookup finds the first), a link already used up, a link of the twin's copy, and a link of
 * another form.
 */
async function arrange() {
  const own = await formWorkspace(t.db, { form: surveyForm });
  const other = await formWorkspace(t.db, { form: surveyForm });
  const twinWs = `ws_zzzz${uid('x').slice(2)}`;
  await t.db('workspaces').insert({ id: twinWs, name: 'Twin', link: twinWs.toLowerCase().replace(/_/g, '-') });
  await t.db('forms').insert({ workspace_id: twinWs, id: own.form, name: 'Twin survey', default_language: 'en' });
  await t.db('questions').insert({ workspace_id: twinWs, form_id: own.form, id: 'q_only', position: 0, type: 'rating', title: 'Twin rating?', required: true });
  const used = await mintLink(t.db, own.ws, { formId: own.form, email: 'used@example.com', emailId: 'em_used' }, PUBLIC_URL);
  await withTransaction(t.db, (trx) => claimLinkUse(trx, used, used.token));
  const twin = await mintLink(t.db, twinWs, { formId: own.form, email: 'twin@example.com', emailId: 'em_twin' }, PUBLIC_URL);
  const foreign = await mintLink(t.db, other.ws, { formId: other.form, email: 'other@example.com', emailId: 'em_other' }, PUBLIC_URL);
  const good = { q_nps: '9', q_rating: '4', q_plan: 'opt_pro' };
  const submissions: Submission[] = [
    { name: 'valid', formId: own.form, answers: good },
    { name: 'invalid answer', formId: own.form, answers: { ...good, q_nps: '12' } },
    { name: 'used link', formId: own.form, answers: good, linkToken: used.token },
    { name: 'link of another form', formId: own.form, answers: good, linkToken: foreign.token },
    { name: "link of another workspace's copy of the form", formId: own.form, answers: { q_only: '4' }, linkToken: twin.token },
    { name: 'a form no workspace has (closed)', formId: uid('frm'), answers: good },
  ];
  return { own, twinWs, submissions };
}

/** The page's answer as an outcome: its 303 to the thank-you page is the JSON's 201. */
async function viaPage(s: Submission): Promise<number | 'stored'> {
  const fields = new URLSearchParams({ _lang: 'en', ...(s.linkToken ? { _t: s.linkToken } : {}) });
  for (const [id, value] of Object.entries(s.answers)) fields.append(`q.${id}`, value);
  const res = await t.http().post(`/f/${s.formId}`).type('form').send(fields.toString());
  expect(res.headers['content-type']).toBe(res.status === 303 ? 'text/plain; charset=utf-8' : 'text/html; charset=utf-8');
  if (res.status !== 303) return res.status;
  expect(res.headers.location).toBe(`/f/${s.formId}/thanks?lang=en`);
  return 'stored';
}

async function viaJson(s: Submission): Promise<number | 'stored'> {
  const answers = Object.entries(s.answers).map(([id, value]) => ({ question_id: id, value: /^\d+$/.test(value) ? Number(value) : value }));
  const res = await t
    .http()
    .post(`/api/v1/forms/${s.formId}/submissions`)
    .send({ answers, language: 'en', ...(s.linkToken ? { t: s.linkToken } : {}) });
  expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
  if (res.status !== 201) return res.status;
  expect(Object.keys(res.body.data)).toEqual(['id', 'created_at']);
  return 'stored';
}

/** The rows a way stored, its ids replaced by their roles so both ways' rows compare. */
async function storedRows(f: Awaited<ReturnType<typeof arrange>>) {
  const rows: Array<Record<string, unknown>> = await t
    .db('responses')
    .whereIn('workspace_id', [f.own.ws, f.twinWs])
    .orderBy('created_at')
    .select('workspace_id', 'form_id', 'score', 'version', 'language', 'answers', 'respondent_email', 'email_id', 'row_id', 'table_data');
  return rows.map((r) => ({ ...r, workspace_id: r.workspace_id === f.own.ws ? 'own' : 'twin', form_id: r.form_id === f.own.form ? 'form' : r.form_id }));
}

describe('the hosted page and the public JSON way', () => {
  it('answer the same submissions alike and store the same rows', async () => {
    const page = await arrange();
    const json = await arrange();
    const pageOutcomes: Array<[string, number | 'stored']> = [];
    const jsonOutcomes: Array<[string, number | 'stored']> = [];
    for (const s of page.submissions) pageOutcomes.push([s.name, await viaPage(s)]);
    for (const s of json.submissions) jsonOutcomes.push([s.name, await viaJson(s)]);

    expect(pageOutcomes).toEqual([
      ['valid', 'stored'],
      ['invalid answer', 400],
      ['used link', 409],
      ['link of another form', 400],
      ["link of another workspace's copy of the form", 'stored'],
      ['a form no workspace has (closed)', 404],
    ]);
    expect(jsonOutcomes).toEqual(pageOutcomes);

    const pageRows = await storedRows(page);
    expect(pageRows).toEqual([
      {
        workspace_id: 'own',
        form_id: 'form',
        score: 9,
        version: 1,
        language: 'en',
        answers: [
          { question_id: 'q_nps', reporting_label: 'How likely are you to recommend us?', title: 'How likely are you to recommend us?', type: 'nps', value: 9 },
          { question_id: 'q_rating', reporting_label: 'How do you rate the support?', title: 'How do you rate the support?', type: 'rating', value: 4 },
          {
            question_id: 'q_plan',
            reporting_label: 'Which plan do you use?',
            title: 'Which plan do you use?',
            type: 'single_choice',
            value: { id: 'opt_pro', value: 'Pro' },
          },
        ],
        respondent_email: null,
        email_id: null,
        row_id: null,
        table_data: null,
      },
      // The token's workspace decides: the response goes to the twin's copy of the form, with the link's address.
      {
        workspace_id: 'twin',
        form_id: 'form',
        score: 4,
        version: 1,
        language: 'en',
        answers: [{ question_id: 'q_only', title: 'Twin rating?', type: 'rating', value: 4 }],
        respondent_email: 'twin@example.com',
        email_id: 'em_twin',
        row_id: null,
        table_data: null,
      },
    ]);
    expect(await storedRows(json)).toEqual(pageRows);
  });
});
