/** The core submission path on its own: it runs in the caller's transaction (docs/collecting.md, "Collecting responses"). */
import { submitResponse } from '../../../src/core/responses/submit';
import { withTransaction } from '../../../src/db';
import { openTestDb } from '../../support/db';
import { formWorkspace, goodAnswers } from '../../support/given';

let db: Awaited<ReturnType<typeof openTestDb>>;
beforeAll(async () => {
  db = await openTestDb();
});
afterAll(() => db.destroy());

describe('submitResponse', () => {
  it("runs in the caller's transaction: the response is visible there, and a later failure in it stores nothing", async () => {
    const w = await formWorkspace(db);
    let seen: unknown;
    await expect(
      withTransaction(db, async (trx) => {
        const record = await submitResponse(trx, w.ws, { formId: w.form, answers: goodAnswers(), rowId: w.row });
        seen = (await trx('responses').where({ workspace_id: w.ws, id: record.id }).first())?.id;
        throw new Error('token already used');
      }),
    ).rejects.toThrow('token already used');
    expect(seen).toMatch(/^rsp_/);
    expect(await db('responses').where('workspace_id', w.ws).first()).toBeUndefined();
    expect(await db('response_counts').where('workspace_id', w.ws).sum({ n: 'responses' }).first()).toEqual({ n: null });
  });

  it('returns what presenters and the outbox need: form name, captured row, empty actionlists', async () => {
    const w = await formWorkspace(db);
    const record = await withTransaction(db, (trx) =>
      submitResponse(trx, w.ws, { formId: w.form, answers: goodAnswers(), rowId: w.row, respondentEmail: 'x@example.com', emailId: 'em_x' }),
    );
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
