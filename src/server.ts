/**
 * Listening server: opens the database (migrating when embedded or asked), connects Redis when
 * configured, builds the app, listens, and shuts down gracefully on SIGINT/SIGTERM (docs/operations.md, "Shutdown and drain"):
 * stop accepting connections, end live streams with a `retry:` hint, finish requests in flight (up to 10 s, then close the remaining sockets),
 * stop background work through the registered closers, close the pools, exit 0. A second signal exits at once.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Express } from 'express';
import type { AddressInfo } from 'node:net';
import { buildApp, endAppStreams, stopAppBackground } from './app';
import type { Config } from './config';
import type { Db } from './db';
import { createDb, isEmbedded, migrateLatest } from './db/connection';
import { createReadReplicas, type ReadReplicas } from './db/replicas';
import { settleFollowUps } from './db/follow-up';
import { startChangeFold } from './platform/change-fold';
import { createHttpServer } from './platform/http-server';
import { createLogger, writeAfterLog, type Logger } from './platform/logger';
import { createMetrics, type Metrics } from './platform/metrics';
import { logTracingState, stopTracing } from './platform/tracing-state';
import { createRedis, type RedisClient } from './platform/redis';
import { createDeliveryWorker, queueDepth, type DeliveryWorker, type WorkerObserver } from './delivery/worker';
import { sentimentBackfillState } from './delivery/sentiment-backfill';
import { topicTaggingMetrics } from './delivery/topic-tagging';

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
  /** Writes text to the log's stream (stdout) after every log line so far, in one piece (writeAfterLog). */
  printAfterLog(text: string): void;
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

type Closer = { name: string; close: () => Promise<void> | void };

/** What start-up opened and shutdown closes, shared by the parts of `startServer`. */
interface ServerContext {
  config: Config;
  logger: Logger;
  db: Db;
  redis: RedisClient | undefined;
  /** DATABASE_READ_URL's replicas, polled from start to close (docs/operations.md, "Read replicas"). */
  replicas: ReadReplicas | undefined;
  /** Background work to stop on shutdown (RunningServer.addCloser). */
  closers: Closer[];
}

/**
 * Starts the service: opens the stores, builds the app, listens, starts the delivery worker, and wires the shutdown
 * (docs/operations.md, "Shutdown and drain").
 * @throws the listen error (e.g. EADDRINUSE) or a migration error, after releasing what was opened.
 */
export async function startServer(config: Config, opts: StartOptions = {}): Promise<RunningServer> {
  const c = await openStores(config, opts);
  const { db, logger } = c;
  const metrics = createMetrics({ db, logger });
  const addCloser = (name: string, close: () => Promise<void> | void) => {
    c.closers.push({ name, close });
  };
  metrics.setWebhookQueueDepthSource(() => queueDepth(db));
  metrics.setSentimentBackfillSource(() => sentimentBackfillState(db));
  metrics.setTopicTaggingSource(() => topicTaggingMetrics(db));

  const app = buildApp(config, { db, logger, redis: c.redis, metrics, replicas: c.replicas });
  const server = await listen(c, app);
  // Conditional GETs count only the marks since the last fold (docs/api-rules.md, "Conditional requests").
  const fold = startChangeFold(db, logger);
  addCloser('change fold', () => fold.stop());
  // The worker shares the process's knex instance: on PGlite it is the one connection (docs/webhooks.md, "Running the worker").
  if (opts.worker !== false) {
    const worker = await startWorker(c, metrics, opts.workerObserver);
    // Stops after its current attempt, while requests in flight drain.
    addCloser('webhook worker', () => worker.stop());
  }
  const { port } = server.address() as AddressInfo;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  logger.info({ url }, 'feedback-service listening');

  const drainMs = opts.drainMs ?? DRAIN_TIMEOUT_MS;
  const close = shutdown(c, app, server, drainMs);
  if (opts.handleSignals) closeOnSignals(logger, close, drainMs);
  const printAfterLog = (text: string) => writeAfterLog(logger, text);
  return { url, port, metrics, addCloser, close, printAfterLog };
}

/** The logger, the database (migrated when embedded or asked) and Redis when configured. */
async function openStores(config: Config, opts: StartOptions): Promise<ServerContext> {
  const logger = createLogger(config.logLevel);
  logTracingState(logger);
  if (config.publicUrlGuessed) {
    logger.warn(
      { host: config.host, publicUrl: config.publicUrl },
      'HOST is a wildcard address and PUBLIC_URL is unset: links are built on localhost; set PUBLIC_URL to the address users reach',
    );
  }
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
  let replicas: ReadReplicas | undefined;
  if (config.databaseReadUrls.length > 0) {
    replicas = createReadReplicas({ primary: db, urls: config.databaseReadUrls, maxLagMs: config.databaseReadMaxLagMs, logger });
    // The first poll: a replica that does not answer starts as down (reads on the primary), never fails the start.
    await replicas.start();
    logger.info({ replicas: replicas.status() }, 'read replicas');
  }
  return { config, logger, db, redis, replicas, closers: [] };
}

/** Listens on config.host:config.port; on failure releases the stores and rethrows. */
async function listen(c: ServerContext, app: Express): Promise<Server> {
  const { config, logger, db, redis, closers } = c;
  const server = createHttpServer(app, logger, config).listen(config.port, config.host);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('listening', resolve);
      server.once('error', reject);
    });
  } catch (err) {
    // e.g. EADDRINUSE: release what was opened, so the process can exit 1 instead of hanging.
    await Promise.all([...closers.map(async (closer) => closer.close()), db.destroy(), c.replicas?.stop()]).catch(() => undefined);
    redis?.disconnect();
    throw err;
  }
  return server;
}

/** The webhook delivery worker, started; its outcomes are counted in the metrics and passed to `observer`. */
async function startWorker(c: ServerContext, metrics: Metrics, observer: WorkerObserver | undefined): Promise<DeliveryWorker> {
  const { db, config, logger } = c;
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
  return worker;
}

/**
 * The server's `close()`: stop accepting connections, let requests in flight finish (up to `drainMs`, then close
 * their sockets) while background work stops, write the last usage counts, close the pools. Called twice, it
 * returns the same promise.
 */
function shutdown(c: ServerContext, app: Express, server: Server, drainMs: number): () => Promise<void> {
  const { logger, db, redis, closers } = c;
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
      // Live streams never finish by themselves: end them with a `retry:` hint (docs/live.md, "Stream").
      await endAppStreams(app).catch((err: unknown) => logger.warn({ err }, 'could not end the live streams'));
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
      // Requests have drained: the usage counter writes its last counts before the pools close (docs/analytics.md, "Migration insight").
      await stopAppBackground(app).catch((err: unknown) => logger.warn({ err }, 'could not write the last usage counts'));
      // And the audit seals the last writes started (docs/security.md, "The audit trail"; the worker's sweep otherwise).
      await settleFollowUps(db);
      await Promise.all([db.destroy(), c.replicas?.stop()]);
      if (redis) await redis.quit().catch(() => redis.disconnect());
    })());
  return close;
}

/** SIGINT/SIGTERM close the server and exit 0 (1 if closing failed); a second signal exits 1 at once. */
function closeOnSignals(logger: Logger, close: () => Promise<void>, drainMs: number): void {
  let signalled = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (signalled) {
      logger.warn({ signal }, 'second signal: exiting at once');
      process.exit(1);
    }
    signalled = true;
    logger.info({ signal, drainMs }, 'shutting down: no new connections, finishing requests in flight');
    // The spans of the last requests are exported before the process ends (nothing to do with traces off).
    close().then(
      async () => {
        logger.info('shut down cleanly');
        await stopTracing();
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
