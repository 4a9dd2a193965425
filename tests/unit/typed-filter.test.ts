/**
 * Style A's typed response filters (docs/migrating-between-styles.md, "Response filters"): the fixed names,
 * and that each parameter becomes the very clauses the `filter` parser makes of the Style B expression.
 */
import { AppError } from '../../src/core/errors';
import { compileFilter } from '../../src/core/query/filter';
import { compileTypedFilter, typedClauses } from '../../src/core/query/typed-filter';
import { parseFilter } from '../../src/core/query/filter-parser';
import { RESPONSE_ANSWER_PARAMS, RESPONSE_FILTER_FIELDS, RESPONSE_FILTER_PARAMS } from '../../src/core/responses/responses.store';
import { loadOpenApiDocument } from '../../src/platform/openapi';
import { operationIndex } from '../../src/platform/operations';
import { A_ONLY_PARAMS, selectStyle } from '../../src/platform/style';

const param = (name: string) => RESPONSE_FILTER_PARAMS.find((p) => p.name === name)!;
/** Parser clauses without positions (a typed parameter has none). */
const parsed = (expression: string) => parseFilter(expression).map((c) => ({ ...c, position: 0 }));

describe('typed response filter parameters', () => {
  it('are the fixed scheme: every field and operator, no form_id (the list has it), no score_contains nor sentiment_contains', () => {
    const suffixes = ['', '_ne', '_in', '_contains', '_present'];
    const expected = ['id', 'form_id', 'score', 'email_id', 'row_id', 'respondent_email', 'sentiment']
      .flatMap((f) => suffixes.map((s) => f + s))
      .filter((n) => n !== 'form_id' && n !== 'score_contains' && n !== 'sentiment_contains');
    expect(RESPONSE_FILTER_PARAMS.map((p) => p.name)).toEqual(expected);
    expect(A_ONLY_PARAMS).toEqual(expect.arrayContaining(expected));
  });

  it.each([
    ['row_id_ne', ['x'], 'row_id != "x"'],
    ['row_id_ne', ['a', 'b'], 'row_id != "a", row_id != "b"'],
    ['email_id_in', ['a', 'b'], 'email_id in ["a", "b"]'],
    ['respondent_email_contains', ['Ex'], 'respondent_email ~ "Ex"'],
    ['id', ['null'], 'id = "null"'],
    ['score', ['9'], 'score = "9"'],
    ['row_id_present', ['true'], 'row_id != null'],
    ['row_id_present', ['false'], 'row_id = null'],
  ])('%s=%j is the clauses of `%s`', (name, values, expression) => {
    expect(typedClauses(param(name), values)).toEqual(parsed(expression));
  });

  it('compiles to the SQL of the equivalent expression', () => {
    const typed = compileTypedFilter(RESPONSE_FILTER_FIELDS, RESPONSE_FILTER_PARAMS, (n) => ({ score_in: ['9', '10'], row_id_present: ['false'] })[n]);
    const expression = compileFilter('score in [9, 10], row_id = null', { fields: RESPONSE_FILTER_FIELDS });
    expect(typed?.where).toEqual(expression.where);
    expect(compileTypedFilter(RESPONSE_FILTER_FIELDS, RESPONSE_FILTER_PARAMS, () => undefined)).toBeUndefined();
  });

  it('names the parameter in errors', () => {
    const fieldOf = (fn: () => unknown) => {
      try {
        fn();
      } catch (e) {
        return (e as AppError).details?.[0]?.field;
      }
      return undefined;
    };
    expect(fieldOf(() => compileTypedFilter(RESPONSE_FILTER_FIELDS, RESPONSE_FILTER_PARAMS, (n) => (n === 'score_in' ? ['abc'] : undefined)))).toBe('score_in');
    expect(fieldOf(() => typedClauses(param('id_present'), ['yes']))).toBe('id_present');
  });

  it('select Style A on a shared path and clash with filter', () => {
    const path = operationIndex(loadOpenApiDocument()).match('/api/v1/workspaces/ws_1/responses')?.style;
    expect(selectStyle(path, undefined, { row_id_ne: 'x' }, 'B')).toBe('A');
    expect(() => selectStyle(path, undefined, { row_id_ne: 'x', filter: 'score = 1' }, 'A')).toThrow(AppError);
  });
});

describe('keyed answer filter parameters (docs/api-rules.md, "Filters on answers")', () => {
  const answer = (name: string) => RESPONSE_ANSWER_PARAMS.find((p) => p.name === name)!;
  const fieldOf = (fn: () => unknown) => {
    try {
      fn();
    } catch (e) {
      return `${(e as AppError).details?.[0]?.field}: ${(e as AppError).message}`;
    }
    return undefined;
  };

  it('are answer with every suffix, Style A only', () => {
    const names = ['answer', 'answer_ne', 'answer_in', 'answer_contains', 'answer_present', 'answer_gt', 'answer_gte', 'answer_lt', 'answer_lte'];
    expect(RESPONSE_ANSWER_PARAMS.map((p) => p.name)).toEqual(names);
    expect(A_ONLY_PARAMS).toEqual(expect.arrayContaining(names));
  });

  it.each([
    ['answer', ['q_plan:opt_pro'], 'answers.q_plan = "opt_pro"'],
    ['answer', ['q_text:a:b', 'q_text:'], 'answers.q_text = "a:b", answers.q_text = ""'],
    ['answer_ne', ['q_plan:opt_pro'], 'answers.q_plan != "opt_pro"'],
    ['answer_in', ['q_r:1', 'q_p:x', 'q_r:2'], 'answers.q_r in ["1", "2"], answers.q_p in ["x"]'],
    ['answer_in', ['q_r:1', 'q_r'], 'answers.q_r in ["1", null]'],
    ['answer_contains', ['q_c:slow'], 'answers.q_c ~ "slow"'],
    ['answer_present', ['q_c:true', 'q_d:false'], 'answers.q_c != null, answers.q_d = null'],
    ['answer_gt', ['q_r:3'], 'answers.q_r > "3"'],
    ['answer_gte', ['q_r:3'], 'answers.q_r >= "3"'],
    ['answer_lt', ['q_d:2026-01-01'], 'answers.q_d < "2026-01-01"'],
    ['answer_lte', ['"q:1":5'], 'answers."q:1" <= "5"'],
    ['answer_in', ['"q:1"', '"say \\"x\\"":y'], 'answers."q:1" in [null], answers."say \\"x\\"" in ["y"]'],
  ])('%s=%j is the clauses of `%s`', (name, values, expression) => {
    expect(typedClauses(answer(name), values)).toEqual(parsed(expression));
  });

  it.each([
    ['answer', ['q_plan'], /`answer` must be <question_id>:<value>; got "q_plan"/],
    ['answer_gte', [':3'], /`answer_gte` must be <question_id>:<value>; got ":3"/],
    ['answer_present', ['q_c'], /`answer_present` must be <question_id>:true or <question_id>:false; got "q_c"/],
    ['answer_present', ['q_c:yes'], /`answer_present` must be <question_id>:true or <question_id>:false/],
    ['answer_in', ['"q:1'], /`answer_in` must be <question_id>:<value> \(the quoted key has no closing quote\)/],
    ['answer', ['"q"x:1'], /`answer` must be <question_id>:<value> \(a ":" must follow the quoted key\)/],
  ])('%s=%j is a 400 naming the parameter', (name, values, message) => {
    expect(fieldOf(() => typedClauses(answer(name), values))).toMatch(new RegExp(`^${name}: ${message.source}`));
  });
});
