/**
 * Prometheus metrics (docs/operations.md, "Metrics") with prom-client, on a Registry of their own (never the
 * global one, so one process or test file can build several apps):
 * - `http_requests_total` and `http_request_duration_seconds` by `method`, `route` (the route template of
 *   openapi/, e.g. `/api/v1/workspaces/:workspace_id/responses`, or `unmatched`: never the raw path, so label
 *   values stay bounded), `status` and `style` (the style answered, as `X-API-Style` says: `A`, `B`), all read from the request context;
 * - `api_requests_by_style_total{style,operation}`: the authenticated requests the usage counter counts, by answer
 *   style (`A`, `B`) and the openapi/ `operationId` matched (or `unmatched`), so both label sets stay bounded by the document;
 * - `rate_limit_refusals_total{kind}` (`key`, `address`, `submission`);
 * - `auth_failures_total{code}` (`invalid_api_key`, `api_key_expired`, `workspace_access_denied`, `insufficient_scope`);
 * - `webhook_deliveries_total{outcome}` (`succeeded`, `retried`, `failed`) and the gauge `webhook_queue_depth`;
 * - the gauge `db_pool_connections{state}` (`used`, `idle`, `waiting`) from the knex pool;
 * - with read replicas (docs/operations.md, "Read replicas"): `db_reads_total{target}` (`primary`, `replica`:
 *   where each GET of the API was answered), and per replica (`host:port/database`) the gauges
 *   `db_replica_lag_seconds{replica}` (at the last good poll) and `db_replica_up{replica}` (1 when reads may go there);
 * - prom-client's default process metrics.
 * Other parts of the service report through the functions of `Metrics`; `/metrics` serves the text format.
 */
import type { Request, RequestHandler, Response } from 'express';
import { performance } from 'node:perf_hooks';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { errors } from '../core/errors';
import { poolStats, type Db } from '../db/connection';
import type { ReplicaStatus } from '../db/replicas';
import type { AnswerDone } from './answer-hooks';
import type { Logger } from './logger';
import type { RateLimiter } from './rate-limit';
import { answerStyle } from './style-selection';

export type RefusalKind = 'key' | 'address' | 'submission';
export type DeliveryOutcome = 'succeeded' | 'retried' | 'failed';
/** Returns the number of webhook deliveries waiting (e.g. the webhooks branch's `queueDepth(db)`). */
export type QueueDepthSource = () => Promise<number> | number;
/** Returns the sentiment backfill's state: responses pending and rows filled so far. */
export type SentimentBackfillSource = () => Promise<{ pending: number; filled: number }>;
/** Returns the topic tagging's state: topics with a pass to run and tags the job has written. */
export type TopicTaggingSource = () => Promise<{ pending: number; tagged: number }>;

/** Route label of a request that matches no route template. */
export const UNMATCHED_ROUTE = 'unmatched';

const AUTH_FAILURE_CODES = new Set(['invalid_api_key', 'api_key_expired', 'workspace_access_denied', 'insufficient_scope']);
/** A scrape never waits longer than this for the queue depth (the database may be down). */
const DEPTH_TIMEOUT_MS = 1_000;

export interface Metrics {
  readonly registry: Registry;
  /**
   * Records method, route template, status, style and duration (from the request context's start) of every answer,
   * on its 'finish': the app adds it with onAnswerDone (platform/answer-hooks.ts).
   */
  readonly answerDone: AnswerDone;
  /** `GET /metrics`: the text format; a 404 resource_not_found when `enabled` is false. */
  handler(enabled: boolean): RequestHandler;
  /** Counts one authenticated request by answer style and operation (`operationId` or `unmatched`; from the usage counter). */
  requestByStyle(style: 'A' | 'B', operation: string): void;
  /** Counts one request refused by a rate limit. */
  rateLimitRefused(kind: RefusalKind): void;
  /**
   * Makes `limiter` count every refusal it decides under its bucket name (`consume` is wrapped in place, so
   * every holder of the limiter is counted); returns the same limiter.
   */
  countRefusals(limiter: RateLimiter): RateLimiter;
  /** Counts one refused authentication or access check by its error code. */
  authFailed(code: string): void;
  /** Counts one webhook delivery attempt by its outcome (call it from the delivery worker). */
  webhookDelivery(outcome: DeliveryOutcome): void;
  /** Sets where `webhook_queue_depth` is read from at each scrape (default: 0). */
  setWebhookQueueDepthSource(source: QueueDepthSource): void;
  /**
   * Sets where `sentiment_backfill_pending` (responses still without sentiment) and `sentiment_backfill_filled` (rows
   * the backfill has scored since it first ran) are read from at each scrape (default: 0 and 0).
   */
  setSentimentBackfillSource(source: SentimentBackfillSource): void;
  /**
   * Sets where `topic_tagging_pending` (topics whose existing responses are still being tagged) and
   * `topic_tagging_tagged` (tags the tagging job has written) are read from at each scrape (default: 0 and 0).
   */
  setTopicTaggingSource(source: TopicTaggingSource): void;
  /** Counts one API read by the database that answered it. */
  dbRead(target: 'primary' | 'replica'): void;
  /** Registers the replica families and sets where their gauges are read from at each scrape (default: no replicas, no families). */
  setReplicaSource(source: () => readonly ReplicaStatus[]): void;
}

/**
 * Builds the metrics of one app. A request's `route` label is the openapi/ template its context matched, written as
 * Express writes routes (`:workspace_id`). The pool gauge reads `db` at each scrape; on the embedded database (a pool of one) it shows 1 used or idle.
 */
export function createMetrics(opts: { db?: Db; logger?: Logger } = {}): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  // Registered in this order, so /metrics lists the families in this order.
  const http = httpFamilies(registry);
  const byStyle = byStyleCounter(registry);
  const { refusals, authFailures, deliveries } = outcomeCounters(registry);
  const queueDepth = queueDepthGauge(registry, opts.logger);
  poolGauge(registry, opts.db);
  const backfill = sentimentBackfillGauges(registry, opts.logger);
  const tagging = topicTaggingGauges(registry, opts.logger);
  // Registered only with replicas, so /metrics of a service without them is unchanged.
  let replicas: ReturnType<typeof replicaFamilies> | undefined;

  const metrics: Metrics = {
    registry,
    answerDone: { finished: httpAnswered(http, (code) => metrics.authFailed(code)) },
    handler: (enabled) => async (req, res) => {
      if (!enabled) throw errors.routeNotFound(req.method, req.path);
      const body = await registry.metrics();
      res.setHeader('Cache-Control', 'no-store');
      res.type(registry.contentType).send(body);
    },
    requestByStyle: byStyle.count,
    rateLimitRefused: (kind) => refusals.inc({ kind }),
    countRefusals: (limiter) => {
      const consume = limiter.consume.bind(limiter);
      limiter.consume = async (bucket, subject, points) => {
        const d = await consume(bucket, subject, points);
        if (d.retryAfter !== undefined) metrics.rateLimitRefused(bucket as RefusalKind);
        return d;
      };
      return limiter;
    },
    authFailed: (code) => authFailures.inc({ code }),
    webhookDelivery: (outcome) => deliveries.inc({ outcome }),
    setWebhookQueueDepthSource: queueDepth.setSource,
    setSentimentBackfillSource: backfill.setSource,
    setTopicTaggingSource: tagging.setSource,
    dbRead: (target) => replicas?.reads.inc({ target }),
    setReplicaSource: (source) => {
      replicas ??= replicaFamilies(registry);
      replicas.setSource(source);
    },
  };
  return metrics;
}

const HTTP_LABELS = ['method', 'route', 'status', 'style'] as const;
type HttpLabel = (typeof HTTP_LABELS)[number];

interface HttpFamilies {
  /** The histogram's child of each label set, made on its first answer (prom-client validates and copies labels there). */
  series(method: string, route: string, status: number, style: string): Observer;
}

interface Observer {
  observe(seconds: number): void;
}

/**
 * `http_requests_total` and `http_request_duration_seconds`. An answer is observed once, in the histogram: the counter
 * is the histogram's `_count` of each label set, copied at each scrape (prom-client calls `collect` before reading a
 * family), so the two always agree.
 */
function httpFamilies(registry: Registry): HttpFamilies {
  const labelNames = HTTP_LABELS;
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from receiving a request to the end of its answer, in seconds.',
    labelNames,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [],
  });
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered.',
    labelNames,
    registers: [],
    async collect() {
      const counts = (await duration.get()).values.filter((v) => v.metricName === 'http_request_duration_seconds_count');
      this.reset();
      for (const v of counts) this.inc(v.labels as Partial<Record<HttpLabel, string>>, v.value);
    },
  });
  // In this order on /metrics, as before the counter was derived.
  registry.registerMetric(requests);
  registry.registerMetric(duration);
  // method → route → status → style → child: label values are bounded (Node's methods, openapi/ routes, statuses, styles).
  type ByStyle = Map<string, Observer>;
  type ByStatus = Map<number, ByStyle>;
  type ByRoute = Map<string, ByStatus>;
  const children = new Map<string, ByRoute>();
  return {
    series(method, route, status, style) {
      let routes = children.get(method);
      if (!routes) children.set(method, (routes = new Map() as ByRoute));
      let statuses = routes.get(route);
      if (!statuses) routes.set(route, (statuses = new Map() as ByStatus));
      let styles = statuses.get(status);
      if (!styles) statuses.set(status, (styles = new Map() as ByStyle));
      let child = styles.get(style);
      if (!child) styles.set(style, (child = duration.labels({ method, route, status: String(status), style })));
      return child;
    },
  };
}

/** Counts each request when its answer is finished; an auth failure's error code goes to `authFailed`. */
function httpAnswered(http: HttpFamilies, authFailed: (code: string) => void): (req: Request, res: Response) => void {
  return (req, res) => {
    const ctx = req.context;
    http.series(req.method, ctx.match?.route ?? UNMATCHED_ROUTE, res.statusCode, answerStyle(req)).observe((performance.now() - ctx.started) / 1000);
    const code = ctx.errorCode;
    if (code && AUTH_FAILURE_CODES.has(code)) authFailed(code);
  };
}

/**
 * `api_requests_by_style_total`: counted in this process's map per style and operation (no label copy per request),
 * copied into the family at each scrape.
 */
function byStyleCounter(registry: Registry): { count: (style: 'A' | 'B', operation: string) => void } {
  const counts = { A: new Map<string, number>(), B: new Map<string, number>() };
  new Counter({
    name: 'api_requests_by_style_total',
    help: 'Authenticated API requests by answer style (A, B) and openapi/ operationId (or unmatched).',
    labelNames: ['style', 'operation'],
    registers: [registry],
    collect() {
      this.reset();
      for (const style of ['A', 'B'] as const) for (const [operation, n] of counts[style]) this.inc({ style, operation }, n);
    },
  });
  return {
    count: (style, operation) => {
      const m = counts[style];
      m.set(operation, (m.get(operation) ?? 0) + 1);
    },
  };
}

/** `rate_limit_refusals_total`, `auth_failures_total` and `webhook_deliveries_total`. */
function outcomeCounters(registry: Registry): { refusals: Counter<'kind'>; authFailures: Counter<'code'>; deliveries: Counter<'outcome'> } {
  const refusals = new Counter({
    name: 'rate_limit_refusals_total',
    help: 'Requests refused with 429 by a rate limit, by budget (key, address, submission).',
    labelNames: ['kind'],
    registers: [registry],
  });
  const authFailures = new Counter({
    name: 'auth_failures_total',
    help: 'Requests refused by the key or access checks, by error code.',
    labelNames: ['code'],
    registers: [registry],
  });
  const deliveries = new Counter({
    name: 'webhook_deliveries_total',
    help: 'Webhook delivery attempts by outcome (succeeded, retried, failed).',
    labelNames: ['outcome'],
    registers: [registry],
  });
  // Every outcome and code shows from the first scrape (at 0), so rate() works at once.
  for (const outcome of ['succeeded', 'retried', 'failed']) deliveries.inc({ outcome }, 0);
  for (const kind of ['key', 'address', 'submission']) refusals.inc({ kind }, 0);
  return { refusals, authFailures, deliveries };
}

/** `db_reads_total{target}`, `db_replica_lag_seconds{replica}` and `db_replica_up{replica}` (docs/operations.md, "Read replicas"). */
function replicaFamilies(registry: Registry): { reads: Counter<'target'>; setSource: (source: () => readonly ReplicaStatus[]) => void } {
  let source: () => readonly ReplicaStatus[] = () => [];
  const reads = new Counter({
    name: 'db_reads_total',
    help: 'API read requests (GET, HEAD) by the database that answered them (primary, replica).',
    labelNames: ['target'],
    registers: [registry],
  });
  new Gauge({
    name: 'db_replica_lag_seconds',
    help: 'Seconds a read replica is behind the primary, by WAL position at its last good poll.',
    labelNames: ['replica'],
    registers: [registry],
    collect() {
      for (const r of source()) if (r.lagSeconds !== null) this.set({ replica: r.name }, r.lagSeconds);
    },
  });
  new Gauge({
    name: 'db_replica_up',
    help: '1 when reads may go to the replica, 0 while it is down or lagging beyond DATABASE_READ_MAX_LAG_MS.',
    labelNames: ['replica'],
    registers: [registry],
    collect() {
      for (const r of source()) this.set({ replica: r.name }, r.state === 'ok' ? 1 : 0);
    },
  });
  return {
    reads,
    setSource: (s) => {
      source = s;
      for (const target of ['primary', 'replica']) reads.inc({ target }, 0);
    },
  };
}

/** The gauge `webhook_queue_depth`, read from the source set at each scrape (the last known depth if it fails). */
function queueDepthGauge(registry: Registry, logger: Logger | undefined): { setSource: (source: QueueDepthSource) => void } {
  let depthSource: QueueDepthSource = () => 0;
  let lastDepth = 0;
  new Gauge({
    name: 'webhook_queue_depth',
    help: 'Webhook deliveries waiting to be attempted.',
    registers: [registry],
    async collect() {
      try {
        const depth = await Promise.race([
          Promise.resolve(depthSource()),
          new Promise<number>((_, reject) => setTimeout(() => reject(new Error('queue depth timed out')), DEPTH_TIMEOUT_MS).unref()),
        ]);
        lastDepth = depth;
      } catch (err) {
        // The database may be down: show the last known depth rather than failing the scrape.
        logger?.debug({ err }, 'could not read the webhook queue depth');
      }
      this.set(lastDepth);
    },
  });
  return {
    setSource: (source) => {
      depthSource = source;
    },
  };
}

/**
 * Gauges read together from one source at each scrape (one read serves them all; the last known values if it fails or
 * takes over a second): the state of a background job kept in the database.
 * @param what the job, for the debug line of a failed read.
 */
function jobStateGauges<K extends string>(
  registry: Registry,
  logger: Logger | undefined,
  what: string,
  gauges: ReadonlyArray<{ name: string; help: string; key: K }>,
): { setSource: (source: () => Promise<Record<K, number>>) => void } {
  const zero = Object.fromEntries(gauges.map((g) => [g.key, 0])) as Record<K, number>;
  let source: () => Promise<Record<K, number>> = () => Promise.resolve(zero);
  let last = zero;
  let reading: Promise<void> | undefined;
  const read = () =>
    (reading ??= Promise.race([
      source(),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what} state timed out`)), DEPTH_TIMEOUT_MS).unref()),
    ])
      .then((v) => {
        last = v;
      })
      .catch((err: unknown) => logger?.debug({ err }, `could not read the ${what} state`))
      .finally(() => {
        reading = undefined;
      }));
  for (const g of gauges) {
    new Gauge({
      name: g.name,
      help: g.help,
      registers: [registry],
      async collect() {
        await read();
        this.set(last[g.key]);
      },
    });
  }
  return {
    setSource: (s) => {
      source = s;
    },
  };
}

/** The gauges `sentiment_backfill_pending` and `sentiment_backfill_filled` (docs/operations.md, "Sentiment"). */
function sentimentBackfillGauges(registry: Registry, logger: Logger | undefined): { setSource: (source: SentimentBackfillSource) => void } {
  return jobStateGauges(registry, logger, 'sentiment backfill', [
    { name: 'sentiment_backfill_pending', help: 'Responses whose text answers have no sentiment yet (the backfill job scores them).', key: 'pending' },
    {
      name: 'sentiment_backfill_filled',
      help: 'Responses the sentiment backfill job has scored since it first ran (kept in the database across restarts).',
      key: 'filled',
    },
  ]);
}

/** The gauges `topic_tagging_pending` and `topic_tagging_tagged` (docs/analytics.md, "Topics"). */
function topicTaggingGauges(registry: Registry, logger: Logger | undefined): { setSource: (source: TopicTaggingSource) => void } {
  return jobStateGauges(registry, logger, 'topic tagging', [
    {
      name: 'topic_tagging_pending',
      help: 'Topics whose existing responses the tagging job is still tagging (a new topic, or a changed query).',
      key: 'pending',
    },
    { name: 'topic_tagging_tagged', help: "Tags the topic tagging job has written in the current topics' latest passes.", key: 'tagged' },
  ]);
}

/** The gauge `db_pool_connections{state}`, read from the knex pool at each scrape (zeros without a database). */
function poolGauge(registry: Registry, db: Db | undefined): void {
  new Gauge({
    name: 'db_pool_connections',
    help: 'Database pool connections by state (used, idle, waiting = acquires queued).',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const s = db ? poolStats(db) : { used: 0, idle: 0, waiting: 0 };
      this.set({ state: 'used' }, s.used);
      this.set({ state: 'idle' }, s.idle);
      this.set({ state: 'waiting' }, s.waiting);
    },
  });
}
