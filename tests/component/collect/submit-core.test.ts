/** The core submission path on its own: the beforeCommit hook shares the transaction (CONTRACT section 11). */
import { submitResponse } from '../../../src/core/responses/submit';
import { openTestDb } from '../../support/db';
import { collectWorkspace, goodAnswers } from './collect-given';

let db: Awaited<ReturnType<typeof openTestDb>>;
beforeAll(async () => {
  db = await openTestDb();
});
afterAll(() => db.destroy());

describe('submitResponse', () => {
  it('runs beforeCommit inside the transaction: the response is visible there, and a failure stores nothing', async () => {
    const w = await collectWorkspace(db);
    let seen: unknown;
    await expect(
      submitResponse(db, w.ws, { formId: w.form, answers: goodAnswers(), rowId: w.row }, {
        beforeCommit: async (trx, record) => {
          seen = (await trx('responses').where({ workspace_id: w.ws, id: record.id }).first())?.id;
          throw new Error('token already used');
        },
      }),
    ).rejects.toThrow('token already used');
    expect(seen).toMatch(/^rsp_/);
    expect(await db('responses').where('workspace_id', w.ws).first()).toBeUndefined();
    expect(await db('response_counts').where('workspace_id', w.ws).sum({ n: 'responses' }).first()).toEqual({ n: null });
  });

  it('returns what presenters and the outbox need: form name, captured row, empty actionlists', async () => {
    const w = await collectWorkspace(db);
    const record = await submitResponse(db, w.ws, { formId: w.form, answers: goodAnswers(), rowId: w.row, respondentEmail: 'x@example.com', emailId: 'em_x' });
    expect(record).toMatchObject({
      formId: w.form,
      formName: `Every type ${w.form}`,
      rowId: w.row,
      tableData: { rowId: w.row, columns: { id: `c-${w.row}`, plan: 'pro' } },
      actionlists: [],
      respondentEmail: 'x@example.com',
      emailId: 'em_x',
    });
    expect(Number((await db('response_counts').where('workspace_id', w.ws).sum({ n: 'responses' }).first())!.n)).toBe(1);
  });
});
