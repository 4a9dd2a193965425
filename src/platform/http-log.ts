/**
 * Request logging: one pino line per request with its request id, status and duration.
 * Logs never hold a secret (docs/writes-keys-limits.md, "Limits, bad bytes and secrets"): the logged URL goes through
 * one rule, redactUrl, that writes `[redacted]` for every path segment and query value that can hold a token or a
 * key, whatever its spelling; headers and bodies are never logged.
 */
import type { RequestHandler } from 'express';
import { performance } from 'node:perf_hooks';
import type { Logger } from './logger';
import { isSecretParam } from './secret-params';

const PROBE_PATHS = new Set(['/healthz', '/readyz', '/metrics']);
const REDACTED = '[redacted]';

/**
 * A request URL (path and query, as `req.originalUrl`) safe to log. Path: the segment after a `d` or `e` segment
 * (any case: the dashboard link's token in `/d/{token}` and `/d/{token}/export`, the email link's in
 * `/e/{token}.gif` and `/e/{token}.gif/`) becomes `[redacted]`, keeping a `.gif` suffix. Query: the value of every
 * parameter isSecretParam names becomes `[redacted]`. Everything else is kept as sent.
 */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  const path = (q === -1 ? url : url.slice(0, q)).replace(
    /(^|\/)([de])\/([^/]*)/gi,
    (_m, lead: string, kind: string, segment: string) => `${lead}${kind}/${REDACTED}${/\.gif$/i.test(segment) ? '.gif' : ''}`,
  );
  if (q === -1) return path;
  const query = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq === -1 ? pair : pair.slice(0, eq);
      return isSecretParam(name) ? `${name}=${REDACTED}` : pair;
    })
    .join('&');
  return `${path}?${query}`;
}

/**
 * One log line per finished request (`request completed`, or `request aborted` when the client went
 * away first): `request_id`, `req` {method, url (redacted)}, `res` {statusCode}, `responseTime` (ms);
 * level `error` for a 5xx, else `info`. Probes and scrapes are not logged. `req.log` is a child logger
 * carrying the request id, made only when a handler asks for it (error paths), not per request: the
 * line is written by the service's pino logger directly (issue 11, logging cost).
 */
export function httpLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = performance.now();
    let child: Logger | undefined;
    Object.defineProperty(req, 'log', {
      configurable: true,
      enumerable: false,
      get: () => (child ??= logger.child({ request_id: req.requestId })),
    });
    if (!PROBE_PATHS.has(req.path)) {
      const done = (aborted: boolean) => {
        const line = {
          request_id: req.requestId,
          req: { method: req.method, url: redactUrl(req.originalUrl) },
          res: { statusCode: res.statusCode },
          responseTime: Math.round(performance.now() - started),
        };
        if (aborted) logger.info(line, 'request aborted');
        else if (res.statusCode >= 500) logger.error(line, 'request errored');
        else logger.info(line, 'request completed');
      };
      res.once('finish', () => done(false));
      res.once('close', () => {
        if (!res.writableFinished) done(true);
      });
    }
    next();
  };
}
