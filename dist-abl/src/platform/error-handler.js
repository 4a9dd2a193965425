"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.DB_RETRY_AFTER_SECONDS = void 0;
exports.isDatabaseUnavailable = isDatabaseUnavailable;
exports.errorHandler = errorHandler;
exports.notFound = notFound;
exports.deferBodyErrors = deferBodyErrors;
exports.illFormedField = illFormedField;
exports.reportBodyError = reportBodyError;
const errors_1 = require("../core/errors");
const LOCATIONS = { query: 'query', body: 'body', headers: 'header', params: 'path', path: 'path' };
/** `/query/limit` or `.body.data[0].id` → location and field. */
function detailOf(item) {
    const parts = (item.path ?? '').replace(/^[./]+/, '').split(/[./]/).filter(Boolean);
    const location = LOCATIONS[item.location ?? parts[0] ?? ''] ?? LOCATIONS[parts[0] ?? ''] ?? 'body';
    const rest = LOCATIONS[parts[0] ?? ''] ? parts.slice(1) : parts;
    let field = rest.join('.').replace(/\.(\d+)(?=\.|$)/g, '[$1]') || (location === 'body' ? 'body' : '');
    // Header names arrive lower-cased; report them as documented (`Idempotency-Key`, `X-API-Style`).
    if (location === 'header')
        field = field.replace(/(^|-)([a-z])/g, (_m, dash, c) => dash + c.toUpperCase()).replace(/^X-Api-/, 'X-API-');
    const msg = item.message ?? 'is invalid';
    return { location, field, message: field ? `\`${field}\` ${msg}` : msg };
}
/** Seconds a client is told to wait (`Retry-After`) while the database is unreachable. */
exports.DB_RETRY_AFTER_SECONDS = 5;
const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE']);
// SQLSTATE: 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now, 53300 too_many_connections,
// 57014 query_canceled (statement_timeout); class 08 is connection_exception.
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300', '57014']);
const CONNECTION_MESSAGES = [
    /Connection terminated/i, // pg: server closed the socket, or connectionTimeoutMillis passed
    /timeout expired/i, // pg: connect timeout
    /Query read timeout/i, // pg: query_timeout
    /Client has encountered a connection error/i,
    /the database system is (shutting down|starting up|in recovery mode)/i,
    /Timeout acquiring a connection/i, // knex: pool acquire timeout
];
/**
 * True when `err` means the database cannot be reached or cannot serve now (refused, reset or timed-out
 * connections, a server shutting down or starting, a full pool, a statement timeout) rather than a fault
 * of the request: these become 503 service_unavailable (CONTRACT section 14).
 */
function isDatabaseUnavailable(err, depth = 0) {
    if (err === null || typeof err !== 'object' || depth > 3)
        return false;
    const e = err;
    if (e.name === 'KnexTimeoutError')
        return true;
    const code = typeof e.code === 'string' ? e.code : '';
    if (CONNECTION_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code) || /^08[0-9A-Z]{3}$/.test(code))
        return true;
    const message = typeof e.message === 'string' ? e.message : '';
    if (CONNECTION_MESSAGES.some((re) => re.test(message)))
        return true;
    // pg reports a refused connection to every address of a host as an AggregateError.
    if (Array.isArray(e.errors) && e.errors.length > 0 && e.errors.every((x) => isDatabaseUnavailable(x, depth + 1)))
        return true;
    return e.cause !== undefined && isDatabaseUnavailable(e.cause, depth + 1);
}
function translate(err, exposeInternals) {
    if (err instanceof errors_1.AppError)
        return err;
    if (isDatabaseUnavailable(err))
        return errors_1.errors.serviceUnavailable(exports.DB_RETRY_AFTER_SECONDS);
    const e = err;
    if (e.type === 'entity.too.large')
        return errors_1.errors.payloadTooLarge(Number(err.limit ?? 0));
    if (e.type === 'entity.parse.failed')
        return errors_1.errors.invalid('body', 'body', 'The request body is not valid JSON.');
    // The router could not percent-decode a path segment (`/f/%E2%82`): the client's path is malformed.
    if (err instanceof URIError && e.status === 400)
        return errors_1.errors.invalid('path', 'path', 'The path holds a malformed percent-encoding.');
    // A body in another charset or content-encoding than JSON's UTF-8: the client's header is wrong.
    if (e.type === 'charset.unsupported' || e.type === 'encoding.unsupported') {
        return errors_1.errors.invalid('header', 'Content-Type', 'Send the body as application/json in UTF-8, without a content encoding.');
    }
    if (e.code === '23505')
        return errors_1.errors.conflict('A resource with this unique value already exists.');
    // PostgreSQL cannot store NUL (\u0000) in text or jsonb: an input problem, not a server fault.
    if (e.code === '22021' || e.code === '22P05') {
        return errors_1.errors.invalid('body', 'body', 'The request holds a character that cannot be stored (NUL, \\u0000).');
    }
    if (typeof e.status === 'number' && Array.isArray(e.errors)) {
        if (e.status === 400)
            return errors_1.errors.validation(e.errors.map(detailOf));
        if (e.status === 404)
            return errors_1.errors.routeNotFound('', e.path ?? '');
        if (e.status === 405)
            return errors_1.errors.methodNotAllowed('This method', []);
        if (e.status === 415)
            return errors_1.errors.invalid('header', 'Content-Type', 'Send the body as application/json.');
        if (e.status === 413)
            return errors_1.errors.payloadTooLarge(0);
        if (e.status >= 500 && exposeInternals) {
            return new errors_1.AppError('internal_error', 500, `Response validation: ${e.errors.map((i) => `${i.path} ${i.message}`).join('; ')}`);
        }
    }
    return errors_1.errors.internal();
}
function errorHandler(logger, opts) {
    return (err, req, res, _next) => {
        const appError = translate(err, opts.exposeInternals);
        if (appError.code === 'service_unavailable') {
            (req.log ?? logger).warn({ err: err.message, request_id: req.requestId }, 'database unavailable');
        }
        else if (appError.status >= 500) {
            (req.log ?? logger).error({ err, request_id: req.requestId }, 'request failed');
        }
        // For the metrics (auth_failures_total{code}).
        res.locals.errorCode = appError.code;
        if (res.headersSent) {
            res.end();
            return;
        }
        for (const [name, value] of Object.entries(appError.headers ?? {}))
            res.setHeader(name, value);
        if (appError.code === 'method_not_allowed' && !appError.headers?.Allow)
            res.removeHeader('Allow');
        const error = { code: appError.code, message: appError.message, status: appError.status };
        if (appError.details && appError.details.length > 0)
            error.details = appError.details;
        res.status(appError.status).json({ error, request_id: req.requestId });
    };
}
/** Unknown routes: 404 resource_not_found in the error envelope. */
function notFound() {
    return (req) => {
        throw errors_1.errors.routeNotFound(req.method, req.path);
    };
}
/**
 * express.json() with the body limit; a malformed or oversized body is remembered and reported after
 * the auth checks (CONTRACT section 3, order of checks) by `reportBodyError`.
 */
function deferBodyErrors() {
    return (err, req, _res, next) => {
        const e = err;
        if (e.type === 'entity.too.large' || e.type === 'entity.parse.failed' || e.type === 'encoding.unsupported' || e.type === 'charset.unsupported') {
            req.bodyError = translate(err, false);
            req.body = undefined;
            next();
            return;
        }
        next(err);
    };
}
/** A string holds a lone surrogate (not valid Unicode; PostgreSQL refuses it in jsonb). */
const illFormed = (s) => !s.isWellFormed();
/**
 * The first string of a parsed JSON body (a key or a value) that is not valid Unicode, as a field path
 * (`data[0].plan`, `name`, `body`); undefined when every string is well formed.
 */
function illFormedField(value, path = '') {
    if (typeof value === 'string')
        return illFormed(value) ? path || 'body' : undefined;
    if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) {
            const found = illFormedField(value[i], `${path}[${i}]`);
            if (found !== undefined)
                return found;
        }
        return undefined;
    }
    if (value !== null && typeof value === 'object') {
        for (const [key, item] of Object.entries(value)) {
            const field = path ? `${path}.${key}` : key;
            if (illFormed(key))
                return field;
            const found = illFormedField(item, field);
            if (found !== undefined)
                return found;
        }
    }
    return undefined;
}
function reportBodyError() {
    return (req, _res, next) => {
        if (req.bodyError)
            throw req.bodyError;
        // Bodies are checked for lone surrogates here, at the edge, for every JSON write (CONTRACT section 7).
        const bad = illFormedField(req.body);
        if (bad !== undefined) {
            // The field name itself may be the ill-formed part: never echo a lone surrogate back.
            const field = bad.toWellFormed();
            throw errors_1.errors.invalid('body', field, `\`${field}\` is not valid Unicode (it holds a lone surrogate such as \\ud800).`);
        }
        // NUL cannot be stored or compared by PostgreSQL: name the parameter instead of failing later.
        if (req.path.includes('\u0000'))
            throw errors_1.errors.invalid('path', 'path', 'The path holds a NUL character (\\u0000).');
        for (const [name, value] of Object.entries(req.query)) {
            if (String(value).includes('\u0000'))
                throw errors_1.errors.invalid('query', name, `\`${name}\` holds a NUL character (\\u0000).`);
        }
        next();
    };
}
//# sourceMappingURL=error-handler.js.map