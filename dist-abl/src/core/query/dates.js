"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.isCalendarDate = isCalendarDate;
exports.isDateTimeWithOffset = isDateTimeWithOffset;
exports.parseInstant = parseInstant;
exports.parseDateValue = parseDateValue;
exports.fromBound = fromBound;
exports.beforeBound = beforeBound;
exports.endDateBound = endDateBound;
/**
 * Date parameters (CONTRACT section 7, "Dates"): a value is a date `YYYY-MM-DD` (00:00:00Z of that day)
 * or an ISO 8601 date-time with an offset. `created_after`/`start_date` include their instant,
 * `created_before` excludes it, `end_date` includes its whole day (date) or its instant (date-time).
 * Anything else, a date-time without offset or an impossible date, is a validation_error.
 */
const errors_1 = require("../errors");
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-](\d{2}):(\d{2}))$/i;
function realDate(y, m, d) {
    const t = new Date(Date.UTC(y, m - 1, d));
    return t.getUTCFullYear() === y && t.getUTCMonth() === m - 1 && t.getUTCDate() === d;
}
/** True for `YYYY-MM-DD` naming a day that exists (`2024-02-30` is false). */
function isCalendarDate(value) {
    const m = DATE.exec(value);
    return m !== null && realDate(Number(m[1]), Number(m[2]), Number(m[3]));
}
/** True for an ISO 8601 date-time with an offset (`Z` or `±hh:mm`) naming a real instant. */
function isDateTimeWithOffset(value) {
    try {
        return parseDateValue(value, 'value').kind === 'date-time';
    }
    catch {
        return false;
    }
}
/**
 * A date (`YYYY-MM-DD`, 00:00:00Z of that day) or a date-time with offset as a Date; undefined for
 * anything else (CONTRACT section 7). For values that are not query parameters (CLI flags, fixtures).
 */
function parseInstant(value) {
    try {
        const p = parseDateValue(value, 'value');
        return new Date(p.kind === 'date' ? `${p.date}T00:00:00.000Z` : p.value);
    }
    catch {
        return undefined;
    }
}
/** Parses a date or date-time parameter; throws validation_error naming `field`. */
function parseDateValue(raw, field, location = 'query') {
    const bad = (why) => errors_1.errors.invalid(location, field, `\`${field}\` ${why}; got "${raw}". Use YYYY-MM-DD or an ISO 8601 date-time with offset.`);
    let m = DATE.exec(raw);
    if (m) {
        if (!realDate(Number(m[1]), Number(m[2]), Number(m[3])))
            throw bad('is not a real date');
        return { kind: 'date', date: raw };
    }
    m = DATE_TIME.exec(raw);
    if (m) {
        const [, y, mo, d, h, mi, s, , oh, om] = m;
        const ok = realDate(Number(y), Number(mo), Number(d)) &&
            Number(h) < 24 &&
            Number(mi) < 60 &&
            (s === undefined || Number(s) < 60) &&
            (oh === undefined || (Number(oh) < 24 && Number(om) < 60));
        if (!ok)
            throw bad('is not a real date-time');
        return { kind: 'date-time', value: raw.toUpperCase() };
    }
    if (/^\d{4}-\d{2}-\d{2}T[\d:.]+$/.test(raw))
        throw bad('has no UTC offset');
    throw bad('is not a date');
}
function nextDay(date) {
    const t = new Date(`${date}T00:00:00Z`);
    t.setUTCDate(t.getUTCDate() + 1);
    return t.toISOString().slice(0, 10);
}
/** Lower bound including its instant (`created_after`, `start_date`). */
function fromBound(raw, field) {
    const p = parseDateValue(raw, field);
    return { op: '>=', value: p.kind === 'date' ? `${p.date}T00:00:00Z` : p.value };
}
/** Upper bound excluding its instant (`created_before`). */
function beforeBound(raw, field) {
    const p = parseDateValue(raw, field);
    return { op: '<', value: p.kind === 'date' ? `${p.date}T00:00:00Z` : p.value };
}
/** Upper bound including its whole day for a date, its instant for a date-time (`end_date`). */
function endDateBound(raw, field) {
    const p = parseDateValue(raw, field);
    return p.kind === 'date' ? { op: '<', value: `${nextDay(p.date)}T00:00:00Z` } : { op: '<=', value: p.value };
}
//# sourceMappingURL=dates.js.map