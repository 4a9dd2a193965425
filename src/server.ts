/**
 * Listening server: opens the database (migrating when embedded or asked), connects Redis when
 * configured, builds the app, listens, and shuts down gracefully on SIGINT/SIGTERM.
 */
import type { AddressInfo } from 'node:net';
import { buildApp } from './app';
import type { Config } from './config';
import { createDb, isEmbedded, migrateLatest } from './platform/db/connection';
import { createHttpServer } from './platform/http-server';
import { createLogger } from './platform/logger';
import { createRedis } from './platform/redis';

export interface RunningServer {
  /** Base URL, e.g. `http://127.0.0.1:3000`. */
  url: string;
  port: number;
  /** Stops accepting connections, drains, closes the database and Redis. */
  close(): Promise<void>;
}

export interface StartOptions {
  /** Apply pending migrations before listening (always done on the embedded database). */
  migrate?: boolean;
  /** Install SIGINT/SIGTERM handlers that close the server (the CLI does; tests do not). */
  handleSignals?: boolean;
}

export async function startServer(config: Config, opts: StartOptions = {}): Promise<RunningServer> {
  const logger = createLogger(config.logLevel);
  const db = createDb(config);
  if (opts.migrate || isEmbedded(db)) {
    const applied = await migrateLatest(db);
    if (applied.length > 0) logger.info({ applied }, 'migrations applied');
  }
  if (isEmbedded(db)) logger.info({ dataDir: config.dataDir }, 'using the embedded PostgreSQL (PGlite); set DATABASE_URL for a server');
  const redis = config.redisUrl ? createRedis(config.redisUrl, logger) : undefined;
  if (!redis) logger.warn('REDIS_URL is not set: rate limits and idempotency keys are kept in-process (run one instance only)');

  const app = buildApp(config, { db, logger, redis });
  const server = createHttpServer(app, logger).listen(config.port, config.host);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  logger.info({ url }, 'feedback-service listening');

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await closed;
      await db.destroy();
      redis?.disconnect();
    })());
  if (opts.handleSignals) {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.once(signal, () => {
        logger.info({ signal }, 'shutting down');
        void close().then(() => process.exit(0));
      });
    }
  }
  return { url, port, close };
}
