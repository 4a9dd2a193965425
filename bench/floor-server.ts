/**
 * The stack floor of `npm run bench`: a server built from exactly the packages the service runs on its hot path,
 * wired the way the service wires them, and nothing of the service's own: the fastest the app could be without
 * leaving its stack. One pipeline per request, in the app's order (docs/api-rules.md, "Order of checks"):
 *
 * 1. a request id (`req_…`, `X-Request-Id`) and one pino line per finished request at `info` (`request_id`,
 *    method, URL, status, ms; like platform/http-log.ts, without its URL redaction) on stdout, written
 *    asynchronously: the bench's child process sends stdout to /dev/null, as it does the app's log;
 * 2. Express 5 with `express.json()` (1 MiB), ETags off, the simple query parser, as src/app.ts sets them;
 * 3. the API key: ONE PostgreSQL query per request, the bare server's KEY_SQL (bench/bare-server.ts: the SHA-256 of
 *    `X-API-Key` names a key that is not revoked, not expired and has the path's workspace), else 401
 *    `invalid_api_key`. The app keeps looked-up keys in a cache instead (platform/auth/key-cache.ts), so here the
 *    floor pays a round trip the app does not;
 * 4. the rate limit: rate-limiter-flexible's RateLimiterRedis on an ioredis client with the app's options (no auto
 *    pipelining, no offline queue, 500 ms command timeout), an in-process insurance limiter, one point consumed per
 *    request keyed by the key's hash, a budget of FLOOR_POINTS per 60 s, `X-RateLimit-Limit/-Remaining/-Reset`
 *    and the IETF draft's `RateLimit-Policy` and `RateLimit` on the answer, 429 past the budget (platform/rate-limit.ts);
 * 5. express-openapi-validator on the `openapi/` document, loaded and wired by platform/openapi.ts itself
 *    (openApiValidator: requests validated, responses not, as in production);
 * 6. knex + pg (pool of 10, the request timeouts of `serve`: src/db/connection.ts createDb) running the core's own
 *    store functions, so the SQL is the app's:
 *    - `GET /api/v1/workspaces/{ws}/responses` (Style A list): listResponsesKeyset with the Style A filters
 *      (style-a/responses.routes.ts responsesFilterA) and `limit`/`cursor`, answered 200 in the Style A envelope
 *      `{data: [response], meta: {limit, has_more}, links: {self, next, prev}, request_id}` (adapters/envelope.ts);
 *    - `POST /api/v1/workspaces/{ws}/datatables/{id}/rows` (Style A upsert): prepareRowUpsert then writeRowUpsert
 *      (the field/endpoint query and the INSERT … ON CONFLICT, in a transaction only when the core asks for one),
 *      answered 201 when every row was created, else 200, `{data: row | [row], meta: {}, links: {}, request_id}`.
 *
 * Left out, all of it the service's own work: the key cache, workspace and scope checks from openapi/, style
 * selection, deprecation headers, security headers, metrics, usage counts, read routing, idempotency, request
 * timeouts, the webhook worker. Errors: the status of the validator's or the core's error (`{error: {code, message,
 * status}, request_id}`), 404 for another path, 500 with the error's message (a bench tool, not a service).
 */
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import express, { type ErrorRequestHandler, type Request, type RequestHandler, type Response } from 'express';
import Redis from 'ioredis';
import pino from 'pino';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { urlWith } from '../src/adapters/envelope';
import { str } from '../src/adapters/query-values';
import { keysetParams } from '../src/adapters/style-a/params';
import { presentResponseA, presentRowA } from '../src/adapters/style-a/present';
import { responsesFilterA } from '../src/adapters/style-a/responses.routes';
import { API_KEY_PREFIX, hashApiKeySecret } from '../src/core/api-keys/secrets';
import { prepareRowUpsert, writeRowUpsert } from '../src/core/datatables/datatables.store';
import { listResponsesKeyset } from '../src/core/responses/responses.store';
import { withTransaction } from '../src/db';
import { createDb } from '../src/db/connection';
import { loadOpenApiDocument, openApiValidator } from '../src/platform/openapi';
import { newRequestId } from '../src/platform/request-id';
import type { RowsUpsertRequestA } from '../src/wire/types.gen';
import { KEY_SQL } from './bare-server';

export interface FloorServer {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  close(): Promise<void>;
}

/** Requests per key per 60 s window: the bench key's own limit (bench/seed.ts), far above what 2 cores send. */
const FLOOR_POINTS = 10_000_000;
/** The `RateLimit-Policy` of the budget, made once (platform/rate-limit.ts makes it once per budget). */
const FLOOR_POLICY = `"key";q=${FLOOR_POINTS};w=60`;
const WINDOW_SECONDS = 60;
/** The bare server's key check with knex's placeholders (`?` for `$n`). */
const KEY_SQL_KNEX = KEY_SQL.replace(/\$\d+/g, '?');
const WORKSPACE_PATH = /^\/api\/v1\/workspaces\/([^/]+)\//;

class FloorError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The request id of `res`'s request (set by the first step). */
const requestIdOf = (res: Response) => res.locals.requestId as string;

/**
 * Starts the stack floor on a free port of 127.0.0.1.
 * @param databaseUrl a migrated feedback-service database
 * @param redisUrl one Redis server, e.g. `redis://127.0.0.1:6379` (its counters use the prefix `fs-floor:rl:key`)
 * @throws when Redis is not ready within ioredis's 2 s connect timeout, or the database refuses the first query
 */
export async function startFloorServer(databaseUrl: string, redisUrl: string): Promise<FloorServer> {
  const logger = pino({ level: 'info', base: { service: 'feedback-service-floor' } }, pino.destination({ dest: 1, sync: false }));
  const db = createDb({ databaseUrl, dataDir: '.data', poolMax: 10, requestTimeouts: true });
  const redis = new Redis(redisUrl, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    commandTimeout: 500,
    enableAutoPipelining: false,
  });
  await new Promise<void>((resolve, reject) => {
    redis.once('ready', resolve);
    redis.once('error', reject);
  });
  await db.raw('select 1');
  const limiter = new RateLimiterRedis({
    storeClient: redis,
    points: FLOOR_POINTS,
    duration: WINDOW_SECONDS,
    keyPrefix: 'fs-floor:rl:key',
    rejectIfRedisNotReady: true,
    insuranceLimiter: new RateLimiterMemory({ points: FLOOR_POINTS, duration: WINDOW_SECONDS, keyPrefix: 'fs-floor:rl:key' }),
  });

  const requestLog: RequestHandler = (req, res, next) => {
    const started = performance.now();
    const requestId = newRequestId();
    res.locals.requestId = requestId;
    res.setHeader('X-Request-Id', requestId);
    res.once('finish', () =>
      logger.info(
        {
          request_id: requestId,
          req: { method: req.method, url: req.originalUrl },
          res: { statusCode: res.statusCode },
          responseTime: Math.round(performance.now() - started),
        },
        'request completed',
      ),
    );
    next();
  };
  const keyAndLimit: RequestHandler = async (req, res, next) => {
    const ws = WORKSPACE_PATH.exec(req.path)?.[1];
    if (ws === undefined) throw new FloorError(404, 'not_found', 'no such route');
    const secret = req.headers['x-api-key'];
    if (typeof secret !== 'string' || !secret.startsWith(API_KEY_PREFIX)) throw new FloorError(401, 'invalid_api_key', 'missing or invalid API key');
    const hash = hashApiKeySecret(secret);
    const key = (await db.raw(KEY_SQL_KNEX, [hash, decodeURIComponent(ws)])) as { rowCount: number };
    if (key.rowCount === 0) throw new FloorError(401, 'invalid_api_key', 'missing or invalid API key');
    let r: RateLimiterRes;
    let refused = false;
    try {
      r = await limiter.consume(hash, 1);
    } catch (e) {
      if (!(e instanceof RateLimiterRes)) throw e;
      r = e;
      refused = true;
    }
    const msLeft = Math.max(0, r.msBeforeNext);
    const remaining = Math.max(0, r.remainingPoints);
    res.setHeader('X-RateLimit-Limit', String(FLOOR_POINTS));
    res.setHeader('X-RateLimit-Remaining', String(remaining));
    res.setHeader('X-RateLimit-Reset', String(Math.ceil((Date.now() + msLeft) / 1000)));
    res.setHeader('RateLimit-Policy', FLOOR_POLICY);
    res.setHeader('RateLimit', `"key";r=${remaining};t=${Math.ceil(msLeft / 1000)}`);
    if (refused) throw new FloorError(429, 'rate_limit_exceeded', 'rate limit exceeded');
    next();
  };
  const errorHandler: ErrorRequestHandler = (err: unknown, _req, res, _next) => {
    const e = err as { status?: unknown; code?: unknown; message?: unknown };
    const status = typeof e.status === 'number' && e.status >= 400 && e.status < 600 ? e.status : 500;
    // The core's AppError names its code; the validator's errors carry only a status (a 4xx of the request's shape).
    const code = status >= 500 ? 'internal_error' : typeof e.code === 'string' ? e.code : 'validation_error';
    res.status(status).json({ error: { code, message: String(e.message), status }, request_id: requestIdOf(res) });
  };

  const app = express();
  app.set('etag', false);
  app.set('query parser', 'simple');
  app.disable('x-powered-by');
  app.use(requestLog);
  app.use(express.json({ limit: 1024 * 1024, type: ['application/json', 'application/*+json'] }));
  app.use(keyAndLimit);
  app.use(openApiValidator(loadOpenApiDocument(), false));
  app.get('/api/v1/workspaces/:workspace_id/responses', async (req: Request, res: Response) => {
    const page = await listResponsesKeyset(db, String(req.params.workspace_id), {
      ...responsesFilterA(req, str(req, 'form_id')),
      pagination: keysetParams(req),
    });
    res.json({
      data: page.items.map((r) => presentResponseA(r)),
      meta: { limit: page.limit, has_more: page.nextCursor !== null },
      links: {
        self: urlWith(req, {}),
        next: page.nextCursor === null ? null : urlWith(req, { cursor: page.nextCursor }),
        prev: page.prevCursor === null ? null : urlWith(req, { cursor: page.prevCursor }),
      },
      request_id: requestIdOf(res),
    });
  });
  app.post('/api/v1/workspaces/:workspace_id/datatables/:datatable_id/rows', async (req: Request, res: Response) => {
    const { data } = req.body as RowsUpsertRequestA;
    const many = Array.isArray(data);
    const upsert = await prepareRowUpsert(db, String(req.params.workspace_id), String(req.params.datatable_id), many ? data : [data], {
      single: !many,
      maxItems: 100,
    });
    const rows = await withTransaction(db, (trx) => writeRowUpsert(trx, upsert));
    res.status(rows.every((row) => row.created) ? 201 : 200);
    res.json({ data: many ? rows.map(presentRowA) : presentRowA(rows[0]!), meta: {}, links: {}, request_id: requestIdOf(res) });
  });
  app.use(() => {
    throw new FloorError(404, 'not_found', 'no such route');
  });
  app.use(errorHandler);

  const server = app.listen(0, '127.0.0.1');
  server.keepAliveTimeout = 65_000;
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
      await Promise.all([db.destroy(), redis.quit()]);
      logger.flush();
    },
  };
}
