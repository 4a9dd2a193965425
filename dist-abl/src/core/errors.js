"use strict";
/**
 * The error catalog of the API document ("Errors" table) plus the few codes CONTRACT section 7 adds.
 * Core and platform code throw AppError; only platform/error-handler.ts writes error bodies:
 * `{"error":{"code","message","status","details"?},"request_id"}`, the same in both styles.
 */
Object.defineProperty(exports, "__esModule", { value: true });
exports.errors = exports.AppError = void 0;
class AppError extends Error {
    code;
    status;
    details;
    headers;
    constructor(code, status, message, details, 
    /** Extra response headers (e.g. Retry-After). */
    headers) {
        super(message);
        this.code = code;
        this.status = status;
        this.details = details;
        this.headers = headers;
        this.name = 'AppError';
    }
}
exports.AppError = AppError;
exports.errors = {
    invalidApiKey: () => new AppError('invalid_api_key', 401, 'The X-API-Key header is missing or does not name a valid API key.'),
    apiKeyExpired: () => new AppError('api_key_expired', 401, 'This API key has been revoked or has expired.'),
    insufficientScope: (scope) => new AppError('insufficient_scope', 403, `This API key lacks the scope "${scope}".`),
    /** An operation whose openapi entry declares no valid `x-required-scope`: refused (fails closed). */
    scopeUndeclared: (operation) => new AppError('insufficient_scope', 403, `${operation} declares no required scope, so no key may call it.`),
    workspaceAccessDenied: () => new AppError('workspace_access_denied', 403, 'This API key has no access to this workspace.'),
    notFound: (kind, id) => new AppError('resource_not_found', 404, id === undefined ? `${kind} not found.` : `${kind} "${id}" not found.`),
    routeNotFound: (method, path) => new AppError('resource_not_found', 404, `No resource at ${method} ${path}.`),
    validation: (details, message) => new AppError('validation_error', 400, message ?? (details.length === 1 ? details[0].message : `The request has ${details.length} invalid values.`), details),
    /** Shorthand for a single invalid value. */
    invalid: (location, field, message) => exports.errors.validation([{ location, field, message }]),
    conflict: (message, details) => new AppError('conflict', 409, message, details),
    idempotencyReplay: () => new AppError('idempotency_replay', 409, 'This Idempotency-Key was already used with a different method, path or body.'),
    rateLimited: (retryAfterSeconds) => new AppError('rate_limit_exceeded', 429, `Rate limit exceeded; retry in ${retryAfterSeconds} s.`, undefined, {
        'Retry-After': String(retryAfterSeconds),
    }),
    payloadTooLarge: (limitBytes) => new AppError('payload_too_large', 413, `The request body is larger than ${limitBytes} bytes.`),
    methodNotAllowed: (method, allowed) => new AppError('method_not_allowed', 405, `${method} is not allowed here; use ${allowed.join(', ')}.`, undefined, {
        Allow: allowed.join(', '),
    }),
    headersTooLarge: (limitBytes) => new AppError('headers_too_large', 431, `The request line and headers exceed ${limitBytes} bytes; send long values in the body.`),
    internal: () => new AppError('internal_error', 500, 'Internal server error; retry with backoff.'),
    /** An email link past its expiry (CONTRACT section 12). */
    linkExpired: () => new AppError('link_expired', 410, 'This email link has expired; ask the sender for a new one.'),
    /** 503 while the database cannot be reached (CONTRACT section 14); `Retry-After` in whole seconds. */
    serviceUnavailable: (retryAfterSeconds) => new AppError('service_unavailable', 503, `The service is temporarily unavailable (its database cannot be reached); retry in ${retryAfterSeconds} s.`, undefined, { 'Retry-After': String(retryAfterSeconds) }),
};
//# sourceMappingURL=errors.js.map