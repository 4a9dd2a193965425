/**
 * Child process of bench/run.ts: starts one server (the app built by buildApp, or the bare baseline)
 * and reports its URL over IPC, so the load generator (autocannon, in the parent) never shares an
 * event loop with the server it measures.
 *
 *   BENCH_DATABASE_URL, BENCH_REDIS_URL, BENCH_LOG ('info' to /dev/null, or 'silent')
 *   argv[2]: 'app' | 'bare'
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import pino from 'pino';
import { buildApp, stopAppBackground } from '../src/app';
import { loadConfig } from '../src/config';
import { createDb } from '../src/platform/db/connection';
import { createRedis } from '../src/platform/redis';
import { startBareServer } from './bare-server';

export type ServeMessage = { url: string } | { error: string };

async function startApp(databaseUrl: string, redisUrl: string, logLevel: string): Promise<{ url: string; close(): Promise<void> }> {
  // The service's logger settings, written to /dev/null so the cost of logging is measured
  // without mixing log lines into the report.
  const logger = pino(
    {
      level: logLevel,
      base: { service: 'feedback-service' },
      redact: {
        paths: ['req.headers["x-api-key"]', 'req.headers.authorization', 'req.headers.cookie', 'secret', '*.secret'],
        censor: '[redacted]',
      },
    },
    pino.destination({ dest: '/dev/null', sync: false }),
  );
  const config = loadConfig({ databaseUrl, redisUrl, logLevel, port: 0, host: '127.0.0.1' }, {});
  const db = createDb(config);
  const redis = createRedis(redisUrl, logger);
  const app = buildApp(config, { db, logger, redis });
  const server: Server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await stopAppBackground(app);
      await db.destroy();
      redis.disconnect();
    },
  };
}

async function main(): Promise<void> {
  const mode = process.argv[2];
  const databaseUrl = process.env.BENCH_DATABASE_URL ?? '';
  const redisUrl = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
  const logLevel = process.env.BENCH_LOG ?? 'info';
  const s = mode === 'bare' ? await startBareServer(databaseUrl) : await startApp(databaseUrl, redisUrl, logLevel);
  process.on('message', (m) => {
    if (m === 'close') void s.close().then(() => process.exit(0));
  });
  process.send?.({ url: s.url } satisfies ServeMessage);
}

main().catch((e: unknown) => {
  process.send?.({ error: e instanceof Error ? (e.stack ?? e.message) : String(e) } satisfies ServeMessage);
  process.exit(1);
});
