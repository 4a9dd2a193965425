/**
 * The request context: what the pipeline's steps learn about a request, in one typed object made by the first step and
 * attached once to `req.context`. Each step fills its fields once and the steps after it read them (docs/architecture.md,
 * "One read"); nothing is handed on through `res.locals` or read back from a response header.
 *
 * | field | filled by | read by |
 * |---|---|---|
 * | `requestId`, `match` | requestContext (first step) | logs, envelopes; style, scope check, metrics, usage |
 * | `path`, `started` | requestContext | the request log line, metrics (once the answer is done) |
 * | `bodyError` | deferBodyErrors | reportBodyError |
 * | `auth` | apiKeyAuth | style, access, idempotency, read routing, usage, handlers |
 * | `style`, `styleError` | decideStyle (as soon as the key is known) | reportStyleError, answer headers, metrics, usage, the shared-path selector |
 * | `workspaceId` | workspaceAccess | handlers |
 * | `operation` | scopeCheck | usage |
 * | `readTarget` | readRouting | (metrics through its callback) |
 * | `deferredBudget` | apiKeyAuth (a conditional GET) | conditionalGet (rate-limit.ts, settleKeyBudget) |
 * | `errorCode` | errorHandler | metrics |
 *
 * Handlers read `req.requestId`, `req.auth`, `req.workspaceId` and `req.style`: read-only accessors of the context,
 * defined once on the app's request prototype (no per-request cost).
 */
import express, { type Express, type RequestHandler } from 'express';
import { performance } from 'node:perf_hooks';
import type { ApiKeyMeta } from '../core/api-keys/api-keys.store';
import type { AppError } from '../core/errors';
import type { Operation, OperationIndex, PathMatch } from './operations';
import { watchAnswer } from './answer-hooks';
import type { DeferredBudget } from './rate-limit';
import type { ReadTarget } from './read-routing';
import { newRequestId } from './request-id';
import type { Style } from './style';
import { answerStyle } from './style-selection';

const QUERY = Symbol('parsedQuery');

/**
 * Express 5's `req.query` is a getter that parses the query string again on every read; the steps before the
 * validator read it several times (the key-in-query check, the style, the validator's own steps). This getter on the
 * app's request prototype keeps the first result for the request's URL, which every later read of the same URL gets:
 * the same object, as the validator then keeps it (it sets `req.query` on the request itself, the parsed and
 * coerced values, which hides this getter).
 */
function parsedOnce(app: Express): void {
  const { get: parse } = Object.getOwnPropertyDescriptor(express.request, 'query') as { get: (this: Express['request']) => unknown };
  Object.defineProperty(app.request, 'query', {
    configurable: true,
    enumerable: true,
    get(this: Express['request'] & { [QUERY]?: { url: string; value: unknown } }) {
      const kept = this[QUERY];
      if (kept?.url === this.url) return kept.value;
      const value: unknown = parse.call(this);
      this[QUERY] = { url: this.url, value };
      return value;
    },
  });
}

export interface RequestContext {
  /** `req_…`, sent as `X-Request-Id` and `request_id` (docs/api-rules.md, "Errors"). */
  readonly requestId: string;
  /** The path of openapi/ the request path matches (its templates, methods, operations, `x-style`); undefined: none. */
  readonly match: PathMatch | undefined;
  /** The request path as the app received it (`req.path` of the first step: routers later shorten `req.path`). */
  readonly path: string;
  /** When the first step ran, in ms of `performance.now()` (the log's `responseTime`, the metrics' duration). */
  readonly started: number;
  /** A body that failed to parse, reported after the auth checks (docs/api-rules.md, "Order of checks"). */
  bodyError: AppError | undefined;
  /** The authenticated key. */
  auth: ApiKeyMeta | undefined;
  /** The style decided once the key is known; undefined before (see style-selection.ts, answerStyle). */
  style: Style | undefined;
  /** Why the style rules refuse this request (a 400 reported after the access checks). */
  styleError: Error | undefined;
  /** The workspace in the path, once access to it is checked. */
  workspaceId: string | undefined;
  /** The operation of the method on `match`, once the scope check found it. */
  operation: Operation | undefined;
  /** The database that answered a read, with read replicas (platform/read-routing.ts). */
  readTarget: ReadTarget | undefined;
  /** The error code of an error answer (for `auth_failures_total`). */
  errorCode: string | undefined;
  /**
   * A conditional GET's key budget, not yet counted: a 304 does not count (rate-limit.ts, deferKeyBudget); undefined
   * once settled or when nothing was deferred.
   */
  deferredBudget: DeferredBudget | undefined;
}

/**
 * The first step: makes the context (the request id, the matched path of `operations`), sends `X-Request-Id` and makes
 * the answer call the app's onAnswerDone listeners once it is done (platform/answer-hooks.ts). Also
 * defines the read-only accessors `req.requestId`, `req.auth`, `req.workspaceId` and `req.style` on the app's request
 * prototype (once, here, so that the step and its accessors cannot be wired apart), and makes Express's `req.query`
 * parse the query string once per request (parsedOnce).
 */
export function requestContext(app: Express, operations: OperationIndex): RequestHandler {
  parsedOnce(app);
  Object.defineProperties(app.request, {
    requestId: {
      get(this: Express['request']) {
        return this.context.requestId;
      },
      configurable: true,
    },
    auth: {
      get(this: Express['request']) {
        return this.context.auth;
      },
      configurable: true,
    },
    workspaceId: {
      get(this: Express['request']) {
        return this.context.workspaceId;
      },
      configurable: true,
    },
    style: {
      get(this: Express['request']) {
        return answerStyle(this);
      },
      configurable: true,
    },
  });
  return (req, res, next) => {
    const path = req.path;
    const context: RequestContext = {
      requestId: newRequestId(),
      match: operations.match(path),
      path,
      started: performance.now(),
      bodyError: undefined,
      auth: undefined,
      style: undefined,
      styleError: undefined,
      workspaceId: undefined,
      operation: undefined,
      readTarget: undefined,
      errorCode: undefined,
      deferredBudget: undefined,
    };
    req.context = context;
    res.setHeader('X-Request-Id', context.requestId);
    watchAnswer(res);
    next();
  };
}
