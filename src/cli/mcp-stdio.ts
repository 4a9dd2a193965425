/**
 * `feedback-service mcp` (docs/agents.md, "Over stdio"): the MCP server on stdin/stdout for a local agent, with the
 * key of FEEDBACK_API_KEY, on the database and Redis of `serve` (DATABASE_URL, REDIS_URL; the embedded database is
 * migrated first and locked for this process, as by `serve`). stdout carries the protocol only: the log goes to
 * stderr. Tool calls run as requests through the app built here, in process, so the key's rate limit (shared through
 * Redis with the instances of `serve`), validation and idempotency apply as over HTTP. The webhook worker does not run
 * here: events of writes made through it are delivered by `serve` or `worker`. Stops when stdin closes or on
 * SIGINT/SIGTERM: closes the server, the app's background work and the stores, then exits 0.
 */
import pino from 'pino';
import { buildApp, stopAppBackground } from '../app';
import type { Config } from '../config';
import { findApiKeyByHash, isKeyInactive } from '../core/api-keys/api-keys.store';
import { API_KEY_PREFIX, hashApiKeySecret } from '../core/api-keys/secrets';
import { createDb, isEmbedded, migrateLatest } from '../db/connection';
import { inProcessDispatch } from '../mcp/dispatch';
import { createLogger } from '../platform/logger';
import { createRedis } from '../platform/redis';

/** The environment variable `mcp` reads the key's secret from (never a command-line argument: `ps` shows those). */
export const MCP_KEY_VARIABLE = 'FEEDBACK_API_KEY';

/** Why `mcp` cannot start (printed as one line by the CLI, exit 1). */
export class McpStartError extends Error {}

/**
 * Starts the stdio MCP server for `secret`; resolves once it is connected. The process ends when stdin closes.
 * @throws McpStartError when the secret is missing or names no active key; the database's errors as `serve` has them.
 */
export async function runStdioMcp(config: Config, secret: string | undefined): Promise<void> {
  if (!secret) throw new McpStartError(`${MCP_KEY_VARIABLE} is not set: set it to the API key the agent acts as (docs/agents.md)`);
  const logger = createLogger(config.logLevel, pino.destination({ dest: 2, sync: false }));
  const db = createDb({ ...config, requestTimeouts: true }, logger);
  const redis = config.redisUrl ? createRedis(config.redisUrl, logger) : undefined;
  const closeStores = async () => {
    await db.destroy();
    redis?.disconnect();
  };
  try {
    if (isEmbedded(db)) await migrateLatest(db);
    const key = secret.startsWith(API_KEY_PREFIX) ? await findApiKeyByHash(db, hashApiKeySecret(secret)) : undefined;
    if (!key || isKeyInactive(key)) throw new McpStartError(`${MCP_KEY_VARIABLE} does not name an active API key`);
    // Loaded here, not with the CLI: the SDK takes about a second to load, which no other command should pay.
    const [{ createMcpServer }, { StdioServerTransport }] = await Promise.all([import('../mcp/server'), import('@modelcontextprotocol/sdk/server/stdio.js')]);
    const app = buildApp(config, { db, logger, redis });
    const server = createMcpServer({ key, secret, dispatch: inProcessDispatch(app, { remoteAddress: '127.0.0.1' }) });
    let closing: Promise<void> | undefined;
    const close = () =>
      (closing ??= (async () => {
        await server.close().catch(() => undefined);
        await stopAppBackground(app);
        await closeStores();
        // Exits once the log is written: a timer of a library must not keep a finished agent's server alive.
        logger.flush(() => process.exit(0));
      })());
    server.onclose = () => void close();
    process.stdin.once('end', () => void close());
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void close());
    await server.connect(new StdioServerTransport());
    logger.info({ keyId: key.id }, 'MCP server on stdio');
  } catch (err) {
    await closeStores();
    throw err;
  }
}
