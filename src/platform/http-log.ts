/**
 * Request logging: one pino line per request with its request id, status and duration.
 * Logs never hold a secret (docs/writes-keys-limits.md, "Limits, bad bytes and secrets"): the logged URL goes through
 * one rule, redactUrl, that writes `[redacted]` for every path segment and query value that can hold a token or a
 * key, whatever its spelling; headers and bodies are never logged.
 */
import type { Express, Request, Response } from 'express';
import { performance } from 'node:perf_hooks';
import { onAnswerDone } from './answer-hooks';
import type { Logger } from './logger';
import { isPersonalParam, isSecretParam } from './secret-params';

/** Probes and scrapes: no log line (and no trace: platform/tracing.ts). */
export const PROBE_PATHS: ReadonlySet<string> = new Set(['/healthz', '/readyz', '/metrics']);
const REDACTED = '[redacted]';
/** A `d` or `e` path segment (any case) and the segment after it, which holds a token. */
const TOKEN_SEGMENT = /(^|\/)([de])\/([^/]*)/gi;
const redactSegment = (_m: string, lead: string, kind: string, segment: string) => `${lead}${kind}/${REDACTED}${/\.gif$/i.test(segment) ? '.gif' : ''}`;

/**
 * A request URL (path and query, as `req.originalUrl`) safe to log. Path: the segment after a `d` or `e` segment
 * (any case: the dashboard link's token in `/d/{token}` and `/d/{token}/export`, the email link's in
 * `/e/{token}.gif` and `/e/{token}.gif/`) becomes `[redacted]`, keeping a `.gif` suffix. Query: the value of every
 * parameter isSecretParam names becomes `[redacted]`, and so does every value that can hold a person's data (isPersonalParam:
 * an address). Everything else is kept as sent.
 */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  const path = (q === -1 ? url : url.slice(0, q)).replace(TOKEN_SEGMENT, redactSegment);
  if (q === -1) return path;
  const query = url.slice(q + 1);
  const pairs = query.split('&');
  // The query is rebuilt only when it holds a secret (a copy of the pairs then): most requests log it as sent.
  let redacted: string[] | undefined;
  for (let i = 0; i < pairs.length; i++) {
    const pair = pairs[i]!;
    const eq = pair.indexOf('=');
    const name = eq === -1 ? pair : pair.slice(0, eq);
    if (isSecretParam(name) || (eq !== -1 && isPersonalParam(name, pair.slice(eq + 1)))) (redacted ??= [...pairs])[i] = `${name}=${REDACTED}`;
  }
  return `${path}?${redacted ? redacted.join('&') : query}`;
}

const CHILD = Symbol('requestLogger');

/**
 * One log line per finished request (`request completed`, or `request aborted` when the client went
 * away first): `request_id`, `req` {method, url (redacted)}, `res` {statusCode}, `responseTime` (ms since the request
 * context was made); level `error` for a 5xx, else `info`. Probes and scrapes are not logged. The line is written
 * from the app's answer-done listeners (platform/answer-hooks.ts, onAnswerDone), with no closure or child logger per
 * request, by one child of `logger` made here without pino's redaction: the line holds only the fields above, its URL
 * redacted by redactUrl, so the redaction paths of platform/logger.ts (headers, `secret`) never match it, and pino's
 * redaction would only copy every line to find that out; every other line keeps it. `req.log`, a child logger
 * carrying the request id, is an accessor of the app's request prototype that makes it on first use (error paths),
 * not per request (issue 11, issue 28).
 */
export function httpLog(app: Express, logger: Logger): void {
  Object.defineProperty(app.request, 'log', {
    configurable: true,
    enumerable: false,
    get(this: Request & { [CHILD]?: Logger }) {
      return (this[CHILD] ??= logger.child({ request_id: this.requestId }));
    },
  });
  const lines = logger.child({}, { redact: [] });
  const write = (req: Request, res: Response, aborted: boolean) => {
    const ctx = req.context;
    if (PROBE_PATHS.has(ctx.path)) return;
    const line = {
      request_id: ctx.requestId,
      req: { method: req.method, url: redactUrl(req.originalUrl) },
      res: { statusCode: res.statusCode },
      responseTime: Math.round(performance.now() - ctx.started),
    };
    if (aborted) lines.info(line, 'request aborted');
    else if (res.statusCode >= 500) lines.error(line, 'request errored');
    else lines.info(line, 'request completed');
  };
  onAnswerDone(app, {
    finished: (req, res) => write(req, res, false),
    closed: (req, res) => {
      if (!res.writableFinished) write(req, res, true);
    },
  });
}
