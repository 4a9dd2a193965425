/**
 * The error catalog of the API document ("Errors" table) plus the few codes added in docs/api-rules.md, "Errors".
 * Core and platform code throw AppError; only platform/error-handler.ts writes error bodies:
 * `{"error":{"code","message","status","details"?},"request_id"}`, the same in both styles.
 */

export type ErrorLocation = 'query' | 'body' | 'header' | 'path';

/** One problem with the input (docs/api-rules.md, "Errors"). */
export interface ErrorDetail {
  location: ErrorLocation;
  field: string;
  message: string;
}

export class AppError extends Error {
  constructor(
    readonly code: string,
    readonly status: number,
    message: string,
    readonly details?: readonly ErrorDetail[],
    /** Extra response headers (e.g. Retry-After). */
    readonly headers?: Readonly<Record<string, string>>,
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export const errors = {
  invalidApiKey: () => new AppError('invalid_api_key', 401, 'The X-API-Key header is missing or does not name a valid API key.'),
  apiKeyExpired: () => new AppError('api_key_expired', 401, 'This API key has been revoked or has expired.'),
  insufficientScope: (scope: string) => new AppError('insufficient_scope', 403, `This API key lacks the scope "${scope}".`),
  /** An operation whose openapi entry declares no valid `x-required-scope`: refused (fails closed). */
  scopeUndeclared: (operation: string) => new AppError('insufficient_scope', 403, `${operation} declares no required scope, so no key may call it.`),
  workspaceAccessDenied: () => new AppError('workspace_access_denied', 403, 'This API key has no access to this workspace.'),
  /** Usage counts of a key that also opens workspaces the caller does not (they count requests there too). */
  usageNotShared: (keyId: string) =>
    new AppError(
      'workspace_access_denied',
      403,
      `API key "${keyId}" also opens workspaces this API key has no access to; only a key with access to all of them may read its usage.`,
    ),
  notFound: (kind: string, id?: string) => new AppError('resource_not_found', 404, id === undefined ? `${kind} not found.` : `${kind} "${id}" not found.`),
  routeNotFound: (method: string, path: string) => new AppError('resource_not_found', 404, `No resource at ${method} ${path}.`),
  validation: (details: readonly ErrorDetail[], message?: string) =>
    new AppError(
      'validation_error',
      400,
      message ?? (details.length === 1 ? details[0]!.message : `The request has ${details.length} invalid values.`),
      details,
    ),
  /** Shorthand for a single invalid value. */
  invalid: (location: ErrorLocation, field: string, message: string) => errors.validation([{ location, field, message }]),
  conflict: (message: string, details?: readonly ErrorDetail[]) => new AppError('conflict', 409, message, details),
  idempotencyReplay: () => new AppError('idempotency_replay', 409, 'This Idempotency-Key was already used with a different method, path or body.'),
  rateLimited: (retryAfterSeconds: number) =>
    new AppError('rate_limit_exceeded', 429, `Rate limit exceeded; retry in ${retryAfterSeconds} s.`, undefined, {
      'Retry-After': String(retryAfterSeconds),
    }),
  /**
   * 429 for what runs over a concurrency cap: `what` is "exports" (docs/analytics.md, "Exports, slow clients and caps")
   * or "open streams" (docs/live.md, "Stream"); `cap` reads "2 per key".
   */
  tooManyAtOnce: (what: string, cap: string, retryAfterSeconds: number) =>
    new AppError('rate_limit_exceeded', 429, `Too many ${what} at once (at most ${cap}); retry in ${retryAfterSeconds} s.`, undefined, {
      'Retry-After': String(retryAfterSeconds),
    }),
  payloadTooLarge: (limitBytes: number) => new AppError('payload_too_large', 413, `The request body is larger than ${limitBytes} bytes.`),
  methodNotAllowed: (method: string, allowed: readonly string[]) =>
    new AppError('method_not_allowed', 405, `${method} is not allowed here; use ${allowed.join(', ')}.`, undefined, {
      Allow: allowed.join(', '),
    }),
  headersTooLarge: (limitBytes: number) =>
    new AppError('headers_too_large', 431, `The request line and headers exceed ${limitBytes} bytes; send long values in the body.`),
  /** A well-formed request that cannot be carried out: `field` names the part (e.g. `query.filter` of a request to translate). */
  unprocessable: (field: string, reason: string) => new AppError('unprocessable', 422, `${field}: ${reason}`, [{ location: 'body', field, message: reason }]),
  internal: () => new AppError('internal_error', 500, 'Internal server error; retry with backoff.'),
  /**
   * A position older than the event log keeps (docs/live.md, "Event log"): events after it were pruned; `pruned` is the
   * highest position the retention removed. The client relists from the start (no `after`).
   */
  positionExpired: (pruned: string) =>
    new AppError(
      'position_expired',
      410,
      `Events after this position are no longer kept (the log was pruned through ${pruned}); list again without a position and resume from the newest one you get.`,
    ),
  /** An email link past its expiry (docs/collecting.md, "Email links"). */
  linkExpired: () => new AppError('link_expired', 410, 'This email link has expired; ask the sender for a new one.'),
  /** An email link that has taken every response it may (docs/collecting.md, "Email links"; `max_responses`). */
  linkAlreadyUsed: (maxResponses: number) =>
    new AppError(
      'link_already_used',
      409,
      maxResponses === 1
        ? 'This email link has already been used to respond; a link takes one response.'
        : `This email link has already been used to respond ${maxResponses} times, as many as it takes.`,
    ),
  /** An email link for an address an erasure suppressed (docs/data-rights.md, "Erasing a person"). */
  addressSuppressed: (location: ErrorLocation, field: string) =>
    new AppError(
      'address_suppressed',
      409,
      "This address was erased at its owner's request: email links for it are refused until the workspace lifts the suppression (DELETE {ws}/erasure-requests/{id}/suppression).",
      [{ location, field, message: "The address is on the workspace's suppression list." }],
    ),
  /** 503 while the database cannot be reached (docs/operations.md, "Outages"); `Retry-After` in whole seconds. */
  serviceUnavailable: (retryAfterSeconds: number) =>
    new AppError(
      'service_unavailable',
      503,
      `The service is temporarily unavailable (its database cannot be reached); retry in ${retryAfterSeconds} s.`,
      undefined,
      { 'Retry-After': String(retryAfterSeconds) },
    ),
} as const;
