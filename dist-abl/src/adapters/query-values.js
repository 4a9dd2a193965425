"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.str = str;
exports.int = int;
exports.num = num;
exports.bool = bool;
exports.createdRangeA = createdRangeA;
exports.createdRangeB = createdRangeB;
exports.workspaceOf = workspaceOf;
exports.param = param;
const errors_1 = require("../core/errors");
const dates_1 = require("../core/query/dates");
function str(req, name) {
    const v = req.query[name];
    if (v === undefined)
        return undefined;
    if (Array.isArray(v))
        throw errors_1.errors.invalid('query', name, `\`${name}\` may be given once.`);
    return String(v);
}
/** An integer parameter in [min, max], or the default. */
function int(req, name, min, max, fallback) {
    const raw = str(req, name);
    if (raw === undefined || raw === '')
        return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) {
        throw errors_1.errors.invalid('query', name, `\`${name}\` must be an integer from ${min} to ${max}; got "${raw}".`);
    }
    return n;
}
function num(req, name) {
    const raw = str(req, name);
    if (raw === undefined)
        return undefined;
    const n = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(n))
        throw errors_1.errors.invalid('query', name, `\`${name}\` must be a number; got "${raw}".`);
    return n;
}
function bool(req, name) {
    const raw = str(req, name);
    if (raw === undefined)
        return false;
    if (raw === 'true')
        return true;
    if (raw === 'false')
        return false;
    throw errors_1.errors.invalid('query', name, `\`${name}\` must be true or false; got "${raw}".`);
}
/** Style A dates: `created_after` (inclusive) and `created_before` (exclusive). */
function createdRangeA(req) {
    const bounds = [];
    const after = str(req, 'created_after');
    const before = str(req, 'created_before');
    if (after !== undefined)
        bounds.push((0, dates_1.fromBound)(after, 'created_after'));
    if (before !== undefined)
        bounds.push((0, dates_1.beforeBound)(before, 'created_before'));
    return bounds;
}
/** Style B dates: `start_date` (inclusive), `end_date` (its whole day, or its instant). */
function createdRangeB(req) {
    const bounds = [];
    const start = str(req, 'start_date');
    const end = str(req, 'end_date');
    if (start !== undefined)
        bounds.push((0, dates_1.fromBound)(start, 'start_date'));
    if (end !== undefined)
        bounds.push((0, dates_1.endDateBound)(end, 'end_date'));
    return bounds;
}
/** The workspace the access check approved (set by platform/access). */
function workspaceOf(req) {
    if (req.workspaceId === undefined)
        throw errors_1.errors.workspaceAccessDenied();
    return req.workspaceId;
}
function param(req, name) {
    return String(req.params[name]);
}
//# sourceMappingURL=query-values.js.map