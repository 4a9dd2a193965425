/** splitRange (src/core/analytics/analytics.store.ts): whole UTC days from the rollups, partial days from responses. */
import { periodStart, roundTo, splitRange } from '../../src/core/analytics/analytics.store';
import { beforeBound, endDateBound, fromBound } from '../../src/core/query/dates';

describe('splitRange', () => {
  it('reads date-only ranges from the rollups alone', () => {
    expect(splitRange([fromBound('2026-01-05', 'start_date'), endDateBound('2026-01-08', 'end_date')])).toEqual({
      days: { fromDay: '2026-01-05', toDay: '2026-01-09' },
      partial: [],
    });
    expect(splitRange([])).toEqual({ days: {}, partial: [] });
  });

  it('reads the cut days at both ends from responses', () => {
    const lo = fromBound('2026-01-04T13:30:00Z', 'created_after');
    const hi = beforeBound('2026-01-07T09:00:00+02:00', 'created_before');
    expect(splitRange([lo, hi])).toEqual({
      days: { fromDay: '2026-01-05', toDay: '2026-01-07' },
      partial: [
        [lo, { op: '<', value: '2026-01-05T00:00:00Z' }],
        [{ op: '>=', value: '2026-01-07T00:00:00Z' }, hi],
      ],
    });
  });

  it('treats an inclusive midnight end_date instant and a sub-millisecond lower bound as cutting a day', () => {
    const end = endDateBound('2026-01-07T00:00:00Z', 'end_date');
    expect(splitRange([end]).partial).toEqual([[{ op: '>=', value: '2026-01-07T00:00:00Z' }, end]]);
    const lo = fromBound('2026-01-04T00:00:00.0005Z', 'created_after');
    expect(splitRange([lo]).days).toEqual({ fromDay: '2026-01-05', toDay: undefined });
  });

  it('reads a range without a whole day from responses only', () => {
    const lo = fromBound('2026-01-05T06:00:00Z', 'start_date');
    const hi = endDateBound('2026-01-05T22:00:00Z', 'end_date');
    expect(splitRange([lo, hi])).toEqual({ days: null, partial: [[lo, hi]] });
  });
});

describe('periodStart and roundTo', () => {
  it('starts weeks on Monday and months on the 1st', () => {
    expect(periodStart('2026-01-04', 'week')).toBe('2025-12-29'); // a Sunday
    expect(periodStart('2026-01-05', 'week')).toBe('2026-01-05'); // a Monday
    expect(periodStart('2026-02-28', 'month')).toBe('2026-02-01');
  });

  it('rounds half away from zero without -0', () => {
    expect(roundTo(12.25, 1)).toBe(12.3);
    expect(roundTo(-12.25, 1)).toBe(-12.3);
    expect(Object.is(roundTo(-0.00001, 2), 0)).toBe(true);
  });
});
