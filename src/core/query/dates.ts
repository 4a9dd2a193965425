/**
 * Date parameters (docs/api-rules.md, "Dates"): a value is a date `YYYY-MM-DD` (00:00:00Z of that day)
 * or an ISO 8601 date-time with an offset. `created_after`/`start_date` include their instant,
 * `created_before` excludes it, `end_date` includes its whole day (date) or its instant (date-time).
 * Anything else, a date-time without offset or an impossible date, is a validation_error.
 *
 * Range (docs/decisions.md, "Dates at the edge of the calendar"): years 0001–9999 as written, and the
 * instant in UTC from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999999Z; a value outside it (year
 * 0000, an offset that carries the instant past either end, `+275760-…`) is a validation_error, so every
 * value reaching a Date or PostgreSQL can be held by both. A day derived from a value may be 10000-01-01
 * (the first whole day after a lower bound on 9999-12-31, in analytics): `utcDay` writes it as PostgreSQL
 * reads it; `end_date=9999-12-31` ends at the last microsecond of that day instead of the next day.
 */
import { errors, type ErrorLocation } from '../errors';

/** One bound on a timestamp column; `value` is an ISO string PostgreSQL parses exactly (sub-ms kept). */
export interface DateBound {
  op: '>=' | '<' | '<=';
  value: string;
}

/** One day in milliseconds (a UTC day: the API's dates have no daylight saving). */
export const DAY_MS = 86_400_000;

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-](\d{2}):(\d{2}))$/i;

/** The first and last instants a date value may name (ms since the epoch; the last includes its ms). */
const FIRST_MS = -62135596800000; // 0001-01-01T00:00:00Z
const END_MS = 253402300800000; // 10000-01-01T00:00:00Z, the first instant past the range

/** Year 0000 does not exist in PostgreSQL; `Date.UTC` reads years 0–99 as 1900–1999, so set the year apart. */
function realDate(y: number, m: number, d: number): boolean {
  if (y < 1) return false;
  const t = new Date(0);
  t.setUTCFullYear(y, m - 1, d);
  return t.getUTCFullYear() === y && t.getUTCMonth() === m - 1 && t.getUTCDate() === d;
}

/** Whether an instant (ms since the epoch) lies in the range of date values (module docstring). */
export function inDateRange(ms: number): boolean {
  return ms >= FIRST_MS && ms < END_MS;
}

/**
 * The UTC day of an instant as `YYYY-MM-DD`, in the form PostgreSQL reads: a day past 9999-12-31 (the
 * day after the last, 10000-01-01) keeps its five digits without the `+0` toISOString adds.
 */
export function utcDay(ms: number): string {
  const d = new Date(ms);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${String(d.getUTCFullYear()).padStart(4, '0')}-${two(d.getUTCMonth() + 1)}-${two(d.getUTCDate())}`;
}

/** True for `YYYY-MM-DD` naming a day that exists (`2024-02-30` is false). */
export function isCalendarDate(value: string): boolean {
  const m = DATE.exec(value);
  return m !== null && realDate(Number(m[1]), Number(m[2]), Number(m[3]));
}

/** True for an ISO 8601 date-time with an offset (`Z` or `±hh:mm`) naming a real instant. */
export function isDateTimeWithOffset(value: string): boolean {
  try {
    return parseDateValue(value, 'value').kind === 'date-time';
  } catch {
    return false;
  }
}

/**
 * A date (`YYYY-MM-DD`, 00:00:00Z of that day) or a date-time with offset as a Date; undefined for
 * anything else (docs/api-rules.md, "Dates"). For values that are not query parameters (CLI flags, fixtures).
 */
export function parseInstant(value: string): Date | undefined {
  try {
    const p = parseDateValue(value, 'value');
    return new Date(p.kind === 'date' ? `${p.date}T00:00:00.000Z` : p.value);
  } catch {
    return undefined;
  }
}

/**
 * A body field that must be a future instant (an expiry: API keys, dashboard links), as a Date.
 * @throws AppError validation_error naming `field` unless an ISO 8601 date-time with an offset after `now`.
 */
export function futureDateTime(raw: string, field: string, now = new Date()): Date {
  const parsed = parseDateValue(raw, field, 'body');
  if (parsed.kind !== 'date-time') throw errors.invalid('body', field, `\`${field}\` must be an ISO 8601 date-time with an offset; got "${raw}".`);
  const at = new Date(parsed.value);
  if (at.getTime() <= now.getTime()) throw errors.invalid('body', field, `\`${field}\` must be in the future; got "${raw}".`);
  return at;
}

/**
 * The earliest instant a response may carry (docs/api-rules.md, "Dates"): 1970-01-01T00:00:00Z. Feedback
 * older than the Unix epoch is a typo or a placeholder (`0001-01-01` is how many systems write "no date"),
 * and one such response would stretch every time series of its form over two thousand years.
 */
export const EARLIEST_RESPONSE_TIME = '1970-01-01T00:00:00Z';
const EARLIEST_RESPONSE_MS = Date.parse(EARLIEST_RESPONSE_TIME);

/**
 * Why a response's creation time is refused, as a message naming `field`, or undefined when it is one: at or
 * after EARLIEST_RESPONSE_TIME and not after `now` (docs/api-rules.md, "Dates"). Writes (both styles) and
 * the import apply it.
 */
export function responseTimeProblem(at: Date, field: string, now: Date): string | undefined {
  if (at.getTime() < EARLIEST_RESPONSE_MS) return `\`${field}\` must not be before ${EARLIEST_RESPONSE_TIME}`;
  if (at.getTime() > now.getTime()) return `\`${field}\` must not be in the future`;
  return undefined;
}

export type ParsedDate = { kind: 'date'; date: string } | { kind: 'date-time'; value: string };

/** Parses a date or date-time parameter; throws validation_error naming `field`. */
export function parseDateValue(raw: string, field: string, location: ErrorLocation = 'query'): ParsedDate {
  // The one wording of value messages (docs/api-rules.md, "Errors"): what it must be, why not, what was sent.
  const bad = (why?: string) =>
    errors.invalid(location, field, `\`${field}\` must be a date YYYY-MM-DD or an ISO 8601 date-time with an offset${why ? ` (${why})` : ''}; got "${raw}".`);
  let m = DATE.exec(raw);
  if (m) {
    if (!realDate(Number(m[1]), Number(m[2]), Number(m[3]))) throw bad('this date does not exist');
    return { kind: 'date', date: raw };
  }
  m = DATE_TIME.exec(raw);
  if (m) {
    const [, y, mo, d, h, mi, s, , oh, om] = m;
    const ok =
      realDate(Number(y), Number(mo), Number(d)) &&
      Number(h) < 24 &&
      Number(mi) < 60 &&
      (s === undefined || Number(s) < 60) &&
      (oh === undefined || (Number(oh) < 24 && Number(om) < 60));
    if (!ok) throw bad('this date-time does not exist');
    const value = raw.toUpperCase();
    if (!inDateRange(Date.parse(value))) throw bad('from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999999Z in UTC');
    return { kind: 'date-time', value };
  }
  if (/^\d{4}-\d{2}-\d{2}T[\d:.]+$/.test(raw)) throw bad('this one has no offset');
  throw bad();
}

function nextDay(date: string): string {
  const t = new Date(`${date}T00:00:00Z`);
  t.setUTCDate(t.getUTCDate() + 1);
  return t.toISOString().slice(0, 10);
}

/** Lower bound including its instant (`created_after`, `start_date`). */
export function fromBound(raw: string, field: string): DateBound {
  const p = parseDateValue(raw, field);
  return { op: '>=', value: p.kind === 'date' ? `${p.date}T00:00:00Z` : p.value };
}

/** Upper bound excluding its instant (`created_before`). */
export function beforeBound(raw: string, field: string): DateBound {
  const p = parseDateValue(raw, field);
  return { op: '<', value: p.kind === 'date' ? `${p.date}T00:00:00Z` : p.value };
}

/** Upper bound including its whole day for a date, its instant for a date-time (`end_date`). */
export function endDateBound(raw: string, field: string): DateBound {
  const p = parseDateValue(raw, field);
  if (p.kind === 'date-time') return { op: '<=', value: p.value };
  // The day after 9999-12-31 is past what Date.parse reads: end at the last stored microsecond instead.
  return p.date === '9999-12-31' ? { op: '<=', value: '9999-12-31T23:59:59.999999Z' } : { op: '<', value: `${nextDay(p.date)}T00:00:00Z` };
}
