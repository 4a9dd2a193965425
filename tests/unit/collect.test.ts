import { chooseLanguage } from '../../src/core/forms/public-form';
import { parseInstant } from '../../src/core/query/dates';
import { scoreQuestion, type FormDefinition } from '../../src/core/forms/form-model';
import { validateAnswers } from '../../src/core/responses/answers';

const form = { defaultLanguage: 'en', languages: ['en', 'de', 'pt-BR'] };

describe('chooseLanguage (docs/collecting.md, "Languages")', () => {
  it.each([
    [{ explicit: 'de', query: 'en', acceptLanguage: 'en' }, 'de'],
    [{ explicit: 'DE' }, 'de'],
    [{ query: 'de', acceptLanguage: 'en' }, 'de'],
    [{ query: 'fr', acceptLanguage: 'de-CH, en;q=0.5' }, 'de'],
    [{ acceptLanguage: 'fr, pt-br;q=0.9, de;q=0.8' }, 'pt-BR'],
    [{ acceptLanguage: 'fr;q=1, de;q=0.1, en;q=0.5' }, 'en'],
    [{ acceptLanguage: 'pt' }, 'pt-BR'],
    [{ acceptLanguage: 'de;q=0, *' }, 'en'],
    [{ acceptLanguage: '*' }, 'en'],
    [{ acceptLanguage: 'fr, ja' }, 'en'],
    [{}, 'en'],
  ])('%j → %s', (hints, expected) => {
    expect(chooseLanguage(form, hints)).toBe(expected);
  });

  it('rejects an explicit language the form does not know, naming `language`', () => {
    expect(() => chooseLanguage(form, { explicit: 'fr' })).toThrow(
      expect.objectContaining({ code: 'validation_error', details: [expect.objectContaining({ location: 'body', field: 'language' })] }),
    );
  });
});

describe('parseInstant', () => {
  it.each([
    ['2024-02-29', '2024-02-29T00:00:00.000Z'],
    ['2024-02-29T10:00:00+02:00', '2024-02-29T08:00:00.000Z'],
    ['2024-02-30', undefined],
    ['2024-02-29T10:00:00', undefined],
    ['yesterday', undefined],
  ])('%s → %s', (raw, expected) => {
    expect(parseInstant(raw)?.toISOString()).toBe(expected);
  });
});

const def: FormDefinition = {
  id: 'frm_u',
  defaultLanguage: 'en',
  translations: {},
  questions: [
    { id: 'q_text', type: 'text', title: 'Why?', required: true, options: [] },
    { id: 'q_rate', type: 'rating', title: 'Stars?', required: false, options: [] },
    { id: 'q_nps', type: 'nps', title: 'Likely?', required: false, options: [] },
    { id: 'q_pick', type: 'single_choice', title: 'Pick', required: false, options: [{ id: 'o1', value: 'One' }] },
  ],
};

describe('validateAnswers: required questions and the score', () => {
  it('takes the first nps before an earlier rating, and score_question_id over both', () => {
    expect(scoreQuestion(def)?.id).toBe('q_nps');
    expect(scoreQuestion({ ...def, scoreQuestionId: 'q_rate' })?.id).toBe('q_rate');
    expect(scoreQuestion({ ...def, questions: def.questions.filter((q) => q.type === 'text') })).toBeUndefined();
  });

  it('reports required questions (the score question included) with questionId only when enforced', () => {
    const raw = [{ question_id: 'q_pick', value: 'o1' }];
    const enforced = validateAnswers(def, raw, { language: 'en', enforceRequired: true });
    expect(enforced.problems).toEqual([
      { field: 'answers', message: 'question "q_text" is required but has no answer', questionId: 'q_text' },
      { field: 'answers', message: 'question "q_nps" is required but has no answer', questionId: 'q_nps' },
    ]);
    const history = validateAnswers(def, raw, { language: 'en', enforceRequired: false });
    expect(history).toEqual({
      answers: [{ question_id: 'q_pick', type: 'single_choice', title: 'Pick', value: { id: 'o1', value: 'One' } }],
      score: 0,
      problems: [],
    });
  });

  it('scores the score question and accepts an option id given as a string', () => {
    const ok = validateAnswers(
      def,
      [
        { question_id: 'q_text', value: 'x' },
        { question_id: 'q_nps', value: 7 },
        { question_id: 'q_rate', value: 2 },
      ],
      {
        language: 'en',
        enforceRequired: true,
      },
    );
    expect(ok.problems).toEqual([]);
    expect(ok.score).toBe(7);
  });

  it('reports a non-array and non-object items', () => {
    expect(validateAnswers(def, { q: 1 }, { language: 'en' }).problems).toEqual([{ field: 'answers', message: 'must be an array of answers; got an object' }]);
    expect(validateAnswers(def, ['x', null], { language: 'en' }).problems.map((p) => p.field)).toEqual(['answers[0]', 'answers[1]']);
  });
});
