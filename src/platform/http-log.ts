/**
 * Request logging with pino-http: one line per request with its request id, status and duration.
 * Logs never hold a secret (CONTRACT section 7): the logged URL has the values of the query
 * parameters `api_key`, `key`, `token`, `t` and `secret` and the token of `/e/{token}.gif` replaced
 * by `[redacted]`; headers and bodies are never logged.
 */
import type { RequestHandler } from 'express';
import { pinoHttp } from 'pino-http';
import type { Logger } from './logger';

const PROBE_PATHS = new Set(['/healthz', '/readyz', '/metrics']);
const SECRET_PARAMS = new Set(['api_key', 'key', 'token', 't', 'secret']);
const REDACTED = '[redacted]';

function decodeName(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' ')).toLowerCase();
  } catch {
    return raw.toLowerCase();
  }
}

/**
 * A request URL (path and query, as `req.originalUrl`) safe to log: secret query values and the
 * email-open token in `/e/{token}.gif` become `[redacted]`; everything else is kept as sent.
 */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  const path = (q === -1 ? url : url.slice(0, q)).replace(/(^|\/)e\/[^/]*?\.gif$/i, `$1e/${REDACTED}.gif`);
  if (q === -1) return path;
  const query = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq === -1 ? pair : pair.slice(0, eq);
      return SECRET_PARAMS.has(decodeName(name)) ? `${name}=${REDACTED}` : pair;
    })
    .join('&');
  return `${path}?${query}`;
}

export function httpLog(logger: Logger): RequestHandler {
  return pinoHttp({
    logger,
    genReqId: (req) => (req as unknown as Express.Request).requestId,
    customAttributeKeys: { reqId: 'request_id' },
    customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : 'info'),
    // Probes and scrapes come every few seconds from every balancer and Prometheus: not request-log lines.
    autoLogging: { ignore: (req) => PROBE_PATHS.has((req.url ?? '').split('?')[0] ?? '') },
    serializers: {
      req: (req: { method: string; url: string; raw?: { originalUrl?: string } }) => ({
        method: req.method,
        url: redactUrl(req.raw?.originalUrl ?? req.url),
      }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
  }) as unknown as RequestHandler;
}
