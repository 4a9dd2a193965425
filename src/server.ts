/**
 * Listening server: opens the database (migrating when embedded or asked), connects Redis when
 * configured, builds the app, listens, and shuts down gracefully on SIGINT/SIGTERM (CONTRACT section 14):
 * stop accepting connections, finish requests in flight (up to 10 s, then close the remaining sockets),
 * stop background work through the registered closers, close the pools, exit 0. A second signal exits at once.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildApp, stopAppBackground } from './app';
import type { Config } from './config';
import { createDb, isEmbedded, migrateLatest } from './platform/db/connection';
import { createHttpServer } from './platform/http-server';
import { createLogger } from './platform/logger';
import { createMetrics, type Metrics } from './platform/metrics';
import { loadOpenApiDocument } from './platform/openapi';
import { operationIndex } from './platform/operations';
import { createRedis } from './platform/redis';
import { createDeliveryWorker, queueDepth, type DeliveryWorker, type WorkerObserver } from './delivery/worker';

export interface RunningServer {
  /** Base URL, e.g. `http://127.0.0.1:3000`. */
  url: string;
  port: number;
  /** Metrics of the app: background work reports through it (e.g. `metrics.webhookDelivery(outcome)`). */
  metrics: Metrics;
  /**
   * Registers background work to stop on shutdown (e.g. the webhook worker, whose `stop()` resolves after
   * its current attempt). Closers run while requests drain, before the pools close; a closer that throws
   * is logged and does not stop the others.
   */
  addCloser(name: string, close: () => Promise<void> | void): void;
  /** Stops accepting connections, drains, stops background work, closes the database and Redis. */
  close(): Promise<void>;
}

/** How long requests in flight may take to finish after a shutdown signal before their sockets are closed. */
export const DRAIN_TIMEOUT_MS = 10_000;

export interface StartOptions {
  /** Apply pending migrations before listening (always done on the embedded database). */
  migrate?: boolean;
  /** Install SIGINT/SIGTERM handlers that close the server (the CLI does; tests do not). */
  handleSignals?: boolean;
  /** Run the webhook delivery worker in this process (default true; `serve --no-worker` turns it off). */
  worker?: boolean;
  /** Extra hooks of the worker (tests); its outcomes are always counted in the metrics. */
  workerObserver?: WorkerObserver;
  /** Drain budget in milliseconds (default DRAIN_TIMEOUT_MS). */
  drainMs?: number;
}

export async function startServer(config: Config, opts: StartOptions = {}): Promise<RunningServer> {
  const logger = createLogger(config.logLevel);
  const db = createDb({ ...config, requestTimeouts: true }, logger);
  if (opts.migrate || isEmbedded(db)) {
    // On PostgreSQL, migrations (long statements such as CREATE INDEX) run without the request timeouts.
    const migrator = isEmbedded(db) ? db : createDb(config, logger);
    const applied = await migrateLatest(migrator)
      .catch(async (err: unknown) => {
        await db.destroy();
        throw err;
      })
      .finally(async () => {
        if (migrator !== db) await migrator.destroy();
      });
    if (applied.length > 0) logger.info({ applied }, 'migrations applied');
  }
  if (isEmbedded(db)) logger.info({ dataDir: config.dataDir }, 'using the embedded PostgreSQL (PGlite); set DATABASE_URL for a server');
  const redis = config.redisUrl ? createRedis(config.redisUrl, logger) : undefined;
  if (!redis) logger.warn('REDIS_URL is not set: rate limits and idempotency keys are kept in-process (run one instance only)');

  const metrics = createMetrics({ operations: operationIndex(loadOpenApiDocument()), db, logger });
  const closers: Array<{ name: string; close: () => Promise<void> | void }> = [];
  const addCloser = (name: string, close: () => Promise<void> | void) => {
    closers.push({ name, close });
  };
  metrics.setWebhookQueueDepthSource(() => queueDepth(db));

  const app = buildApp(config, { db, logger, redis, metrics });
  const server = createHttpServer(app, logger).listen(config.port, config.host);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('listening', resolve);
      server.once('error', reject);
    });
  } catch (err) {
    // e.g. EADDRINUSE: release what was opened, so the process can exit 1 instead of hanging.
    await Promise.all([...closers.map(async (c) => c.close()), db.destroy()]).catch(() => undefined);
    redis?.disconnect();
    throw err;
  }
  // The worker shares the process's knex instance: on PGlite it is the one connection (CONTRACT section 13).
  if (opts.worker !== false) {
    const observer = opts.workerObserver;
    const worker: DeliveryWorker = createDeliveryWorker({
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
  const { port } = server.address() as AddressInfo;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  logger.info({ url }, 'feedback-service listening');

  let draining = false;
  // While draining, every answer closes its connection, so keep-alive clients move to another instance.
  const inFlight = new Set<ServerResponse>();
  server.prependListener('request', (_req: IncomingMessage, res: ServerResponse) => {
    if (draining) {
      res.setHeader('Connection', 'close');
      return;
    }
    inFlight.add(res);
    res.once('close', () => inFlight.delete(res));
  });
  const drainMs = opts.drainMs ?? DRAIN_TIMEOUT_MS;
  const stopBackground = () =>
    Promise.all(
      closers.map(async ({ name, close }) => {
        try {
          await close();
        } catch (err) {
          logger.error({ err, closer: name }, 'background work did not stop cleanly');
        }
      }),
    );
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      draining = true;
      for (const res of inFlight) if (!res.headersSent) res.setHeader('Connection', 'close');
      const drained = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      // Connections that finish their request become idle: close them as they do.
      const sweep = setInterval(() => server.closeIdleConnections(), 100);
      const deadline = setTimeout(() => {
        logger.warn({ drainMs }, 'requests still in flight after the drain timeout: closing their connections');
        server.closeAllConnections();
      }, drainMs);
      try {
        await Promise.all([drained, stopBackground()]);
      } finally {
        clearInterval(sweep);
        clearTimeout(deadline);
      }
      // Requests have drained: the usage counter writes its last counts before the pools close (CONTRACT 15).
      await stopAppBackground(app).catch((err: unknown) => logger.warn({ err }, 'could not write the last usage counts'));
      await db.destroy();
      if (redis) await redis.quit().catch(() => redis.disconnect());
    })());
  if (opts.handleSignals) {
    let signalled = false;
    const onSignal = (signal: NodeJS.Signals) => {
      if (signalled) {
        logger.warn({ signal }, 'second signal: exiting at once');
        process.exit(1);
      }
      signalled = true;
      logger.info({ signal, drainMs }, 'shutting down: no new connections, finishing requests in flight');
      close().then(
        () => {
          logger.info('shut down cleanly');
          process.exit(0);
        },
        (err: unknown) => {
          logger.error({ err }, 'shutdown failed');
          process.exit(1);
        },
      );
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  }
  return { url, port, metrics, addCloser, close };
}
