/**
 * Issue 17 items 4 and 5: the body depth walk (src/platform/body-shape.ts) and the range of the dates
 * module (src/core/query/dates.ts; docs/decisions.md, "Dates at the edge of the calendar").
 */
import { AppError } from '../../src/core/errors';
import { splitRange } from '../../src/core/analytics/analytics.store';
import { endDateBound, fromBound, inDateRange, isDateTimeWithOffset, parseDateValue, parseInstant, utcDay } from '../../src/core/query/dates';
import { bodyProblem, MAX_BODY_DEPTH } from '../../src/platform/body-shape';

/** `levels` arrays nested in each other, built without recursion. */
function nestedArrays(levels: number): unknown[] {
  const root: unknown[] = [];
  let node = root;
  for (let i = 1; i < levels; i++) node.push((node = []));
  return root;
}

describe('bodyProblem', () => {
  it('allows 32 levels and names the member holding level 33', () => {
    expect(MAX_BODY_DEPTH).toBe(32);
    expect(bodyProblem(nestedArrays(32))).toBeUndefined();
    expect(bodyProblem(nestedArrays(33))).toEqual({ kind: 'depth', field: 'body' });
    expect(bodyProblem({ answers: [{ question_id: 'q', value: nestedArrays(29) }] })).toBeUndefined();
    expect(bodyProblem({ answers: [{ question_id: 'q', value: nestedArrays(30) }] })).toEqual({ kind: 'depth', field: 'answers[0].value' });
  });

  it('walks 1,000,000 levels without the JS stack', () => {
    expect(bodyProblem({ data: { plan: JSON.parse(`${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}`) } })).toEqual({ kind: 'depth', field: 'data.plan' });
  });

  it('reports the first problem in document order, keys included', () => {
    expect(bodyProblem({ a: 'ok', b: ['x', '\ud800'], c: nestedArrays(40) })).toEqual({ kind: 'unicode', field: 'b[1]' });
    expect(bodyProblem({ a: nestedArrays(40), b: '\ud800' })).toEqual({ kind: 'depth', field: 'a' });
    expect(bodyProblem({ data: { ['p\udc00']: 1 } })).toEqual({ kind: 'unicode', field: 'data.p\udc00' });
    expect(bodyProblem('\ud800')).toEqual({ kind: 'unicode', field: 'body' });
    expect(bodyProblem({ data: [{ id: 1, plan: 'x', tags: [1, 2, { deep: true }] }] })).toBeUndefined();
  });
});

const fieldOf = (f: () => unknown): string | undefined => {
  try {
    f();
    return undefined;
  } catch (e) {
    return e instanceof AppError ? e.details?.[0]?.field : `not an AppError: ${String(e)}`;
  }
};

describe('dates at the edge of the calendar', () => {
  it.each([
    '0000-01-01',
    '0000-01-01T00:00:00Z',
    '-000001-01-01',
    '+275760-09-13T00:00:00Z',
    '10000-01-01',
    '2026-02-30',
    '2016-12-31T23:59:60Z',
    '2026-01-01T00:00:00.1234567890Z',
    '2026-01-01T00:00:00+24:00',
    '0001-01-01T00:00:00+14:00',
    '9999-12-31T23:00:00-12:00',
    '2026-01-01T00:00:00',
  ])('refuses %s naming the parameter', (value) => {
    expect(fieldOf(() => parseDateValue(value, 'start_date'))).toBe('start_date');
    expect(parseInstant(value)).toBeUndefined();
    expect(isDateTimeWithOffset(value)).toBe(false);
  });

  it.each([
    ['9999-12-31T23:59:59.999999999Z', 253402300799999],
    ['9999-12-31', 253402214400000],
    ['0001-01-01T00:00:00Z', -62135596800000],
    ['0050-06-01', Date.parse('0050-06-01T00:00:00Z')],
    ['1969-12-31T23:59:59Z', -1000],
    ['2026-01-01T00:00:00+14:00', Date.parse('2025-12-31T10:00:00Z')],
    ['2026-01-01T00:00:00-12:00', Date.parse('2026-01-01T12:00:00Z')],
    ['2024-02-29', Date.parse('2024-02-29T00:00:00Z')],
  ])('accepts %s', (value, ms) => {
    expect(parseInstant(value)?.getTime()).toBe(ms);
  });

  it('bounds the range and writes days past 9999 as PostgreSQL reads them', () => {
    expect([inDateRange(-62135596800000), inDateRange(-62135596800001), inDateRange(253402300799999), inDateRange(253402300800000)]).toEqual([
      true,
      false,
      true,
      false,
    ]);
    expect(inDateRange(Number.NaN)).toBe(false);
    expect(utcDay(253402300800000)).toBe('10000-01-01');
    expect(utcDay(-62135596800000)).toBe('0001-01-01');
    expect(endDateBound('9999-12-31', 'end_date')).toEqual({ op: '<=', value: '9999-12-31T23:59:59.999999Z' });
    expect(endDateBound('2024-02-28', 'end_date')).toEqual({ op: '<', value: '2024-02-29T00:00:00Z' });
  });

  it('splits a range starting at the last instant without a day past what PostgreSQL reads', () => {
    expect(splitRange([fromBound('9999-12-31T23:59:59.999999999Z', 'created_after')])).toEqual({
      days: { fromDay: '10000-01-01', toDay: undefined },
      partial: [
        [
          { op: '>=', value: '9999-12-31T23:59:59.999999999Z' },
          { op: '<', value: '10000-01-01T00:00:00Z' },
        ],
      ],
    });
    expect(splitRange([endDateBound('9999-12-31', 'end_date')])).toEqual({
      days: { fromDay: undefined, toDay: '9999-12-31' },
      partial: [
        [
          { op: '>=', value: '9999-12-31T00:00:00Z' },
          { op: '<=', value: '9999-12-31T23:59:59.999999Z' },
        ],
      ],
    });
  });
});
