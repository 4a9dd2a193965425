/**
 * Bad input to the answer filters, the search and the sentiment filter (issue 29 item 6; docs/api-rules.md, "Filters
 * on answers", "Searching text answers", "Sentiment"): an unknown question id, an operator that does not fit the
 * question's type, a value of the wrong type, a search of 10,000 characters or of only punctuation or tsquery syntax,
 * a sentiment label that does not exist. Each is a 400 validation_error naming the one field at fault, never a 500,
 * in both styles, on the list and on the export, and also when a good filter or search stands beside it.
 */
import { importFixture } from '../../../src/core/import/importer';
import { useTestApp } from '../../support/app';
import { everyTypeForm, uid, workspaceWithKey } from '../../support/given';

const t = useTestApp();

type Pairs = Array<[string, string]>;
let ws: string;
let key: string;
let form: string;

beforeAll(async () => {
  ({ ws, key } = await workspaceWithKey(t.db));
  form = uid('frm');
  await importFixture(t.db, {
    forms: [everyTypeForm(ws, form)],
    responses: [
      {
        form_id: form,
        score: 9,
        answers: [
          { question_id: 'q_nps', value: 9 },
          { question_id: 'q_text', value: 'Support was quick, the price is fair' },
        ],
      },
      {
        form_id: form,
        score: 2,
        answers: [
          { question_id: 'q_nps', value: 2 },
          { question_id: 'q_text', value: 'Too slow and too expensive' },
        ],
      },
    ],
  });
});

const qs = (pairs: Pairs) => pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');

/** Asks the list and the export in `style` and expects the 400 naming `field`, its message matching `message`. */
async function refused(style: 'A' | 'B', pairs: Pairs, field: string, message: RegExp): Promise<void> {
  for (const path of ['responses', 'responses/export']) {
    const res = await t
      .http()
      .get(`/api/v1/workspaces/${ws}/${path}?${qs(pairs)}`)
      .set('X-API-Key', key)
      .set('X-API-Style', style);
    expect({ path, status: res.status, code: res.body.error?.code, fields: (res.body.error?.details ?? []).map((d: { field: string }) => d.field) }).toEqual({
      path,
      status: 400,
      code: 'validation_error',
      fields: [field],
    });
    expect(res.body.error.details[0].message).toMatch(message);
  }
}

const LONG = 'a'.repeat(10_000);

describe('bad answer filters, searches and sentiment labels are a 400 naming the field', () => {
  it.each<[string, Pairs, string, RegExp]>([
    ['an unknown question id', [['answer', 'q_nope:1']], 'answer', /unknown question "q_nope" in form/],
    ['an unknown question id (answered)', [['answer_present', 'q_nope:true']], 'answer_present', /unknown question "q_nope"/],
    ['contains on an nps answer', [['answer_contains', 'q_nps:9']], 'answer_contains', /"~" \(contains\) applies to text and email answers/],
    ['a bound on a choice', [['answer_gte', 'q_plan:opt_pro']], 'answer_gte', /">=" applies to number, rating, nps and date answers/],
    ['a bound on a text answer', [['answer_lt', 'q_text:m']], 'answer_lt', /"<" applies to number, rating, nps and date answers/],
    ['a word for a rating', [['answer_in', 'q_rating:five']], 'answer_in', /"five" is not a number for the rating question "q_rating"/],
    ['a number past the range of a double', [['answer', 'q_nps:1e309']], 'answer', /"1e309" is not a number/],
    ['a day that does not exist', [['answer_gte', 'q_date:2026-02-30']], 'answer_gte', /is not a date YYYY-MM-DD/],
    ['an option the question does not have', [['answer', 'q_plan:opt_gold']], 'answer', /"opt_gold" is not an option of question "q_plan"/],
    ['a search of 10,000 characters', [['q', LONG]], 'q', /500 characters/],
    ['a search of tsquery syntax only', [['q', '&|!():*']], 'q', /`q` holds no word to search for/],
    ['a search of punctuation only', [['q', '?!... ;;']], 'q', /`q` holds no word to search for/],
    [
      'a search of tsquery syntax, beside a good answer filter',
      [
        ['answer', 'q_plan:opt_pro'],
        ['q', '!(:*)'],
      ],
      'q',
      /holds no word/,
    ],
    ['an unknown sentiment label', [['sentiment', 'happy']], 'sentiment', /negative, neutral, positive/],
    ['an unknown sentiment label in a list', [['sentiment_in', 'Positive']], 'sentiment_in', /negative, neutral, positive/],
    [
      'a bad answer filter beside a good search',
      [
        ['q', 'slow'],
        ['answer_gt', 'q_num:ten'],
      ],
      'answer_gt',
      /"ten" is not a number/,
    ],
  ])('Style A: %s', async (_name, pairs, field, message) => {
    await refused('A', [['form_id', form], ...pairs], field, message);
  });

  it.each<[string, string, RegExp]>([
    ['an unknown question id', 'answers.q_nope = 1', /unknown question "q_nope" in form/],
    ['contains on an nps answer', 'answers.q_nps ~ 9', /"~" \(contains\) applies to text and email answers; "q_nps" is a nps question/],
    ['a bound on a multiple choice', 'answers.q_feat > opt_api', /">" applies to number, rating, nps and date answers/],
    ['a bound on a text answer', 'answers.q_text <= m', /"<=" applies to number, rating, nps and date answers/],
    ['a word for a rating', 'answers.q_rating in [1, five]', /"five" is not a number for the rating question "q_rating"/],
    ['a number past the range of a double', 'answers.q_nps >= 1e309', /"1e309" is not a number/],
    ['a bound with null', 'answers.q_nps < null', /"<" needs a value, not null/],
    ['a day that does not exist', 'answers.q_date = 2026-02-30', /is not a date YYYY-MM-DD/],
    ['an option the question does not have', 'answers.q_plan = opt_gold', /"opt_gold" is not an option of question "q_plan"/],
    ['an unknown sentiment label', 'sentiment = happy', /"happy" is not a value of field "sentiment"/],
    ['an unknown sentiment label in a list', 'sentiment in [negative, furious]', /"furious" is not a value of field "sentiment"/],
    ['contains on sentiment', 'sentiment ~ pos', /"~" \(contains\) does not apply to "sentiment"/],
    ['a bad clause after a good one', 'answers.q_nps >= 9, answers.q_nope != null', /unknown question "q_nope"/],
  ])('Style B filter: %s', async (_name, filter, message) => {
    await refused(
      'B',
      [
        ['form_id', form],
        ['filter', filter],
      ],
      'filter',
      message,
    );
  });

  it.each<[string, string, RegExp]>([
    ['of 10,000 characters', LONG, /500 characters/],
    ['of tsquery syntax only', '&|!():*', /`q` holds no word to search for/],
    ['of punctuation only', '?!... ;;', /`q` holds no word to search for/],
  ])('Style B: a search %s, beside a good answer filter', async (_name, q, message) => {
    await refused(
      'B',
      [
        ['form_id', form],
        ['filter', 'answers.q_nps >= 9'],
        ['q', q],
      ],
      'q',
      message,
    );
  });

  it('the good requests beside them answer 200 in both styles', async () => {
    const a = await t
      .http()
      .get(
        `/api/v1/workspaces/${ws}/responses?${qs([
          ['form_id', form],
          ['answer', 'q_plan:opt_pro'],
          ['q', 'slow'],
        ])}`,
      )
      .set('X-API-Key', key)
      .set('X-API-Style', 'A');
    expect({ status: a.status, n: a.body.data?.length }).toEqual({ status: 200, n: 0 });
    const b = await t
      .http()
      .get(
        `/api/v1/workspaces/${ws}/responses?${qs([
          ['form_id', form],
          ['filter', 'answers.q_nps >= 9, sentiment != null'],
          ['q', 'price'],
        ])}`,
      )
      .set('X-API-Key', key);
    expect({ status: b.status, total: b.body.meta?.filtered_total }).toEqual({ status: 200, total: 1 });
  });
});
