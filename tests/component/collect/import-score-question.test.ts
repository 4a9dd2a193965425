/** Fixtures may name a form's score question (docs/import.md, "The fixture document"); the importer checks it. */
import { importFixture, ImportError } from '../../../src/core/import/importer';
import { openTestDb } from '../../support/db';
import { everyTypeForm, goodAnswers, uid } from '../../support/given';
import { submitResponse } from '../../../src/core/responses/submit';
import { withTransaction } from '../../../src/db';

let db: Awaited<ReturnType<typeof openTestDb>>;
beforeAll(async () => {
  db = await openTestDb();
});
afterAll(() => db.destroy());

describe('import: score_question_id', () => {
  it('stores it, and a submission then scores that question', async () => {
    const ws = uid('ws');
    const form = uid('frm');
    await importFixture(db, {
      workspaces: [{ id: ws, name: ws, link: ws.toLowerCase().replace(/_/g, '-') }],
      forms: [everyTypeForm(ws, form, { score_question_id: 'q_num' })],
    });
    expect((await db('forms').where({ workspace_id: ws, id: form }).first()).score_question_id).toBe('q_num');
    const record = await withTransaction(db, (trx) => submitResponse(trx, ws, { formId: form, answers: goodAnswers() }));
    expect(record).toMatchObject({ score: 12.5, formName: `Every type ${form}`, tableData: null, actionlists: [], version: 1, language: 'en' });
  });

  it('reports an unknown question or one that cannot score, with its path, and writes nothing', async () => {
    const ws = uid('ws');
    const doc = {
      workspaces: [{ id: ws, name: ws, link: ws.toLowerCase().replace(/_/g, '-') }],
      forms: [everyTypeForm(ws, uid('frm'), { score_question_id: 'q_none' }), everyTypeForm(ws, uid('frm'), { score_question_id: 'q_text' })],
    };
    const err = await importFixture(db, doc).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ImportError);
    expect((err as ImportError).problems).toEqual([
      { path: 'forms[0].score_question_id', message: expect.stringMatching(/unknown question "q_none"/) },
      { path: 'forms[1].score_question_id', message: 'question "q_text" is a text question; the score question must be nps, rating or number' },
    ]);
    expect(await db('workspaces').where('id', ws).first()).toBeUndefined();
  });
});
