/**
 * The only place that writes error bodies (API document "Errors"; docs/api-rules.md, "Errors"):
 * `{"error":{"code","message","status","details"?},"request_id"}`, the same for both styles.
 * Foreign errors are translated once here: validator errors → validation_error with details,
 * body-parser errors → 400/413, PostgreSQL unique violations → conflict, an unreachable database →
 * 503 service_unavailable with Retry-After (docs/operations.md, "Outages"), anything else →
 * internal_error with a generic message (logged with its stack, never shown).
 */
import type { ErrorRequestHandler, Request, RequestHandler } from 'express';
import { AppError, errors, type ErrorDetail, type ErrorLocation } from '../core/errors';
import { bodyProblem, MAX_BODY_DEPTH } from './body-shape';
import { allowedMethods } from './operations';
import type { Logger } from './logger';
import type { OpenApiDocument } from './openapi';
import { valueMessage } from './validation-messages';

interface ValidatorItem {
  path?: string;
  message?: string;
  location?: string;
  /** `<Ajv keyword>.openapi.validation`, e.g. `minimum.openapi.validation`. */
  errorCode?: string;
}

/** What rewording a validator message needs: the document and the request (src/platform/validation-messages.ts). */
interface RequestContext {
  doc: OpenApiDocument;
  req: Request;
}

const LOCATIONS: Record<string, ErrorLocation> = { query: 'query', body: 'body', headers: 'header', params: 'path', path: 'path' };

/** `/query/limit` or `.body.data[0].id` → location and field; a message about the value in the one wording. */
function detailOf(item: ValidatorItem, ctx: RequestContext | undefined): ErrorDetail {
  const parts = (item.path ?? '')
    .replace(/^[./]+/, '')
    .split(/[./]/)
    .filter(Boolean);
  const location = LOCATIONS[item.location ?? parts[0] ?? ''] ?? LOCATIONS[parts[0] ?? ''] ?? 'body';
  const rest = LOCATIONS[parts[0] ?? ''] ? parts.slice(1) : parts;
  let field = rest.join('.').replace(/\.(\d+)(?=\.|$)/g, '[$1]') || (location === 'body' ? 'body' : '');
  // A repeated query parameter (`?score_in=1&score_in=x`) is named as sent, its value counted from 1.
  const nth = location === 'query' ? /^([^.[\]]+)\[(\d+)\]$/.exec(field) : null;
  if (nth) field = nth[1]!;
  // Header names arrive lower-cased; report them as documented (`Idempotency-Key`, `X-API-Style`).
  if (location === 'header') field = field.replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => dash + c.toUpperCase()).replace(/^X-Api-/, 'X-API-');
  const keyword = (item.errorCode ?? '').split('.')[0] ?? '';
  let reworded: string | undefined;
  try {
    reworded = ctx && field ? valueMessage(ctx.doc, ctx.req, location, field, keyword, nth ? Number(nth[2]) : undefined) : undefined;
  } catch {
    // A request the rewording cannot follow keeps the validator's words: never a 500 while reporting a 400.
  }
  const msg = reworded ?? item.message ?? 'is invalid';
  const name = nth ? `\`${field}\` (value ${Number(nth[2]) + 1})` : `\`${field}\``;
  return { location, field, message: field ? `${name} ${msg}` : msg };
}

/** Seconds a client is told to wait (`Retry-After`) while the database is unreachable. */
export const DB_RETRY_AFTER_SECONDS = 5;

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
 * of the request: these become 503 service_unavailable (docs/operations.md, "Outages").
 */
export function isDatabaseUnavailable(err: unknown, depth = 0): boolean {
  if (err === null || typeof err !== 'object' || depth > 3) return false;
  const e = err as { name?: string; code?: unknown; message?: unknown; errors?: unknown; cause?: unknown };
  if (e.name === 'KnexTimeoutError') return true;
  const code = typeof e.code === 'string' ? e.code : '';
  if (CONNECTION_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code) || /^08[0-9A-Z]{3}$/.test(code)) return true;
  const message = typeof e.message === 'string' ? e.message : '';
  if (CONNECTION_MESSAGES.some((re) => re.test(message))) return true;
  // pg reports a refused connection to every address of a host as an AggregateError.
  if (Array.isArray(e.errors) && e.errors.length > 0 && e.errors.every((x) => isDatabaseUnavailable(x, depth + 1))) return true;
  return e.cause !== undefined && isDatabaseUnavailable(e.cause, depth + 1);
}

/** Details once per field and message (Ajv may report one value against several keywords). */
function uniqueDetails(details: ErrorDetail[]): ErrorDetail[] {
  const seen = new Set<string>();
  return details.filter((d) => {
    const key = `${d.location}\u0000${d.field}\u0000${d.message}`;
    return !seen.has(key) && (seen.add(key), true);
  });
}

function translate(err: unknown, exposeInternals: boolean, ctx?: RequestContext): AppError {
  if (err instanceof AppError) return err;
  if (isDatabaseUnavailable(err)) return errors.serviceUnavailable(DB_RETRY_AFTER_SECONDS);
  const e = err as {
    status?: number;
    type?: string;
    errors?: ValidatorItem[];
    code?: string;
    message?: string;
    path?: string;
    constraint?: string;
    headers?: { Allow?: string };
  };
  if (e.type === 'entity.too.large') return errors.payloadTooLarge(Number((err as { limit?: number }).limit ?? 0));
  // A runtime whose JSON.parse recurses may run out of stack on deep input: the depth rule, not a fault.
  if (e.type === 'entity.parse.failed' && err instanceof RangeError) return tooDeep('body');
  if (e.type === 'entity.parse.failed') return errors.invalid('body', 'body', 'The request body is not valid JSON.');
  // The router could not percent-decode a path segment (`/f/%E2%82`): the client's path is malformed.
  if (err instanceof URIError && e.status === 400) return errors.invalid('path', 'path', 'The path holds a malformed percent-encoding.');
  // A body in another charset or content-encoding than JSON's UTF-8: the client's header is wrong.
  if (e.type === 'charset.unsupported' || e.type === 'encoding.unsupported') {
    return errors.invalid('header', 'Content-Type', 'Send the body as application/json in UTF-8, without a content encoding.');
  }
  if (e.code === '23505') return uniqueConflict(e.constraint, (err as { detail?: string }).detail);
  // PostgreSQL cannot store NUL (\u0000) in text or jsonb: an input problem, not a server fault.
  if (e.code === '22021' || e.code === '22P05') {
    return errors.invalid('body', 'body', 'The request holds a character that cannot be stored (NUL, \\u0000).');
  }
  if (typeof e.status === 'number' && Array.isArray(e.errors)) {
    if (e.status === 400) return errors.validation(uniqueDetails(e.errors.map((item) => detailOf(item, ctx))));
    if (e.status === 404) return errors.routeNotFound('', e.path ?? '');
    // The validator's 405 lists the path's methods in lower case (`get, post`): every 405 carries `Allow`.
    if (e.status === 405) return errors.methodNotAllowed('This method', allowedMethods((e.headers?.Allow ?? '').split(/,\s*/).filter(Boolean)));
    if (e.status === 415) return errors.invalid('header', 'Content-Type', 'Send the body as application/json.');
    if (e.status === 413) return errors.payloadTooLarge(0);
    if (e.status >= 500 && exposeInternals) {
      return new AppError('internal_error', 500, `Response validation: ${e.errors.map((i) => `${i.path} ${i.message}`).join('; ')}`);
    }
  }
  return errors.internal();
}

/**
 * The request fields behind the database's unique constraints that a request can break (docs/api-rules.md,
 * "Errors": a 409 on a unique value names the field). Today only a row's `data.id` (PATCH of a row or an entry
 * to the `id` of another row); another constraint is named by its last column.
 */
const UNIQUE_FIELDS: Record<string, { field: string; what: string }> = {
  datatable_rows_external_id_key: { field: 'data.id', what: 'the `id` of another row of this table' },
};

/** 409 conflict for a unique violation (23505), `details` naming the field from the constraint or the key's column. */
function uniqueConflict(constraint: string | undefined, detail: string | undefined): AppError {
  const known = constraint === undefined ? undefined : UNIQUE_FIELDS[constraint];
  // PostgreSQL's detail: `Key (workspace_id, datatable_id, external_id)=(…) already exists.`
  const column = /^Key \(([^)]*)\)=/
    .exec(detail ?? '')?.[1]
    ?.split(',')
    .pop()
    ?.trim();
  const field = known?.field ?? column ?? 'body';
  const message = `\`${field}\` is already ${known?.what ?? 'used by another resource'}; send another value.`;
  return errors.conflict(message, [{ location: 'body', field, message }]);
}

/** The body nests deeper than MAX_BODY_DEPTH at `field` (docs/writes-keys-limits.md, "Limits, bad bytes and secrets"). */
function tooDeep(field: string): AppError {
  const where = field === 'body' ? 'The request body' : `\`${field}\``;
  return errors.invalid('body', field, `${where} nests arrays and objects deeper than ${MAX_BODY_DEPTH} levels; send at most ${MAX_BODY_DEPTH}.`);
}

/**
/**
 * True when the client closed the connection while its body was being read (body-parser's `request.aborted`, e.g.
 * a slow upload given up): no fault of the service and nobody left to answer (docs/operations.md, "Slow clients").
 */
function isClientAbort(err: unknown): boolean {
  return err !== null && typeof err === 'object' && (err as { type?: unknown }).type === 'request.aborted';
}

/**
 * The error middleware. `opts.doc` (the OpenAPI document) lets validator messages about a value name the range and
 * the value received; without it they keep the validator's words. A client abort is logged at info, not answered.
 */
export function errorHandler(logger: Logger, opts: { exposeInternals: boolean; doc?: OpenApiDocument }): ErrorRequestHandler {
  return (err, req, res, _next) => {
    if (isClientAbort(err)) {
      // Logged as what it is, at info without a stack; the access log adds its `request aborted` line.
      const { received, expected } = err as { received?: number; expected?: number };
      (req.log ?? logger).info({ request_id: req.requestId, received, expected }, 'client aborted the request while sending its body');
      if (!res.destroyed) res.destroy();
      return;
    }
    const appError = translate(err, opts.exposeInternals, opts.doc ? { doc: opts.doc, req } : undefined);
    if (appError.code === 'service_unavailable') {
      (req.log ?? logger).warn({ err: (err as Error).message, request_id: req.requestId }, 'database unavailable');
    } else if (appError.status >= 500) {
      (req.log ?? logger).error({ err, request_id: req.requestId }, 'request failed');
    }
    // For the metrics (auth_failures_total{code}).
    req.context.errorCode = appError.code;
    if (res.headersSent) {
      res.end();
      return;
    }
    for (const [name, value] of Object.entries(appError.headers ?? {})) res.setHeader(name, value);
    // A conditional GET's tag and cache rule are its answer's, not an error's (docs/api-rules.md, "Conditional requests").
    if (res.hasHeader('ETag')) {
      res.removeHeader('ETag');
      res.setHeader('Cache-Control', 'no-store');
    }
    const error: Record<string, unknown> = { code: appError.code, message: appError.message, status: appError.status };
    if (appError.details && appError.details.length > 0) error.details = appError.details;
    res.status(appError.status).json({ error, request_id: req.requestId });
  };
}

/** Unknown routes: 404 resource_not_found in the error envelope. */
export function notFound(): RequestHandler {
  return (req) => {
    throw errors.routeNotFound(req.method, req.path);
  };
}

/**
 * express.json() with the body limit; a malformed or oversized body is remembered and reported after
 * the auth checks (docs/api-rules.md, "Order of checks") by `reportBodyError` (the request context's `bodyError`).
 */
export function deferBodyErrors(): ErrorRequestHandler {
  return (err, req, _res, next) => {
    const e = err as { type?: string };
    if (e.type === 'entity.too.large' || e.type === 'entity.parse.failed' || e.type === 'encoding.unsupported' || e.type === 'charset.unsupported') {
      req.context.bodyError = translate(err, false);
      req.body = undefined;
      next();
      return;
    }
    next(err);
  };
}

export function reportBodyError(): RequestHandler {
  return (req, _res, next) => {
    if (req.context.bodyError) throw req.context.bodyError;
    // Bodies are checked for depth and lone surrogates here, at the edge, for every JSON write (docs/writes-keys-limits.md, "Limits, bad bytes and secrets").
    const bad = bodyProblem(req.body);
    if (bad?.kind === 'depth') throw tooDeep(bad.field);
    if (bad !== undefined) {
      // The field name itself may be the ill-formed part: never echo a lone surrogate back.
      const field = bad.field.toWellFormed();
      throw errors.invalid('body', field, `\`${field}\` is not valid Unicode (it holds a lone surrogate such as \\ud800).`);
    }
    // NUL cannot be stored or compared by PostgreSQL: name the parameter instead of failing later.
    // req.path keeps percent-encoding: a NUL arrives as `%00`.
    if (req.path.includes('\u0000') || /%00/i.test(req.path)) throw errors.invalid('path', 'path', 'The path holds a NUL character (\\u0000).');
    for (const [name, value] of Object.entries(req.query as Record<string, unknown>)) {
      if (String(value).includes('\u0000')) throw errors.invalid('query', name, `\`${name}\` holds a NUL character (\\u0000).`);
    }
    next();
  };
}
