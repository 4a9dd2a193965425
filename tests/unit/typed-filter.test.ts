/**
 * Style A's typed response filters (docs/migrating-between-styles.md, "Response filters"): the fixed names,
 * and that each parameter becomes the very clauses the `filter` parser makes of the Style B expression.
 */
import { AppError } from '../../src/core/errors';
import { compileFilter } from '../../src/core/query/filter';
import { compileTypedFilter, typedClauses } from '../../src/core/query/typed-filter';
import { parseFilter } from '../../src/core/query/filter-parser';
import { RESPONSE_FILTER_FIELDS, RESPONSE_FILTER_PARAMS } from '../../src/core/responses/responses.store';
import { loadOpenApiDocument } from '../../src/platform/openapi';
import { operationIndex } from '../../src/platform/operations';
import { A_ONLY_PARAMS, selectStyle } from '../../src/platform/style';

const param = (name: string) => RESPONSE_FILTER_PARAMS.find((p) => p.name === name)!;
/** Parser clauses without positions (a typed parameter has none). */
const parsed = (expression: string) => parseFilter(expression).map((c) => ({ ...c, position: 0 }));

describe('typed response filter parameters', () => {
  it('are the fixed scheme: every field and operator, no form_id (the list has it), no score_contains', () => {
    const suffixes = ['', '_ne', '_in', '_contains', '_present'];
    const expected = ['id', 'form_id', 'score', 'email_id', 'row_id', 'respondent_email']
      .flatMap((f) => suffixes.map((s) => f + s))
      .filter((n) => n !== 'form_id' && n !== 'score_contains');
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
