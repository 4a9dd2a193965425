/** The page's form fields to raw answers and back (pure; no database). */
import type { FormDefinition } from '../../../src/core/forms/form-model';
import { answersFromBody, buildFormView } from '../../../src/pages/form-view';
import { SURVEY_QUESTIONS } from '../../support/given';

const form: FormDefinition = {
  id: 'frm_1',
  defaultLanguage: 'en',
  questions: SURVEY_QUESTIONS.map((q) => ({
    required: false,
    options: [],
    ...q,
    validation: 'validation' in q ? { ...q.validation } : {},
  })) as FormDefinition['questions'],
  translations: { de: { q_plan: { title: 'Tarif?', options: { opt_pro: 'Profi' } } } },
};

describe('answersFromBody', () => {
  it('turns fields into raw answers in form order, skipping empty fields', () => {
    expect(
      answersFromBody(form, {
        'q.q_comment': 'hi',
        'q.q_features': ['opt_api', 'opt_export'],
        'q.q_plan': 'opt_pro',
        'q.q_nps': '9',
        'q.q_rating': '',
        'q.q_seats': ' 1e2 ',
        'q.q_since': '2024-01-31',
        'q.q_email': ' a@example.com ',
        'q.unknown': 'x',
      }),
    ).toEqual([
      { question_id: 'q_nps', value: 9 },
      { question_id: 'q_plan', value: { id: 'opt_pro' } },
      { question_id: 'q_features', value: [{ id: 'opt_api' }, { id: 'opt_export' }] },
      { question_id: 'q_seats', value: 100 },
      { question_id: 'q_since', value: '2024-01-31' },
      { question_id: 'q_email', value: 'a@example.com' },
      { question_id: 'q_comment', value: 'hi' },
    ]);
  });

  it('passes numbers that do not parse on as strings, so the validator names them', () => {
    expect(answersFromBody(form, { 'q.q_nps': 'nine', 'q.q_seats': '0x10' })).toEqual([
      { question_id: 'q_nps', value: 'nine' },
      { question_id: 'q_seats', value: '0x10' },
    ]);
  });
});

describe('buildFormView', () => {
  it('draws the language, the kept values and the messages', () => {
    const view = buildFormView({
      form,
      formName: 'Survey',
      lang: 'de',
      body: { 'q.q_plan': 'opt_pro', 'q.q_features': ['opt_api'], 'q.q_seats': '7' },
      errors: new Map([['q_seats', 'Too many']]),
      token: 'tok',
    });
    const byId = Object.fromEntries(view.questions.map((q) => [q.id, q]));
    expect(view.s.submit).toBe('Senden');
    expect(byId.q_plan).toMatchObject({
      control: 'radio',
      title: 'Tarif?',
      required: true,
      options: [
        { label: 'Basic', checked: false },
        { label: 'Profi', checked: true },
      ],
    });
    expect(byId.q_features!.options.map((o) => o.checked)).toEqual([false, true, false]);
    expect(byId.q_seats).toMatchObject({ control: 'input', inputType: 'number', min: 1, max: 500, value: '7', error: 'Too many' });
    expect(byId.q_nps).toMatchObject({ control: 'radio', scale: true, required: true });
    expect(byId.q_nps!.options.map((o) => o.value)).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '10']);
    expect(byId.q_rating!.options.map((o) => o.value)).toEqual(['1', '2', '3', '4', '5']);
    expect(byId.q_comment).toMatchObject({ control: 'textarea', required: false });
    expect(view.action).toBe('/f/frm_1');
  });
});
