import { isCalendarDate } from '../../src/core/query/dates';
import type { FormDefinition } from '../../src/core/forms/form-model';
import { validateAnswers } from '../../src/core/responses/answers';

const form: FormDefinition = {
  id: 'frm_test',
  defaultLanguage: 'en',
  questions: [
    { id: 'q_score', type: 'nps', title: 'How likely?', required: true, options: [] },
    {
      id: 'q_plan',
      type: 'single_choice',
      title: 'Plan?',
      required: false,
      options: [
        { id: 'opt_pro', value: 'Pro' },
        { id: 'opt_basic', value: 'Basic' },
      ],
    },
    {
      id: 'q_features',
      type: 'multiple_choice',
      title: 'Features?',
      required: false,
      options: [
        { id: 'opt_sso', value: 'SSO' },
        { id: 'opt_api', value: 'API' },
      ],
    },
    { id: 'q_text', type: 'text', title: 'Why?', required: false, options: [] },
    { id: 'q_email', type: 'email', title: 'Email?', required: false, options: [] },
    { id: 'q_num', type: 'number', title: 'Team size?', required: false, options: [] },
    { id: 'q_rating', type: 'rating', title: 'Rating?', required: false, options: [] },
    { id: 'q_date', type: 'date', title: 'Start?', required: false, options: [] },
  ],
  translations: {},
};

const translated: FormDefinition = {
  ...form,
  translations: {
    de: {
      q_plan: { title: 'Tarif?', options: { opt_pro: 'Profi' } },
      q_features: { options: { opt_api: 'Schnittstelle' } },
    },
  },
};

describe('validateAnswers', () => {
  it('renders every type in the default language without reporting_label when the form has no translations', () => {
    const { answers, problems } = validateAnswers(
      form,
      [
        { question_id: 'q_score', value: 9 },
        { question_id: 'q_plan', value: { id: 'opt_pro', value: 'ignored text' } },
        { question_id: 'q_features', value: [{ id: 'opt_api' }, { id: 'opt_sso', value: 'x' }] },
        { question_id: 'q_text', value: 'Great' },
        { question_id: 'q_email', value: 'a@example.com' },
        { question_id: 'q_num', value: 12.5 },
        { question_id: 'q_rating', value: 4 },
        { question_id: 'q_date', value: '2024-02-29' },
      ],
      { language: 'en', path: 'responses[0].answers' },
    );
    expect(problems).toEqual([]);
    expect(answers).toEqual([
      { question_id: 'q_score', type: 'nps', title: 'How likely?', value: 9 },
      { question_id: 'q_plan', type: 'single_choice', title: 'Plan?', value: { id: 'opt_pro', value: 'Pro' } },
      {
        question_id: 'q_features',
        type: 'multiple_choice',
        title: 'Features?',
        value: [
          { id: 'opt_api', value: 'API' },
          { id: 'opt_sso', value: 'SSO' },
        ],
      },
      { question_id: 'q_text', type: 'text', title: 'Why?', value: 'Great' },
      { question_id: 'q_email', type: 'email', title: 'Email?', value: 'a@example.com' },
      { question_id: 'q_num', type: 'number', title: 'Team size?', value: 12.5 },
      { question_id: 'q_rating', type: 'rating', title: 'Rating?', value: 4 },
      { question_id: 'q_date', type: 'date', title: 'Start?', value: '2024-02-29' },
    ]);
    for (const a of answers) expect(a).not.toHaveProperty('reporting_label');
  });

  it('uses the response language where translated, the default text elsewhere, and adds reporting_label', () => {
    const { answers, problems } = validateAnswers(
      translated,
      [
        { question_id: 'q_score', value: 10 },
        { question_id: 'q_plan', value: { id: 'opt_pro' } },
        { question_id: 'q_features', value: [{ id: 'opt_api' }, { id: 'opt_sso' }] },
      ],
      { language: 'de', path: 'responses[1].answers' },
    );
    expect(problems).toEqual([]);
    expect(answers).toEqual([
      { question_id: 'q_score', type: 'nps', title: 'How likely?', value: 10, reporting_label: 'How likely?' },
      {
        question_id: 'q_plan',
        type: 'single_choice',
        title: 'Tarif?',
        value: { id: 'opt_pro', value: 'Profi' },
        reporting_label: 'Plan?',
      },
      {
        question_id: 'q_features',
        type: 'multiple_choice',
        title: 'Features?',
        value: [
          { id: 'opt_api', value: 'Schnittstelle' },
          { id: 'opt_sso', value: 'SSO' },
        ],
        reporting_label: 'Features?',
      },
    ]);
  });

  it('falls back to the default texts for a language the form does not know, still with reporting_label', () => {
    const { answers } = validateAnswers(translated, [{ question_id: 'q_plan', value: { id: 'opt_pro' } }], { language: 'fr', path: 'a' });
    expect(answers).toEqual([
      { question_id: 'q_plan', type: 'single_choice', title: 'Plan?', value: { id: 'opt_pro', value: 'Pro' }, reporting_label: 'Plan?' },
    ]);
  });

  it('reports unknown questions, unknown options and wrong types with their paths', () => {
    const { answers, problems } = validateAnswers(
      form,
      [
        { question_id: 'q_nope', value: 1 },
        { question_id: 'q_plan', value: { id: 'opt_gold' } },
        { question_id: 'q_score', value: 11 },
        { question_id: 'q_features', value: { id: 'opt_sso' } },
        { question_id: 'q_text', value: 5 },
        { question_id: 'q_email', value: 'not-an-email' },
        { question_id: 'q_rating', value: 0 },
        { question_id: 'q_date', value: '2023-02-29' },
        { question_id: 'q_num', value: '12' },
      ],
      { language: 'en', path: 'responses[3].answers' },
    );
    expect(answers).toEqual([]);
    expect(problems.map((p) => p.field)).toEqual([
      'responses[3].answers[0].question_id',
      'responses[3].answers[1].value',
      'responses[3].answers[2].value',
      'responses[3].answers[3].value',
      'responses[3].answers[4].value',
      'responses[3].answers[5].value',
      'responses[3].answers[6].value',
      'responses[3].answers[7].value',
      'responses[3].answers[8].value',
    ]);
    expect(problems[0]!.message).toBe('unknown question "q_nope" in form "frm_test"');
    expect(problems[1]!.message).toBe('unknown option "opt_gold" of question "q_plan"');
    expect(problems[2]!.message).toMatch(/from 0 to 10/);
    expect(problems[6]!.message).toMatch(/from 1 to 5/);
  });

  it('rejects a second answer to the same question and a non-integer NPS', () => {
    const { problems } = validateAnswers(
      form,
      [
        { question_id: 'q_score', value: 7.5 },
        { question_id: 'q_text', value: 'a' },
        { question_id: 'q_text', value: 'b' },
      ],
      { language: 'en', path: 'x' },
    );
    expect(problems).toEqual([
      { field: 'x[0].value', message: expect.stringMatching(/integer/), questionId: 'q_score' },
      { field: 'x[2].question_id', message: 'question "q_text" is answered twice', questionId: 'q_text' },
    ]);
  });

  it("honours the question's validation bounds over the type defaults", () => {
    const custom: FormDefinition = {
      ...form,
      questions: [
        { id: 'q_stars', type: 'rating', title: 'Stars', required: false, options: [], validation: { min: 1, max: 10 } },
        { id: 'q_num', type: 'number', title: 'Seats', required: false, options: [], validation: { min: 1, max: 100 } },
      ],
    };
    const ok = validateAnswers(
      custom,
      [
        { question_id: 'q_stars', value: 8 },
        { question_id: 'q_num', value: 100 },
      ],
      { language: 'en', path: 'a' },
    );
    expect(ok.problems).toEqual([]);
    const bad = validateAnswers(
      custom,
      [
        { question_id: 'q_stars', value: 11 },
        { question_id: 'q_num', value: 0 },
      ],
      { language: 'en', path: 'a' },
    );
    expect(bad.problems.map((p) => p.field)).toEqual(['a[0].value', 'a[1].value']);
  });
});

describe('isCalendarDate', () => {
  it.each([
    ['2024-02-29', true],
    ['2023-02-29', false],
    ['2024-13-01', false],
    ['2024-1-01', false],
    ['2024-04-31', false],
    ['2024-04-30', true],
  ])('%s → %s', (value, expected) => {
    expect(isCalendarDate(value)).toBe(expected);
  });
});
