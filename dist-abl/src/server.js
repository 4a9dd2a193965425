"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.DRAIN_TIMEOUT_MS = void 0;
exports.startServer = startServer;
const app_1 = require("./app");
const connection_1 = require("./platform/db/connection");
const http_server_1 = require("./platform/http-server");
const logger_1 = require("./platform/logger");
const metrics_1 = require("./platform/metrics");
const openapi_1 = require("./platform/openapi");
const operations_1 = require("./platform/operations");
const redis_1 = require("./platform/redis");
const worker_1 = require("./delivery/worker");
/** How long requests in flight may take to finish after a shutdown signal before their sockets are closed. */
exports.DRAIN_TIMEOUT_MS = 10_000;
async function startServer(config, opts = {}) {
    const logger = (0, logger_1.createLogger)(config.logLevel);
    const db = (0, connection_1.createDb)({ ...config, requestTimeouts: true }, logger);
    if (opts.migrate || (0, connection_1.isEmbedded)(db)) {
        // On PostgreSQL, migrations (long statements such as CREATE INDEX) run without the request timeouts.
        const migrator = (0, connection_1.isEmbedded)(db) ? db : (0, connection_1.createDb)(config, logger);
        const applied = await (0, connection_1.migrateLatest)(migrator)
            .catch(async (err) => {
            await db.destroy();
            throw err;
        })
            .finally(async () => {
            if (migrator !== db)
                await migrator.destroy();
        });
        if (applied.length > 0)
            logger.info({ applied }, 'migrations applied');
    }
    if ((0, connection_1.isEmbedded)(db))
        logger.info({ dataDir: config.dataDir }, 'using the embedded PostgreSQL (PGlite); set DATABASE_URL for a server');
    const redis = config.redisUrl ? (0, redis_1.createRedis)(config.redisUrl, logger) : undefined;
    if (!redis)
        logger.warn('REDIS_URL is not set: rate limits and idempotency keys are kept in-process (run one instance only)');
    const metrics = (0, metrics_1.createMetrics)({ operations: (0, operations_1.operationIndex)((0, openapi_1.loadOpenApiDocument)()), db, logger });
    const closers = [];
    const addCloser = (name, close) => {
        closers.push({ name, close });
    };
    metrics.setWebhookQueueDepthSource(() => (0, worker_1.queueDepth)(db));
    const app = (0, app_1.buildApp)(config, { db, logger, redis, metrics });
    const server = (0, http_server_1.createHttpServer)(app, logger).listen(config.port, config.host);
    try {
        await new Promise((resolve, reject) => {
            server.once('listening', resolve);
            server.once('error', reject);
        });
    }
    catch (err) {
        // e.g. EADDRINUSE: release what was opened, so the process can exit 1 instead of hanging.
        await Promise.all([...closers.map(async (c) => c.close()), db.destroy()]).catch(() => undefined);
        redis?.disconnect();
        throw err;
    }
    // The worker shares the process's knex instance: on PGlite it is the one connection (CONTRACT section 13).
    if (opts.worker !== false) {
        const observer = opts.workerObserver;
        const worker = (0, worker_1.createDeliveryWorker)({
            db,
            config,
            logger,
            observer: {
                onOutcome: (outcome) => {
                    metrics.webhookDelivery(outcome);
                    observer?.onOutcome?.(outcome);
                },
            },
        });
        await worker.start();
        // Stops after its current attempt, while requests in flight drain.
        addCloser('webhook worker', () => worker.stop());
    }
    const { port } = server.address();
    const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
    logger.info({ url }, 'feedback-service listening');
    let draining = false;
    // While draining, every answer closes its connection, so keep-alive clients move to another instance.
    const inFlight = new Set();
    server.prependListener('request', (_req, res) => {
        if (draining) {
            res.setHeader('Connection', 'close');
            return;
        }
        inFlight.add(res);
        res.once('close', () => inFlight.delete(res));
    });
    const drainMs = opts.drainMs ?? exports.DRAIN_TIMEOUT_MS;
    const stopBackground = () => Promise.all(closers.map(async ({ name, close }) => {
        try {
            await close();
        }
        catch (err) {
            logger.error({ err, closer: name }, 'background work did not stop cleanly');
        }
    }));
    let closing;
    const close = () => (closing ??= (async () => {
        draining = true;
        for (const res of inFlight)
            if (!res.headersSent)
                res.setHeader('Connection', 'close');
        const drained = new Promise((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        // Connections that finish their request become idle: close them as they do.
        const sweep = setInterval(() => server.closeIdleConnections(), 100);
        const deadline = setTimeout(() => {
            logger.warn({ drainMs }, 'requests still in flight after the drain timeout: closing their connections');
            server.closeAllConnections();
        }, drainMs);
        try {
            await Promise.all([drained, stopBackground()]);
        }
        finally {
            clearInterval(sweep);
            clearTimeout(deadline);
        }
        // Requests have drained: the usage counter writes its last counts before the pools close (CONTRACT 15).
        await (0, app_1.stopAppBackground)(app).catch((err) => logger.warn({ err }, 'could not write the last usage counts'));
        await db.destroy();
        if (redis)
            await redis.quit().catch(() => redis.disconnect());
    })());
    if (opts.handleSignals) {
        let signalled = false;
        const onSignal = (signal) => {
            if (signalled) {
                logger.warn({ signal }, 'second signal: exiting at once');
                process.exit(1);
            }
            signalled = true;
            logger.info({ signal, drainMs }, 'shutting down: no new connections, finishing requests in flight');
            close().then(() => {
                logger.info('shut down cleanly');
                process.exit(0);
            }, (err) => {
                logger.error({ err }, 'shutdown failed');
                process.exit(1);
            });
        };
        process.on('SIGINT', onSignal);
        process.on('SIGTERM', onSignal);
    }
    return { url, port, metrics, addCloser, close };
}
//# sourceMappingURL=server.js.map