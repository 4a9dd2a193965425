"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.stopAppBackground = stopAppBackground;
exports.buildApp = buildApp;
/**
 * buildApp(config, deps): the Express app without listen (server and tests share it).
 * Pipeline (STYLE section 3, CONTRACT section 3 order of checks):
 * requestId → log → provisional style → metrics → [probes, /metrics] → json() → [public docs] → apiKeyAuth (+ rate limit) →
 * workspaceAccess → scope → style selection → body errors → openapi validator → style routers →
 * notFound → errorHandler.
 */
const express_1 = __importDefault(require("express"));
const config_1 = require("./config");
const shared_responses_1 = require("./adapters/shared-responses");
const analytics_routes_1 = require("./adapters/style-a/analytics.routes");
const public_submissions_1 = require("./adapters/public-submissions");
const email_events_write_1 = require("./adapters/style-a/email-events.write");
const router_1 = require("./adapters/style-a/router");
const writes_routes_1 = require("./adapters/style-a/writes.routes");
const links_routes_1 = require("./adapters/style-a/links.routes");
const router_2 = require("./adapters/style-b/router");
const writes_routes_2 = require("./adapters/style-b/writes.routes");
const webhooks_routes_1 = require("./adapters/style-a/webhooks.routes");
const access_1 = require("./platform/access");
const api_key_auth_1 = require("./platform/auth/api-key-auth");
const key_cache_1 = require("./platform/auth/key-cache");
const deprecation_1 = require("./platform/deprecation");
const docs_page_1 = require("./platform/docs-page");
const error_handler_1 = require("./platform/error-handler");
const http_log_1 = require("./platform/http-log");
const idempotency_1 = require("./platform/idempotency");
const migration_guide_page_1 = require("./platform/migration-guide-page");
const metrics_1 = require("./platform/metrics");
const openapi_1 = require("./platform/openapi");
const probes_1 = require("./platform/probes");
const operations_1 = require("./platform/operations");
const rate_limit_1 = require("./platform/rate-limit");
const request_id_1 = require("./platform/request-id");
const resolve_host_1 = require("./platform/resolve-host");
const style_selection_1 = require("./platform/style-selection");
const usage_counter_1 = require("./platform/usage-counter");
const pages_router_1 = require("./pages/pages.router");
/**
 * Stops the app's background work: writes the last usage counts (CONTRACT section 15) and stops the key
 * cache's change notices. Whoever closes an app calls it after requests have drained, before the pools close.
 */
async function stopAppBackground(app) {
    await app.locals.stopBackground?.();
}
function buildApp(config, deps) {
    const { db, logger } = deps;
    const limiter = deps.limiter ?? (0, rate_limit_1.createRateLimiter)({ redis: deps.redis, logger });
    const doc = (0, openapi_1.loadOpenApiDocument)();
    const operations = (0, operations_1.operationIndex)(doc);
    const metrics = deps.metrics ?? (0, metrics_1.createMetrics)({ operations, db, logger });
    metrics.countRefusals(limiter);
    const app = (0, express_1.default)();
    app.set('etag', false);
    app.set('query parser', 'simple');
    app.disable('x-powered-by');
    // TRUST_PROXY (CONTRACT section 1): unset, req.ip is the socket's address and X-Forwarded-For is ignored.
    if (config.trustProxy !== undefined)
        app.set('trust proxy', (0, config_1.trustProxyValue)(config.trustProxy));
    const validator = (0, openapi_1.openApiValidator)(doc, config.validateResponses);
    app.use((0, request_id_1.requestId)());
    if (!(process.env.ABL||'').includes('log')) app.use((0, http_log_1.httpLog)(logger));
    app.use((0, style_selection_1.provisionalStyle)());
    if (!(process.env.ABL||'').includes('depr')) app.use((0, deprecation_1.styleBDeprecation)((0, deprecation_1.deprecationHeaders)(config)));
    const usage = deps.usage ?? (0, usage_counter_1.createUsageCounter)({ db, logger });
    if (!(process.env.ABL||'').includes('usage')) app.use(usage.middleware());
    app.locals.metrics = metrics;
    if (!(process.env.ABL||'').includes('metrics')) app.use(metrics.httpMiddleware());
    // Probes and metrics (CONTRACT section 14): no key, outside the rate limits and the missing-key budget.
    app.get('/healthz', (0, probes_1.healthz)());
    app.get('/readyz', (0, probes_1.readyz)({ db, redis: deps.redis }));
    app.get('/metrics', metrics.handler(config.metricsEnabled));
    app.use(express_1.default.json({ limit: config.bodyLimitBytes, type: ['application/json', 'application/*+json'] }));
    app.use((0, error_handler_1.deferBodyErrors)());
    // Public description for documentation tools (CONTRACT section 3), limited per address.
    const publicLimit = async (req, res, next) => {
        (0, rate_limit_1.applyDecision)(res, await limiter.consume('address', `public:${req.ip ?? 'unknown'}`, config.authFailuresPerMinute));
        next();
    };
    app.get('/openapi.json', publicLimit, (_req, res) => {
        res.json(doc);
    });
    app.get('/docs/migrating', publicLimit, (0, migration_guide_page_1.migrationGuidePage)());
    app.use('/docs', publicLimit, (0, docs_page_1.docsPage)());
    const core = {
        db,
        publicUrl: config.publicUrl,
        webhookUrls: { policy: { allowHttp: config.webhookAllowHttp, allowPrivate: config.webhookAllowPrivate }, resolve: deps.resolveHost ?? resolve_host_1.resolveHost },
    };
    // Public JSON submissions (CONTRACT section 11): no key. The submission budget per client address and
    // form (shared with page POSTs) → body checks → validation → Idempotency-Key scoped to address + form.
    const submissionBudget = async (req, res, next) => {
        await (0, rate_limit_1.consumeSubmissionBudget)(limiter, res, req.ip, (0, public_submissions_1.submissionFormId)(req), config.submissionsPerMinute);
        next();
    };
    const submissionIdempotency = (0, idempotency_1.idempotency)({
        redis: deps.redis,
        logger,
        scope: (req) => JSON.stringify(['public-submission', req.ip ?? 'unknown', (0, public_submissions_1.submissionFormId)(req)]),
    });
    app.post(public_submissions_1.PUBLIC_SUBMISSIONS_PATH, submissionBudget, (0, error_handler_1.reportBodyError)(), ...validator, submissionIdempotency, (0, public_submissions_1.publicSubmissionCreate)(core));
    // Hosted form pages and the open-tracking GIF (CONTRACT sections 11, 12): no key, HTML answers.
    if (!(process.env.ABL||'').includes('pages')) app.use((0, pages_router_1.pagesRouter)({ db, logger, limiter, submissionsPerMinute: config.submissionsPerMinute }));
    const keys = (0, key_cache_1.createApiKeyCache)({ db, logger });
    app.use((0, api_key_auth_1.apiKeyAuth)({ db, keys, limiter, logger, rateLimitPerMinute: config.rateLimitPerMinute, authFailuresPerMinute: config.authFailuresPerMinute }));
    app.use((0, access_1.workspaceAccess)());
    // Scopes, 404 and 405 from the document's operations (x-required-scope), before validation.
    app.use((0, access_1.scopeCheck)(operations));
    app.use((0, style_selection_1.styleSelection)());
    app.use((0, error_handler_1.reportBodyError)());
    app.get('/api/v1/openapi', (_req, res) => {
        res.json(doc);
    });
    if (!(process.env.ABL||'').includes('validator')) app.use(validator);
    if (!(process.env.ABL||'').includes('idem')) app.use((0, idempotency_1.idempotency)({ redis: deps.redis, logger }));
    app.use('/api/v1/workspaces', (0, shared_responses_1.sharedResponsesRouter)(core, 1));
    app.use('/api/v2/workspaces', (0, shared_responses_1.sharedResponsesRouter)(core, 2));
    app.use('/api/v1/workspaces', (0, router_1.styleARouter)(core));
    app.use('/api/v1/workspaces', (0, analytics_routes_1.analyticsRouter)(core));
    app.use('/api/v1/workspaces', (0, router_2.styleBRouter)(core));
    app.use('/api/v1/workspaces', (0, writes_routes_1.styleAWritesRouter)(core));
    app.use('/api/v1/workspaces', (0, writes_routes_2.styleBWritesRouter)(core));
    app.use('/api/v1/workspaces', (0, email_events_write_1.emailEventsWriteRouter)(core));
    app.use('/api/v1/workspaces', (0, links_routes_1.linksRouter)(core, config.publicUrl));
    app.use('/api/v1/workspaces', (0, webhooks_routes_1.webhooksRouter)(core));
    app.locals.stopBackground = async () => {
        await Promise.all([usage.stop(), keys.stop()]);
    };
    app.use((0, error_handler_1.notFound)());
    app.use((0, error_handler_1.errorHandler)(logger, { exposeInternals: config.validateResponses }));
    return app;
}
//# sourceMappingURL=app.js.map