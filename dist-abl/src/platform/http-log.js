"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.redactUrl = redactUrl;
exports.httpLog = httpLog;
const node_perf_hooks_1 = require("node:perf_hooks");
const PROBE_PATHS = new Set(['/healthz', '/readyz', '/metrics']);
const SECRET_PARAMS = new Set(['api_key', 'key', 'token', 't', 'secret']);
const REDACTED = '[redacted]';
function decodeName(raw) {
    try {
        return decodeURIComponent(raw.replace(/\+/g, ' ')).toLowerCase();
    }
    catch {
        return raw.toLowerCase();
    }
}
/**
 * A request URL (path and query, as `req.originalUrl`) safe to log: secret query values and the
 * email-open token in `/e/{token}.gif` become `[redacted]`; everything else is kept as sent.
 */
function redactUrl(url) {
    const q = url.indexOf('?');
    const path = (q === -1 ? url : url.slice(0, q)).replace(/(^|\/)e\/[^/]*?\.gif$/i, `$1e/${REDACTED}.gif`);
    if (q === -1)
        return path;
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
/**
 * One log line per finished request (`request completed`, or `request aborted` when the client went
 * away first): `request_id`, `req` {method, url (redacted)}, `res` {statusCode}, `responseTime` (ms);
 * level `error` for a 5xx, else `info`. Probes and scrapes are not logged. `req.log` is a child logger
 * carrying the request id, made only when a handler asks for it (error paths), not per request: the
 * line is written by the service's pino logger directly (issue 11, logging cost).
 */
function httpLog(logger) {
    return (req, res, next) => {
        const started = node_perf_hooks_1.performance.now();
        let child;
        Object.defineProperty(req, 'log', {
            configurable: true,
            enumerable: false,
            get: () => (child ??= logger.child({ request_id: req.requestId })),
        });
        if (!PROBE_PATHS.has(req.path)) {
            const done = (aborted) => {
                const line = {
                    request_id: req.requestId,
                    req: { method: req.method, url: redactUrl(req.originalUrl) },
                    res: { statusCode: res.statusCode },
                    responseTime: Math.round(node_perf_hooks_1.performance.now() - started),
                };
                if (aborted)
                    logger.info(line, 'request aborted');
                else if (res.statusCode >= 500)
                    logger.error(line, 'request errored');
                else
                    logger.info(line, 'request completed');
            };
            res.once('finish', () => done(false));
            res.once('close', () => {
                if (!res.writableFinished)
                    done(true);
            });
        }
        next();
    };
}
//# sourceMappingURL=http-log.js.map