/**
 * buildApp(config, deps): the Express app without listen (server and tests share it).
 * Pipeline (STYLE section 3, CONTRACT section 3 order of checks):
 * requestId → log → provisional style → json() → [public docs] → apiKeyAuth (+ rate limit) →
 * workspaceAccess → scope → style selection → body errors → openapi validator → style routers →
 * notFound → errorHandler.
 */
import express, { type Express, type RequestHandler } from 'express';
import type Redis from 'ioredis';
import type { Config } from './config';
import { sharedResponsesRouter } from './adapters/shared-responses';
import { styleARouter } from './adapters/style-a/router';
import { styleAWritesRouter } from './adapters/style-a/writes.routes';
import { styleBRouter } from './adapters/style-b/router';
import { styleBWritesRouter } from './adapters/style-b/writes.routes';
import { scopeCheck, workspaceAccess } from './platform/access';
import { apiKeyAuth } from './platform/auth/api-key-auth';
import type { Db } from './platform/db/connection';
import { docsPage } from './platform/docs-page';
import { deferBodyErrors, errorHandler, notFound, reportBodyError } from './platform/error-handler';
import { httpLog } from './platform/http-log';
import { idempotency } from './platform/idempotency';
import type { Logger } from './platform/logger';
import { loadOpenApiDocument, openApiValidator } from './platform/openapi';
import { operationIndex } from './platform/operations';
import { applyDecision, createRateLimiter, type RateLimiter } from './platform/rate-limit';
import { requestId } from './platform/request-id';
import { provisionalStyle, styleSelection } from './platform/style-selection';

export interface AppDeps {
  db: Db;
  logger: Logger;
  /** Shared Redis for rate limits and idempotency; undefined → in-process stores. */
  redis?: Redis | undefined;
  /** Overrides the limiter built from `redis` (tests). */
  limiter?: RateLimiter;
}

export function buildApp(config: Config, deps: AppDeps): Express {
  const { db, logger } = deps;
  const limiter = deps.limiter ?? createRateLimiter({ redis: deps.redis, logger });
  const doc = loadOpenApiDocument();
  const app = express();
  app.set('etag', false);
  app.set('query parser', 'simple');
  app.disable('x-powered-by');

  app.use(requestId());
  app.use(httpLog(logger));
  app.use(provisionalStyle());
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
  app.use('/docs', publicLimit, docsPage());

  app.use(apiKeyAuth({ db, limiter, logger, rateLimitPerMinute: config.rateLimitPerMinute, authFailuresPerMinute: config.authFailuresPerMinute }));
  app.use(workspaceAccess());
  // Scopes, 404 and 405 from the document's operations (x-required-scope), before validation.
  app.use(scopeCheck(operationIndex(doc)));
  app.use(styleSelection());
  app.use(reportBodyError());
  app.get('/api/v1/openapi', (_req, res) => {
    res.json(doc);
  });
  app.use(openApiValidator(doc, config.validateResponses));
  app.use(idempotency({ redis: deps.redis, logger }));

  const core = { db };
  app.use('/api/v1/workspaces', sharedResponsesRouter(core, 1));
  app.use('/api/v2/workspaces', sharedResponsesRouter(core, 2));
  app.use('/api/v1/workspaces', styleARouter(core));
  app.use('/api/v1/workspaces', styleBRouter(core));
  app.use('/api/v1/workspaces', styleAWritesRouter(core));
  app.use('/api/v1/workspaces', styleBWritesRouter(core));

  app.use(notFound());
  app.use(errorHandler(logger, { exposeInternals: config.validateResponses }));
  return app;
}
