/**
 * The interval of a time series (docs/analytics.md, "Time series"): the periods a span needs per interval, and the
 * first interval at or coarser than the one asked whose series has at most MAX_SERIES_POINTS points.
 */
import { MAX_SERIES_POINTS, periodCount, seriesInterval } from '../../src/core/analytics/analytics.store';

describe('periodCount', () => {
  it('counts the periods from the one holding the first day to the one holding the last', () => {
    expect(periodCount('2026-01-05', '2026-01-05', 'day')).toBe(1);
    expect(periodCount('2025-12-31', '2026-01-02', 'day')).toBe(3);
    // 2026-01-03 is a Saturday (week of 2025-12-29), 2026-01-05 a Monday: two weeks.
    expect(periodCount('2026-01-03', '2026-01-05', 'week')).toBe(2);
    expect(periodCount('2025-11-30', '2026-02-01', 'month')).toBe(4);
    expect(periodCount('0001-01-01', '9999-12-31', 'year')).toBe(9999);
    expect(periodCount('0001-01-01', '9999-12-31', 'month')).toBe(119_988);
  });
});

describe('seriesInterval', () => {
  it('keeps the interval asked when it fits, and never answers a finer one', () => {
    expect(seriesInterval('2026-01-01', '2026-12-31', 'day')).toBe('day');
    expect(seriesInterval('2026-01-01', '2026-01-02', 'month')).toBe('month');
  });

  it('takes the first coarser interval with at most MAX_SERIES_POINTS points', () => {
    // 10,000 days fit; 10,001 do not.
    expect(seriesInterval('2000-01-01', '2027-05-18', 'day')).toBe('day');
    expect(periodCount('2000-01-01', '2027-05-18', 'day')).toBe(MAX_SERIES_POINTS);
    expect(seriesInterval('2000-01-01', '2027-05-19', 'day')).toBe('week');
    expect(seriesInterval('1970-01-01', '2026-11-26', 'day')).toBe('week');
    expect(seriesInterval('0001-01-01', '2026-01-05', 'day')).toBe('year');
    expect(seriesInterval('0001-01-01', '9999-12-31', 'week')).toBe('year');
  });
});
