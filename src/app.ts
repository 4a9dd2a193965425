/**
 * buildApp(config, deps): the Express app without listen (server and tests share it).
 * Pipeline, in the order it is wired below (docs/api-rules.md, "Order of checks"). Steps talk through the typed request
 * context (`req.context`, platform/request-context.ts), each filling its part once; what must happen as an answer is
 * written goes through the one hook of platform/answer-hooks.ts (`X-API-Style` and Style B's deprecation headers on
 * every answer, idempotency's stored answer and read routing's write position before a write's answer ends).
 * 1. requestContext (request id, the openapi/ path matched; once the answer is done: the log line, the usage count and
 *    the metrics of httpLog, the usage counter and the metrics, onAnswerDone) → securityHeaders →
 *    refuseKeyInQuery (an API key in the query string of an `/api/` path: 400);
 * 2. no key, no budget: `GET /healthz`, `/readyz`, `/metrics`, `/favicon.ico`;
 * 3. express.json() → deferBodyErrors (a body that does not parse is held back, reported at step 8);
 * 4. public docs, limited per address: `GET /openapi.json`, `/docs/migrating`, `/docs`;
 * 5. public JSON submissions (`POST` PUBLIC_SUBMISSIONS_PATH, no key): submission budget → body checks (reportBodyError,
 *    as in step 8) → openapi validator → idempotency scoped to address + form → handler;
 * 6. hosted pages and the open pixel (`/f/…`, `/e/…`, no key, HTML answers: pagesRouter); dashboard pages (`/d/…`: dashboardRouter);
 *    the MCP endpoint (`POST /mcp`, src/mcp/http.ts: its own key check, X-API-Key or Bearer; each tool call runs as a
 *    request through this app, steps 1 to 10);
 * 7. apiKeyAuth (the key, then decideStyle: the style from the path's x-style, header, parameters and the key's default;
 *    then the key's rate limit) → workspaceAccess → scopeCheck (scopes, 404, 405 from openapi/) → reportStyleError (its 400);
 * 8. body checks (reportBodyError: parse errors, depth, lone surrogates, NUL in the path) → `GET /api/v1/openapi` →
 *    openapi validator → idempotency (`Idempotency-Key` on POST, PATCH, DELETE);
 * 9. conditionalGet (a conditional GET's `ETag`, its 304 without the handler, the key budget a 304 leaves uncounted:
 *    platform/conditional.ts), then the routers: the selector for the shared paths (responses v1 and v2, dashboard links), Style A, analytics, Style B,
 *    Style A writes, Style B writes, email events, links, webhooks; with read replicas, built once per database and
 *    picked per request by readRouting (GET on a replica, the rest on the primary: docs/operations.md, "Read replicas");
 * 10. notFound → errorHandler.
 */
import express, { type Express, type NextFunction, type Request, type RequestHandler, type Response, type Router } from 'express';
import type { RedisClient } from './platform/redis';
import { trustProxyValue, type Config } from './config';
import { styleBSchedule } from './core/migration/report';
import { serverSecret } from './core/links/server-secrets.store';
import type { Resolve } from './core/webhooks/address-policy';
import { sharedResponsesRouter } from './adapters/shared-responses';
import { analyticsRouter } from './adapters/style-a/analytics.routes';
import { PUBLIC_SUBMISSIONS_PATH, publicSubmissionCreate, submissionFormId } from './adapters/style-a/public-submissions';
import { emailEventsWriteRouter } from './adapters/style-a/email-events.routes';
import { styleARouter } from './adapters/style-a/router';
import { styleAWritesRouter } from './adapters/style-a/writes.routes';
import { linksRouter } from './adapters/style-a/links.routes';
import { styleBRouter } from './adapters/style-b/router';
import { styleBWritesRouter } from './adapters/style-b/writes.routes';
import { webhooksRouter } from './adapters/style-a/webhooks.routes';
import { translateRouter } from './adapters/translate.routes';
import { scopeCheck, workspaceAccess } from './platform/access';
import { apiKeyAuth, keyAuthenticator, refuseKeyInQuery } from './platform/auth/api-key-auth';
import { MCP_PATH, mcpRouter } from './mcp/http';
import { createApiKeyCache } from './platform/auth/key-cache';
import type { Db } from './db/connection';
import { installAnswerHooks, onAnswerDone } from './platform/answer-hooks';
import { deprecationHeaders } from './platform/deprecation';
import { docsPage } from './pages/docs-page';
import { FAVICON_PATH, favicon } from './platform/favicon';
import { deferBodyErrors, errorHandler, notFound, reportBodyError } from './platform/error-handler';
import { httpLog } from './platform/http-log';
import { idempotency, memoryIdempotencyStore, personIdempotencyRecords, redisIdempotencyStore, type IdempotencyStore } from './platform/idempotency';
import { inOrder } from './platform/in-order';
import { conditionalGet } from './platform/conditional';
import type { Logger } from './platform/logger';
import { migrationGuidePage } from './pages/migration-guide-page';
import { createMetrics, type Metrics } from './platform/metrics';
import { setSentimentEnabled } from './core/responses/sentiment';
import { loadOpenApiDocument, openApiValidator } from './platform/openapi';
import { healthz, readyz } from './platform/probes';
import { operationIndex, type PathStyle } from './platform/operations';
import { consumePublicBudget, consumeSubmissionBudget, createRateLimiter, type RateLimiter } from './platform/rate-limit';
import type { ReadReplicas } from './db/replicas';
import { readRouting } from './platform/read-routing';
import { requestContext } from './platform/request-context';
import { securityHeaders } from './platform/security-headers';
import { resolveHost } from './platform/resolve-host';
import { reportStyleError, styleHeaders } from './platform/style-selection';
import { createUsageCounter, type UsageCounter } from './platform/usage-counter';
import { pagesRouter } from './pages/pages.router';
import type { CoreDeps } from './adapters/deps';
import { createExportSlots } from './platform/export-slots';
import { createLiveStreams, type LiveStreams } from './platform/live-streams';
import { presentersByStyle } from './adapters/presenters';
import { dashboardRouter } from './pages/dashboard.router';

export interface AppDeps {
  db: Db;
  logger: Logger;
  /** Shared Redis for rate limits and idempotency; undefined → in-process stores. */
  redis?: RedisClient | undefined;
  /** Overrides the limiter built from `redis` (tests). */
  limiter?: RateLimiter;
  /** Overrides the per-key usage counter (docs/analytics.md, "Migration insight"); stopped by stopAppBackground. */
  usage?: UsageCounter;
  /** Overrides how long a looked-up key is trusted, ms (tests; default KEY_CACHE_TTL_MS). */
  keyCacheTtlMs?: number;
  /** Overrides host resolution of webhook URLs (tests). */
  resolveHost?: Resolve;
  /** Metrics of this app (the server passes its own to wire background work); built when absent. */
  metrics?: Metrics;
  /**
   * Read replicas (DATABASE_READ_URL), started by the caller: GET requests of the API read there
   * (platform/read-routing.ts; docs/operations.md, "Read replicas"). Absent: every request on `db`.
   */
  replicas?: ReadReplicas;
}

/**
 * Stops the app's background work: writes the last usage counts (docs/analytics.md, "Migration insight") and stops the key
 * cache's change notices. Whoever closes an app calls it after requests have drained, before the pools close.
 */
export async function stopAppBackground(app: Express): Promise<void> {
  await (app.locals.stopBackground as (() => Promise<void>) | undefined)?.();
}

/**
 * Ends the app's live streams with a `retry:` hint and refuses new ones (docs/live.md, "Stream"): the first step of a
 * graceful shutdown, so the streams do not hold the drain until its timeout.
 */
export async function endAppStreams(app: Express): Promise<void> {
  await (app.locals.live as LiveStreams | undefined)?.close();
}

export function buildApp(config: Config, deps: AppDeps): Express {
  const { db, logger } = deps;
  const limiter = deps.limiter ?? createRateLimiter({ redis: deps.redis, logger });
  const doc = loadOpenApiDocument();
  const operations = operationIndex(doc);
  const metrics = deps.metrics ?? createMetrics({ db, logger });
  metrics.countRefusals(limiter);
  // Process-wide (src/core/responses/sentiment.ts): the write paths score text answers unless SENTIMENT=off.
  setSentimentEnabled(config.sentimentEnabled);
  const app = express();
  app.set('etag', false);
  app.set('query parser', 'simple');
  app.disable('x-powered-by');
  // TRUST_PROXY (docs/collecting.md, "Public JSON"): unset, req.ip is the socket's address and X-Forwarded-For is ignored.
  if (config.trustProxy !== undefined) app.set('trust proxy', trustProxyValue(config.trustProxy));
  const validator = openApiValidator(doc, config.validateResponses);

  // `X-API-Style` and Style B's deprecation headers as each head is written; idempotency and read routing use beforeEnd.
  installAnswerHooks(app, styleHeaders(deprecationHeaders(config)));
  // Once an answer is done: its log line, its usage count, its metrics (one pair of listeners per request).
  httpLog(app, logger);
  const usage = deps.usage ?? createUsageCounter({ db, logger, onCount: (style, operation) => metrics.requestByStyle(style, operation) });
  onAnswerDone(app, usage.answerDone);
  app.locals.metrics = metrics;
  onAnswerDone(app, metrics.answerDone);
  // An API key in the query string is refused before anything else reads the request (docs/api-rules.md, "Order of checks").
  app.use(inOrder(requestContext(app, operations), securityHeaders(), refuseKeyInQuery()));
  // Probes and metrics (docs/operations.md, "Probes", "Metrics"): no key, outside the rate limits and the missing-key budget.
  app.get('/healthz', healthz());
  app.get('/readyz', readyz({ db, redis: deps.redis, replicas: deps.replicas }));
  app.get('/metrics', metrics.handler(config.metricsEnabled));
  // The icon every page's browser asks for: likewise no key and no budget (no 401 in the page's console).
  app.get(FAVICON_PATH, favicon());
  app.use(express.json({ limit: config.bodyLimitBytes, type: ['application/json', 'application/*+json'] }));
  app.use(deferBodyErrors());

  // Public description for documentation tools (docs/api-rules.md, "Keys and access"), limited per address.
  const publicLimit: RequestHandler = async (req, res, next) => {
    await consumePublicBudget(limiter, res, req.ip, config.authFailuresPerMinute);
    next();
  };
  app.get('/openapi.json', publicLimit, (_req, res) => {
    res.json(doc);
  });
  app.get('/docs/migrating', publicLimit, migrationGuidePage());
  app.use('/docs', publicLimit, docsPage());
  const keys = createApiKeyCache({ db, logger, ttlMs: deps.keyCacheTtlMs });
  // One set of export slots per app: both styles' exports and the dashboard downloads share its caps.
  const exportSlots = createExportSlots({ perKey: config.exportsPerKey, max: config.exportsMax, stallTimeoutMs: config.exportStallTimeoutMs });
  const live = createLiveStreams({
    db,
    logger,
    limits: { perKey: config.streamsPerKey, heartbeatMs: config.streamHeartbeatMs, maxBufferBytes: config.streamBufferBytes, pollMs: config.streamPollMs },
  });
  app.locals.live = live;
  const sealKey = () => serverSecret(db, 'idempotency');
  // One idempotency store for the API and the public submissions (an erasure reads both: core.idempotencyRecords).
  const idempotencyStore = deps.redis ? redisIdempotencyStore(deps.redis) : memoryIdempotencyStore();
  const core = {
    db,
    primary: db,
    eventRetentionDays: config.eventRetentionDays,
    exportSlots,
    live,
    idempotencyRecords: personIdempotencyRecords({ store: idempotencyStore, sealKey }),
    keysChanged: keys.clear,
    publicUrl: config.publicUrl,
    rateLimitPerMinute: config.rateLimitPerMinute,
    responseDeleteInlineMax: config.responseDeleteInlineMax,
    styleB: styleBSchedule(config.styleBSunset, config.styleBDeprecatedAt),
    webhookUrls: { policy: { allowHttp: config.webhookAllowHttp, allowPrivate: config.webhookAllowPrivate }, resolve: deps.resolveHost ?? resolveHost },
  };
  mountPublicWays(app, config, deps, { core, limiter, validator, sealKey, idempotencyStore });

  const auth = { db, keys, limiter, logger, rateLimitPerMinute: config.rateLimitPerMinute, authFailuresPerMinute: config.authFailuresPerMinute };
  // The MCP endpoint for agents (docs/agents.md): its own key check (X-API-Key or Bearer); tool calls run through this app.
  app.use(MCP_PATH, mcpRouter({ app, authenticate: keyAuthenticator(auth), limiter, rateLimitPerMinute: config.rateLimitPerMinute }));
  // The style is decided as soon as the key is known (before its rate limit); its 400 waits for the access checks.
  app.use(apiKeyAuth(auth));
  // Workspace, then scopes, 404 and 405 from the document's operations (x-required-scope), then the style's and the
  // body's 400s: before validation.
  app.use(inOrder(workspaceAccess(), scopeCheck(), reportStyleError(), reportBodyError()));
  app.get('/api/v1/openapi', (_req, res) => {
    res.json(doc);
  });
  app.use(validator);
  app.use(idempotency({ store: idempotencyStore, logger, sealKey }));

  mountApi(app, config, deps, core, metrics);

  app.locals.stopBackground = async () => {
    await Promise.all([usage.stop(), keys.stop(), live.close()]);
  };
  app.use(notFound());
  app.use(errorHandler(logger, { exposeInternals: config.validateResponses, doc }));
  return app;
}

/** What buildApp hands to the ways in without a key. */
interface PublicWaysDeps {
  core: CoreDeps;
  limiter: RateLimiter;
  validator: ReturnType<typeof openApiValidator>;
  sealKey: () => Promise<Buffer>;
  idempotencyStore: IdempotencyStore;
}

/**
 * Mounts the ways in without a key, before authentication (docs/api-rules.md, "Order of checks"): the public JSON
 * submissions (docs/collecting.md, "Public JSON"), the hosted form pages and email-link endpoints, and the dashboard
 * pages of shared links (docs/analytics.md, "Dashboard links").
 */
function mountPublicWays(app: Express, config: Config, deps: AppDeps, { core, limiter, validator, sealKey, idempotencyStore }: PublicWaysDeps): void {
  const { db, logger } = deps;
  const { exportSlots } = core;
  // Public JSON submissions (docs/collecting.md, "Public JSON"): no key. The submission budget per client address and
  // form (shared with page POSTs) → body checks → validation → Idempotency-Key scoped to address + form.
  // Before routing: a path the router cannot decode still counts, and its 400 carries the X-RateLimit-* headers.
  // Every other request passes at once, with no promise made.
  const submissionBudget: RequestHandler = (req, res, next) => {
    const formId = submissionFormId(req);
    if (formId === undefined) return next();
    return consumeSubmissionBudget(limiter, res, req.ip, formId, config.submissionsPerMinute).then(() => next());
  };
  const submissionIdempotency = idempotency({
    store: idempotencyStore,
    logger,
    sealKey,
    scope: (req) => JSON.stringify(['public-submission', req.ip ?? 'unknown', submissionFormId(req) ?? '']),
  });
  app.use(submissionBudget);
  app.post(PUBLIC_SUBMISSIONS_PATH, reportBodyError(), ...validator, submissionIdempotency, publicSubmissionCreate(core));
  // Hosted form pages and the open-tracking GIF (docs/collecting.md, "Hosted pages"; docs/collecting.md, "Email links"): no key, HTML answers.
  // Dashboard pages of shared links (docs/analytics.md, "Dashboard links"): likewise, on the public budget per address.
  const pages = pagesRouter({ db, logger, limiter, submissionsPerMinute: config.submissionsPerMinute });
  const dashboards = dashboardRouter({
    db,
    logger,
    limiter,
    publicPerMinute: config.authFailuresPerMinute,
    exportSlots,
    download: { present: (r) => presentersByStyle.A.response(r), createdColumn: 'created_at' },
  });
  // Every path of the two routers starts with a `/f`, `/e` or `/d` segment (any case, as Express matches): any other
  // request, every API request among them, passes one test instead of entering both routers and their nine layers.
  app.use(routersUnder(PAGE_PATH, pages, dashboards));
}

/** The first segment of a path of pagesRouter (`/f/…`, `/e/…`) or dashboardRouter (`/d/…`). */
const PAGE_PATH = /^\/[def](?:\/|$)/i;

/**
 * One step that runs `routers` in turn, as `app.use(...routers)` would, for a request whose path `paths` accepts, and
 * passes any other request on at once. Their layers stay readable as one router's `stack` (tests read the routes
 * from Express's router tree).
 */
function routersUnder(paths: RegExp, ...routers: Router[]): RequestHandler & { stack: Router['stack'] } {
  const run = (i: number, req: Request, res: Response, next: NextFunction): void => {
    const router = routers[i];
    if (!router) return next();
    router(req, res, (err?: unknown) => (err ? next(err) : run(i + 1, req, res, next)));
  };
  const step: RequestHandler = (req, res, next) => (paths.test(req.path) ? run(0, req, res, next) : next());
  return Object.assign(step, { stack: routers.flatMap((r) => r.stack) });
}

/**
 * `router`, entered only by a request whose method one of its routes answers (HEAD where it answers GET; OPTIONS always,
 * for Express's automatic answer): a row upsert passes the GET-only routers with one test instead of matching its path
 * against each of their layers. A router with a middleware layer (`router.use`) is entered by every method. Its layers
 * stay readable as `stack` (tests read the routes from Express's router tree).
 */
function forItsMethods(router: Router): RequestHandler & { stack: Router['stack'] } {
  const methods = new Set(['OPTIONS']);
  let every = false;
  for (const layer of router.stack as Array<{ route?: { methods: Record<string, boolean> } }>) {
    if (!layer.route) every = true;
    for (const m of Object.keys(layer.route?.methods ?? {}))
      if (m === '_all') every = true;
      else methods.add(m.toUpperCase());
  }
  if (methods.has('GET')) methods.add('HEAD');
  const step: RequestHandler = every ? router : (req, res, next) => (methods.has(req.method) ? router(req, res, next) : next());
  return Object.assign(step, { stack: router.stack });
}

/**
 * A router of step 9: where it is mounted and the style of every path it serves, which must be the path's `x-style` in
 * openapi/ (tests/unit/x-style.test.ts checks them against each other; style-selection.ts reads only the document).
 */
export interface ApiRouter {
  mount: string;
  style: PathStyle;
  router: Router;
}

/** Step 9's routers on one database, in the order they are mounted. */
export function apiRouterTable(core: CoreDeps, publicUrl: string): ApiRouter[] {
  const ws = '/api/v1/workspaces';
  return [
    { mount: ws, style: 'shared', router: sharedResponsesRouter(core, 1) },
    { mount: '/api/v2/workspaces', style: 'shared', router: sharedResponsesRouter(core, 2) },
    { mount: ws, style: 'A', router: styleARouter(core) },
    { mount: ws, style: 'A', router: analyticsRouter(core) },
    { mount: ws, style: 'B', router: styleBRouter(core) },
    { mount: ws, style: 'A', router: styleAWritesRouter(core) },
    { mount: ws, style: 'B', router: styleBWritesRouter(core) },
    { mount: ws, style: 'A', router: emailEventsWriteRouter(core) },
    { mount: ws, style: 'A', router: linksRouter(core, publicUrl) },
    { mount: ws, style: 'A', router: webhooksRouter(core) },
    { mount: '/api/v1', style: 'none', router: translateRouter() },
  ];
}

/** Step 9, the API routers, all on `core.db`. */
function apiRouters(core: CoreDeps, publicUrl: string): Router {
  const r = express.Router();
  r.use(conditionalGet(core.db));
  for (const { mount, router } of apiRouterTable(core, publicUrl)) r.use(mount, forItsMethods(router));
  return r;
}

/**
 * Mounts step 9: the routers on the primary, or with read replicas one set per database, picked per request
 * by readRouting (docs/operations.md, "Read replicas").
 */
function mountApi(app: Express, config: Config, deps: AppDeps, core: CoreDeps, metrics: Metrics): void {
  const { replicas } = deps;
  if (!replicas) {
    // On the app itself: a request enters only the routers it reaches, not a router of routers first.
    app.use(conditionalGet(core.db));
    for (const { mount, router } of apiRouterTable(core, config.publicUrl)) app.use(mount, forItsMethods(router));
    return;
  }
  metrics.setReplicaSource(() => replicas.status());
  app.use(
    readRouting({
      primary: deps.db,
      replicas,
      build: (db) => apiRouters({ ...core, db }, config.publicUrl),
      redis: deps.redis,
      logger: deps.logger,
      maxLagMs: config.databaseReadMaxLagMs,
      onRead: (target) => metrics.dbRead(target),
    }),
  );
}
