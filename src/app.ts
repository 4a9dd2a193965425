/**
 * buildApp(config, deps): the Express app without listen (server and tests share it).
 * Pipeline (STYLE section 3, CONTRACT section 3 order of checks):
 * requestId → log → provisional style → metrics → [probes, /metrics] → json() → [public docs] → apiKeyAuth (+ rate limit) →
 * workspaceAccess → scope → style selection → body errors → openapi validator → style routers →
 * notFound → errorHandler.
 */
import express, { type Express, type RequestHandler } from 'express';
import type Redis from 'ioredis';
import { trustProxyValue, type Config } from './config';
import type { Resolve } from './core/webhooks/address-policy';
import { sharedResponsesRouter } from './adapters/shared-responses';
import { analyticsRouter } from './adapters/style-a/analytics.routes';
import { PUBLIC_SUBMISSIONS_PATH, publicSubmissionCreate, submissionFormId } from './adapters/public-submissions';
import { emailEventsWriteRouter } from './adapters/style-a/email-events.write';
import { styleARouter } from './adapters/style-a/router';
import { styleAWritesRouter } from './adapters/style-a/writes.routes';
import { linksRouter } from './adapters/style-a/links.routes';
import { styleBRouter } from './adapters/style-b/router';
import { styleBWritesRouter } from './adapters/style-b/writes.routes';
import { webhooksRouter } from './adapters/style-a/webhooks.routes';
import { scopeCheck, workspaceAccess } from './platform/access';
import { apiKeyAuth } from './platform/auth/api-key-auth';
import { createApiKeyCache } from './platform/auth/key-cache';
import type { Db } from './platform/db/connection';
import { deprecationHeaders, styleBDeprecation } from './platform/deprecation';
import { docsPage } from './platform/docs-page';
import { deferBodyErrors, errorHandler, notFound, reportBodyError } from './platform/error-handler';
import { httpLog } from './platform/http-log';
import { idempotency } from './platform/idempotency';
import type { Logger } from './platform/logger';
import { migrationGuidePage } from './platform/migration-guide-page';
import { createMetrics, type Metrics } from './platform/metrics';
import { loadOpenApiDocument, openApiValidator } from './platform/openapi';
import { healthz, readyz } from './platform/probes';
import { operationIndex } from './platform/operations';
import { applyDecision, consumeSubmissionBudget, createRateLimiter, type RateLimiter } from './platform/rate-limit';
import { requestId } from './platform/request-id';
import { resolveHost } from './platform/resolve-host';
import { provisionalStyle, styleSelection } from './platform/style-selection';
import { createUsageCounter, type UsageCounter } from './platform/usage-counter';
import { pagesRouter } from './pages/pages.router';

export interface AppDeps {
  db: Db;
  logger: Logger;
  /** Shared Redis for rate limits and idempotency; undefined → in-process stores. */
  redis?: Redis | undefined;
  /** Overrides the limiter built from `redis` (tests). */
  limiter?: RateLimiter;
  /** Overrides the per-key usage counter (CONTRACT section 15); stopped by stopAppBackground. */
  usage?: UsageCounter;
  /** Overrides host resolution of webhook URLs (tests). */
  resolveHost?: Resolve;
  /** Metrics of this app (the server passes its own to wire background work); built when absent. */
  metrics?: Metrics;
}

/**
 * Stops the app's background work: writes the last usage counts (CONTRACT section 15) and stops the key
 * cache's change notices. Whoever closes an app calls it after requests have drained, before the pools close.
 */
export async function stopAppBackground(app: Express): Promise<void> {
  await (app.locals.stopBackground as (() => Promise<void>) | undefined)?.();
}

export function buildApp(config: Config, deps: AppDeps): Express {
  const { db, logger } = deps;
  const limiter = deps.limiter ?? createRateLimiter({ redis: deps.redis, logger });
  const doc = loadOpenApiDocument();
  const operations = operationIndex(doc);
  const metrics = deps.metrics ?? createMetrics({ operations, db, logger });
  metrics.countRefusals(limiter);
  const app = express();
  app.set('etag', false);
  app.set('query parser', 'simple');
  app.disable('x-powered-by');
  // TRUST_PROXY (CONTRACT section 1): unset, req.ip is the socket's address and X-Forwarded-For is ignored.
  if (config.trustProxy !== undefined) app.set('trust proxy', trustProxyValue(config.trustProxy));
  const validator = openApiValidator(doc, config.validateResponses);

  app.use(requestId());
  app.use(httpLog(logger));
  app.use(provisionalStyle());
  app.use(styleBDeprecation(deprecationHeaders(config)));
  const usage = deps.usage ?? createUsageCounter({ db, logger });
  app.use(usage.middleware());
  app.locals.metrics = metrics;
  app.use(metrics.httpMiddleware());
  // Probes and metrics (CONTRACT section 14): no key, outside the rate limits and the missing-key budget.
  app.get('/healthz', healthz());
  app.get('/readyz', readyz({ db, redis: deps.redis }));
  app.get('/metrics', metrics.handler(config.metricsEnabled));
  app.use(express.json({ limit: config.bodyLimitBytes, type: ['application/json', 'application/*+json'] }));
  app.use(deferBodyErrors());

  // Public description for documentation tools (CONTRACT section 3), limited per address.
  const publicLimit: RequestHandler = async (req, res, next) => {
    applyDecision(res, await limiter.consume('address', `public:${req.ip ?? 'unknown'}`, config.authFailuresPerMinute));
    next();
  };
  app.get('/openapi.json', publicLimit, (_req, res) => {
    res.json(doc);
  });
  app.get('/docs/migrating', publicLimit, migrationGuidePage());
  app.use('/docs', publicLimit, docsPage());
  const keys = createApiKeyCache({ db, logger });
  const core = {
    db,
    keysChanged: keys.clear,
    publicUrl: config.publicUrl,
    webhookUrls: { policy: { allowHttp: config.webhookAllowHttp, allowPrivate: config.webhookAllowPrivate }, resolve: deps.resolveHost ?? resolveHost },
  };
  // Public JSON submissions (CONTRACT section 11): no key. The submission budget per client address and
  // form (shared with page POSTs) → body checks → validation → Idempotency-Key scoped to address + form.
  const submissionBudget: RequestHandler = async (req, res, next) => {
    await consumeSubmissionBudget(limiter, res, req.ip, submissionFormId(req), config.submissionsPerMinute);
    next();
  };
  const submissionIdempotency = idempotency({
    redis: deps.redis,
    logger,
    scope: (req) => JSON.stringify(['public-submission', req.ip ?? 'unknown', submissionFormId(req)]),
  });
  app.post(PUBLIC_SUBMISSIONS_PATH, submissionBudget, reportBodyError(), ...validator, submissionIdempotency, publicSubmissionCreate(core));
  // Hosted form pages and the open-tracking GIF (CONTRACT sections 11, 12): no key, HTML answers.
  app.use(pagesRouter({ db, logger, limiter, submissionsPerMinute: config.submissionsPerMinute }));

  app.use(apiKeyAuth({ db, keys, limiter, logger, rateLimitPerMinute: config.rateLimitPerMinute, authFailuresPerMinute: config.authFailuresPerMinute }));
  app.use(workspaceAccess());
  // Scopes, 404 and 405 from the document's operations (x-required-scope), before validation.
  app.use(scopeCheck(operations));
  app.use(styleSelection());
  app.use(reportBodyError());
  app.get('/api/v1/openapi', (_req, res) => {
    res.json(doc);
  });
  app.use(validator);
  app.use(idempotency({ redis: deps.redis, logger }));

  app.use('/api/v1/workspaces', sharedResponsesRouter(core, 1));
  app.use('/api/v2/workspaces', sharedResponsesRouter(core, 2));
  app.use('/api/v1/workspaces', styleARouter(core));
  app.use('/api/v1/workspaces', analyticsRouter(core));
  app.use('/api/v1/workspaces', styleBRouter(core));
  app.use('/api/v1/workspaces', styleAWritesRouter(core));
  app.use('/api/v1/workspaces', styleBWritesRouter(core));
  app.use('/api/v1/workspaces', emailEventsWriteRouter(core));
  app.use('/api/v1/workspaces', linksRouter(core, config.publicUrl));
  app.use('/api/v1/workspaces', webhooksRouter(core));

  app.locals.stopBackground = async () => {
    await Promise.all([usage.stop(), keys.stop()]);
  };
  app.use(notFound());
  app.use(errorHandler(logger, { exposeInternals: config.validateResponses }));
  return app;
}
