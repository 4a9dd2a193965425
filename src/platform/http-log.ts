/** Request logging with pino-http: one line per request with its request id, status and duration. */
import type { RequestHandler } from 'express';
import { pinoHttp } from 'pino-http';
import type { Logger } from './logger';

const PROBE_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

export function httpLog(logger: Logger): RequestHandler {
  return pinoHttp({
    logger,
    genReqId: (req) => (req as unknown as Express.Request).requestId,
    customAttributeKeys: { reqId: 'request_id' },
    customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : 'info'),
    // Probes and scrapes come every few seconds from every balancer and Prometheus: not request-log lines.
    autoLogging: { ignore: (req) => PROBE_PATHS.has((req.url ?? '').split('?')[0] ?? '') },
    serializers: {
      req: (req: { method: string; url: string }) => ({ method: req.method, url: req.url }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
  }) as unknown as RequestHandler;
}
