"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.UNMATCHED_ROUTE = void 0;
exports.createMetrics = createMetrics;
const prom_client_1 = require("prom-client");
const errors_1 = require("../core/errors");
const connection_1 = require("./db/connection");
/** Route label of a request that matches no route template. */
exports.UNMATCHED_ROUTE = 'unmatched';
const AUTH_FAILURE_CODES = new Set(['invalid_api_key', 'api_key_expired', 'workspace_access_denied', 'insufficient_scope']);
/** A scrape never waits longer than this for the queue depth (the database may be down). */
const DEPTH_TIMEOUT_MS = 1_000;
/**
 * Builds the metrics of one app. `operations` is the index of openapi/ the scope check also uses: a
 * request's `route` label is the template it matches, written as Express writes routes (`:workspace_id`).
 * The pool gauge reads `db` at each scrape; on the embedded database (a pool of one) it shows 1 used or idle.
 */
function createMetrics(opts) {
    const registry = new prom_client_1.Registry();
    (0, prom_client_1.collectDefaultMetrics)({ register: registry });
    const routeOf = (path) => opts.operations.match(path)?.template.replace(/\{([^}]+)\}/g, ':$1') ?? exports.UNMATCHED_ROUTE;
    const labelNames = ['method', 'route', 'status', 'style'];
    const requests = new prom_client_1.Counter({ name: 'http_requests_total', help: 'HTTP requests answered.', labelNames, registers: [registry] });
    const duration = new prom_client_1.Histogram({
        name: 'http_request_duration_seconds',
        help: 'Time from receiving a request to the end of its answer, in seconds.',
        labelNames,
        buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
        registers: [registry],
    });
    const refusals = new prom_client_1.Counter({
        name: 'rate_limit_refusals_total',
        help: 'Requests refused with 429 by a rate limit, by budget (key, address, submission).',
        labelNames: ['kind'],
        registers: [registry],
    });
    const authFailures = new prom_client_1.Counter({
        name: 'auth_failures_total',
        help: 'Requests refused by the key or access checks, by error code.',
        labelNames: ['code'],
        registers: [registry],
    });
    const deliveries = new prom_client_1.Counter({
        name: 'webhook_deliveries_total',
        help: 'Webhook delivery attempts by outcome (succeeded, retried, failed).',
        labelNames: ['outcome'],
        registers: [registry],
    });
    let depthSource = () => 0;
    let lastDepth = 0;
    new prom_client_1.Gauge({
        name: 'webhook_queue_depth',
        help: 'Webhook deliveries waiting to be attempted.',
        registers: [registry],
        async collect() {
            try {
                const depth = await Promise.race([
                    Promise.resolve(depthSource()),
                    new Promise((_, reject) => setTimeout(() => reject(new Error('queue depth timed out')), DEPTH_TIMEOUT_MS).unref()),
                ]);
                lastDepth = depth;
            }
            catch (err) {
                // The database may be down: show the last known depth rather than failing the scrape.
                opts.logger?.debug({ err }, 'could not read the webhook queue depth');
            }
            this.set(lastDepth);
        },
    });
    const db = opts.db;
    new prom_client_1.Gauge({
        name: 'db_pool_connections',
        help: 'Database pool connections by state (used, idle, waiting = acquires queued).',
        labelNames: ['state'],
        registers: [registry],
        collect() {
            const s = db ? (0, connection_1.poolStats)(db) : { used: 0, idle: 0, waiting: 0 };
            this.set({ state: 'used' }, s.used);
            this.set({ state: 'idle' }, s.idle);
            this.set({ state: 'waiting' }, s.waiting);
        },
    });
    // Every outcome and code shows from the first scrape (at 0), so rate() works at once.
    for (const outcome of ['succeeded', 'retried', 'failed'])
        deliveries.inc({ outcome }, 0);
    for (const kind of ['key', 'address', 'submission'])
        refusals.inc({ kind }, 0);
    const metrics = {
        registry,
        httpMiddleware: () => (req, res, next) => {
            const start = process.hrtime.bigint();
            res.once('finish', () => {
                const labels = {
                    method: req.method,
                    route: routeOf(req.originalUrl.split('?')[0] ?? ''),
                    status: String(res.statusCode),
                    style: String(res.getHeader('X-API-Style') ?? 'none'),
                };
                requests.inc(labels);
                duration.observe(labels, Number(process.hrtime.bigint() - start) / 1e9);
                const code = res.locals.errorCode;
                if (code && AUTH_FAILURE_CODES.has(code))
                    metrics.authFailed(code);
            });
            next();
        },
        handler: (enabled) => async (req, res) => {
            if (!enabled)
                throw errors_1.errors.routeNotFound(req.method, req.path);
            const body = await registry.metrics();
            res.setHeader('Cache-Control', 'no-store');
            res.type(registry.contentType).send(body);
        },
        rateLimitRefused: (kind) => refusals.inc({ kind }),
        countRefusals: (limiter) => {
            const consume = limiter.consume.bind(limiter);
            limiter.consume = async (bucket, subject, points) => {
                const d = await consume(bucket, subject, points);
                if (d.retryAfter !== undefined)
                    metrics.rateLimitRefused(bucket);
                return d;
            };
            return limiter;
        },
        authFailed: (code) => authFailures.inc({ code }),
        webhookDelivery: (outcome) => deliveries.inc({ outcome }),
        setWebhookQueueDepthSource: (source) => {
            depthSource = source;
        },
    };
    return metrics;
}
//# sourceMappingURL=metrics.js.map