/**
 * Service configuration, read from the environment exactly once (README.md, "Configuration").
 * Nothing else in the code reads `process.env`; tests build their own Config with `loadConfig({...})`.
 */
import path from 'node:path';
import { isCalendarDate } from './core/query/dates';
import { DEFAULT_WEBHOOK_LOG_RETENTION_DAYS } from './core/webhooks/retention';
import { DEFAULT_AUDIT_RETENTION_DAYS } from './core/audit/audit.store';
import { DEFAULT_EVENT_RETENTION_DAYS } from './core/events/event-log.store';
import { LIVE_DEFAULTS } from './platform/live-streams';
import { RESPONSE_DELETE_DEFAULTS } from './core/responses/delete-limits';
import { DEFAULT_RETRY_SCHEDULE } from './core/webhooks/retry-schedule';

export interface Config {
  /** PostgreSQL URL; undefined means the embedded PGlite database in `dataDir`. */
  readonly databaseUrl: string | undefined;
  /**
   * `DATABASE_READ_URL`: PostgreSQL read replicas of `databaseUrl`, comma-separated; empty: every read on the
   * primary (docs/operations.md, "Read replicas").
   */
  readonly databaseReadUrls: readonly string[];
  /** `DATABASE_READ_MAX_LAG_MS`: a replica further behind than this is skipped (docs/operations.md, "Read replicas"). */
  readonly databaseReadMaxLagMs: number;
  /** Folder of the embedded database (absolute). */
  readonly dataDir: string;
  /** Redis URL for rate limits and idempotency; undefined means an in-process store (one instance only). */
  readonly redisUrl: string | undefined;
  readonly port: number;
  readonly host: string;
  /** Requests per 60 s window per key when the key has no limit of its own. */
  readonly rateLimitPerMinute: number;
  /** Requests per 60 s window per client address with a missing or unknown key. */
  readonly authFailuresPerMinute: number;
  readonly logLevel: string;
  /** Maximum JSON body size accepted, in bytes. */
  readonly bodyLimitBytes: number;
  /** Validate every response against openapi/ (tests turn this on; a mismatch becomes a 500). */
  readonly validateResponses: boolean;
  /** Base of every link the service prints or mints (README.md, "Configuration"); no trailing slash. */
  readonly publicUrl: string;
  /**
   * True when PUBLIC_URL is unset and HOST is a wildcard address (`0.0.0.0`, `::`): links are then built on
   * `http://localhost:{PORT}`, which no one else can reach, and the server warns once at start.
   */
  readonly publicUrlGuessed: boolean;
  /** Express `trust proxy` value; undefined: client addresses are the sockets' (docs/collecting.md, "Public JSON"). */
  readonly trustProxy: string | undefined;
  /** Public submissions per minute per client address and form (docs/collecting.md, "Public JSON"). */
  readonly submissionsPerMinute: number;
  /** Webhook delivery (docs/webhooks.md, "Address rules"): allow http:// URLs. */
  readonly webhookAllowHttp: boolean;
  /** Webhook delivery: allow loopback, private and other non-public addresses. */
  readonly webhookAllowPrivate: boolean;
  /** Delays in seconds before each retry; undefined: the contract's default schedule. */
  readonly webhookRetrySchedule: readonly number[] | undefined;
  /** Days the webhook delivery log is kept after a delivery ended (docs/operations.md, "What grows, and what bounds it"). */
  readonly webhookLogRetentionDays: number;
  /** Days an audit record is kept (`AUDIT_RETENTION_DAYS`, default 400; docs/security.md, "The audit trail"). */
  readonly auditRetentionDays: number;
  /** Days an event stays in the event log (`EVENT_RETENTION_DAYS`, default 30; docs/live.md, "Event log"). */
  readonly eventRetentionDays: number;
  /** `METRICS=off` hides /metrics (docs/operations.md, "Metrics"). */
  readonly metricsEnabled: boolean;
  /**
   * `SENTIMENT=off`: responses are written without the sentiment of their text answers and the worker's backfill
   * does not run (docs/operations.md, "Sentiment"); default on.
   */
  readonly sentimentEnabled: boolean;
  /** `STYLE_B_SUNSET` (YYYY-MM-DD): turns on the Style B deprecation headers (docs/analytics.md, "Deprecation headers"). */
  readonly styleBSunset: string | undefined;
  /** `STYLE_B_DEPRECATED_AT` (YYYY-MM-DD); default 180 days before the sunset. */
  readonly styleBDeprecatedAt: string | undefined;
  /** `HTTP_HEADERS_TIMEOUT_MS`: a client must send its request line and headers within this (docs/operations.md, "Slow clients"). */
  readonly httpHeadersTimeoutMs: number;
  /** `HTTP_REQUEST_TIMEOUT_MS`: a client must send its whole request, body included, within this; at least the headers timeout. */
  readonly httpRequestTimeoutMs: number;
  /** `HTTP_KEEP_ALIVE_TIMEOUT_MS`: an idle keep-alive connection is closed after this. */
  readonly httpKeepAliveTimeoutMs: number;
  /** `CONNECTIONS_PER_ADDRESS`: open connections one client address may hold; 0: no cap (docs/operations.md, "Slow clients"). */
  readonly connectionsPerAddress: number;
  /** `EXPORT_STALL_TIMEOUT_MS`: an export whose client has read nothing for this long is aborted (docs/analytics.md, "Exports"). */
  readonly exportStallTimeoutMs: number;
  /** `EXPORTS_PER_KEY`: exports one API key (or one dashboard link) may run at once on an instance. */
  readonly exportsPerKey: number;
  /** `EXPORTS_MAX`: exports an instance runs at once, API and dashboard downloads together. */
  readonly exportsMax: number;
  /** `STREAMS_PER_KEY`: live streams one API key may hold open on an instance (docs/live.md, "Stream"). */
  readonly streamsPerKey: number;
  /** `STREAM_HEARTBEAT_MS`: a live stream sends a comment line this often. */
  readonly streamHeartbeatMs: number;
  /** `STREAM_BUFFER_BYTES`: a live stream whose client leaves more than this unread is disconnected. */
  readonly streamBufferBytes: number;
  /** `STREAM_POLL_MS`: each workspace with open streams reads the event log this often even without a notice. */
  readonly streamPollMs: number;
  /**
   * `RESPONSE_DELETE_INLINE_MAX`: a bulk delete of at most this many responses runs in the request; a larger one
   * runs on the worker (docs/api-rules.md, "Deleting responses").
   */
  readonly responseDeleteInlineMax: number;
  /** `RESPONSE_DELETE_BATCH_SIZE`: responses per transaction of a bulk delete job and of the retention. */
  readonly responseDeleteBatchSize: number;
}

type Env = Record<string, string | undefined>;

/** A setting with a bad value; the message names the environment variable (README.md, "Configuration"). */
export class ConfigError extends Error {
  constructor(name: string, expected: string, raw: string) {
    super(`${name} must be ${expected}, got ${JSON.stringify(raw)}`);
    this.name = 'ConfigError';
  }
}

/** The HTTP server's defaults (docs/operations.md, "Slow clients"); Node's own are 60 s, 300 s and 5 s, and no cap. */
export const HTTP_DEFAULTS = Object.freeze({ headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 5_000, connectionsPerAddress: 64 });

/**
 * The export limits' defaults (docs/analytics.md, "Exports"): 2 per key and 4 in all leave 6 of the 10 pooled
 * connections to the API; the embedded database has one connection, so one export at a time there.
 */
export const EXPORT_DEFAULTS = Object.freeze({ stallTimeoutMs: 30_000, perKey: 2, maxOnPostgres: 4 });

/** Every environment setting with its default, for `serve --help` (README.md, "Configuration"). */
export const SETTINGS: ReadonlyArray<{ name: string; meaning: string; fallback: string }> = [
  {
    name: 'FEEDBACK_MEMORY_DEFAULTS',
    meaning:
      '"off": serve and import keep V8\'s own heap sizes instead of restarting with --max-semi-space-size=16 --max-old-space-size=384 (a heap flag in NODE_OPTIONS also wins)',
    fallback: 'on',
  },
  { name: 'DATABASE_URL', meaning: 'PostgreSQL URL (postgres:// or postgresql://)', fallback: 'unset: embedded PostgreSQL (PGlite) in FEEDBACK_DATA_DIR' },
  {
    name: 'DATABASE_READ_URL',
    meaning: 'PostgreSQL read replicas of DATABASE_URL, comma-separated URLs: GET requests of the API read there',
    fallback: 'unset: every read on DATABASE_URL',
  },
  { name: 'DATABASE_READ_MAX_LAG_MS', meaning: 'a replica further behind than this many milliseconds (or down) is skipped', fallback: '5000' },
  { name: 'FEEDBACK_DATA_DIR', meaning: 'folder of the embedded database', fallback: './.data' },
  {
    name: 'REDIS_URL',
    meaning:
      'Redis for rate limits and idempotency, shared by every instance (redis://, rediss://, redis+sentinel://host:port,host:port/master for Sentinel failover, or redis+cluster://host:port,host:port for Redis Cluster)',
    fallback: 'unset: in-process (one instance only)',
  },
  { name: 'PORT', meaning: 'listen port, 1-65535', fallback: '3000' },
  { name: 'HOST', meaning: 'listen address', fallback: '127.0.0.1' },
  { name: 'RATE_LIMIT_PER_MINUTE', meaning: 'requests per minute per key without a limit of its own', fallback: '60' },
  { name: 'AUTH_FAILURES_PER_MINUTE', meaning: 'requests with a missing or unknown key per minute per client address', fallback: '60' },
  { name: 'LOG_LEVEL', meaning: 'pino level: fatal, error, warn, info, debug, trace or silent', fallback: 'info' },
  {
    name: 'PUBLIC_URL',
    meaning: 'base of every link the service prints (http:// or https://)',
    fallback: 'http://{HOST}:{PORT}, or http://localhost:{PORT} when HOST is 0.0.0.0 or ::',
  },
  {
    name: 'TRUST_PROXY',
    meaning: 'Express "trust proxy": true, false, a hop count, or addresses/CIDRs/loopback,linklocal,uniquelocal',
    fallback: 'unset: X-Forwarded-For is ignored',
  },
  { name: 'SUBMISSIONS_PER_MINUTE', meaning: 'public submissions per minute per client address and form', fallback: '20' },
  { name: 'WEBHOOK_ALLOW_HTTP', meaning: 'allow http:// webhook URLs (true/false)', fallback: 'false' },
  { name: 'WEBHOOK_ALLOW_PRIVATE', meaning: 'allow webhook URLs on private or loopback addresses (true/false)', fallback: 'false' },
  { name: 'WEBHOOK_RETRY_SCHEDULE', meaning: 'comma-separated seconds before each webhook retry', fallback: DEFAULT_RETRY_SCHEDULE.join(',') },
  {
    name: 'WEBHOOK_LOG_RETENTION_DAYS',
    meaning: 'days a finished webhook delivery (and its event) is kept, 1-36500',
    fallback: String(DEFAULT_WEBHOOK_LOG_RETENTION_DAYS),
  },
  { name: 'AUDIT_RETENTION_DAYS', meaning: 'days an audit record is kept, 1-36500', fallback: String(DEFAULT_AUDIT_RETENTION_DAYS) },
  { name: 'EVENT_RETENTION_DAYS', meaning: 'days an event stays in the event log, 1-36500', fallback: String(DEFAULT_EVENT_RETENTION_DAYS) },
  { name: 'METRICS', meaning: '"off" hides /metrics (on/off)', fallback: 'on' },
  {
    name: 'SENTIMENT',
    meaning: '"off": responses are written without the sentiment of their text answers and the worker does not backfill it (on/off)',
    fallback: 'on',
  },
  { name: 'STYLE_B_SUNSET', meaning: 'date (YYYY-MM-DD) that turns on the Style B deprecation headers', fallback: 'unset' },
  { name: 'STYLE_B_DEPRECATED_AT', meaning: 'date (YYYY-MM-DD) of the Style B deprecation', fallback: '180 days before STYLE_B_SUNSET' },
  {
    name: 'HTTP_HEADERS_TIMEOUT_MS',
    meaning: 'milliseconds a client has to send its request line and headers; then the connection is closed',
    fallback: String(HTTP_DEFAULTS.headersTimeoutMs),
  },
  {
    name: 'HTTP_REQUEST_TIMEOUT_MS',
    meaning: 'milliseconds a client has to send its whole request (body included), at least HTTP_HEADERS_TIMEOUT_MS',
    fallback: String(HTTP_DEFAULTS.requestTimeoutMs),
  },
  { name: 'HTTP_KEEP_ALIVE_TIMEOUT_MS', meaning: 'milliseconds an idle keep-alive connection stays open', fallback: String(HTTP_DEFAULTS.keepAliveTimeoutMs) },
  {
    name: 'CONNECTIONS_PER_ADDRESS',
    meaning: 'open connections one client address may hold (behind a proxy every client has its address: raise it or set 0); 0: no cap',
    fallback: String(HTTP_DEFAULTS.connectionsPerAddress),
  },
  {
    name: 'EXPORT_STALL_TIMEOUT_MS',
    meaning: 'an export (API or dashboard download) whose client reads nothing for this many milliseconds is aborted and its transaction rolled back',
    fallback: String(EXPORT_DEFAULTS.stallTimeoutMs),
  },
  {
    name: 'EXPORTS_PER_KEY',
    meaning: 'exports one API key (or dashboard link) may run at once on an instance; more: 429 with Retry-After',
    fallback: String(EXPORT_DEFAULTS.perKey),
  },
  {
    name: 'RESPONSE_DELETE_INLINE_MAX',
    meaning: 'a bulk delete of at most this many responses runs in the request; more run on the worker in batches',
    fallback: String(RESPONSE_DELETE_DEFAULTS.inlineMax),
  },
  {
    name: 'RESPONSE_DELETE_BATCH_SIZE',
    meaning: 'responses deleted per transaction by a bulk delete job and by the retention',
    fallback: String(RESPONSE_DELETE_DEFAULTS.batchSize),
  },
  {
    name: 'STREAMS_PER_KEY',
    meaning: 'live streams (GET {ws}/responses/stream, {ws}/events/stream) one API key may hold open on an instance; more: 429 with Retry-After',
    fallback: String(LIVE_DEFAULTS.perKey),
  },
  { name: 'STREAM_HEARTBEAT_MS', meaning: 'a live stream sends a comment line this often (milliseconds)', fallback: String(LIVE_DEFAULTS.heartbeatMs) },
  {
    name: 'STREAM_BUFFER_BYTES',
    meaning: 'a live stream whose client leaves more than this many bytes unread is disconnected',
    fallback: String(LIVE_DEFAULTS.maxBufferBytes),
  },
  {
    name: 'STREAM_POLL_MS',
    meaning: 'each workspace with open live streams reads the event log this often even without a notice (milliseconds)',
    fallback: String(LIVE_DEFAULTS.pollMs),
  },
  {
    name: 'EXPORTS_MAX',
    meaning: 'exports an instance runs at once (API and dashboard downloads); more: 429 with Retry-After',
    fallback: `${EXPORT_DEFAULTS.maxOnPostgres} (1 on the embedded database)`,
  },
  {
    name: 'OTEL_EXPORTER_OTLP_ENDPOINT',
    meaning:
      'OTLP/HTTP collector (e.g. http://localhost:4318): serve and the worker export traces there, on Node >= 22.15 (docs/operations.md, "Traces"); the other standard OTEL_* variables apply',
    fallback: 'unset: no traces, no OpenTelemetry module loaded',
  },
  { name: 'OTEL_EXPORTER_OTLP_PROTOCOL', meaning: 'http/protobuf or http/json', fallback: 'http/protobuf' },
  { name: 'OTEL_SERVICE_NAME', meaning: 'service.name of the traces', fallback: 'feedback-service' },
  {
    name: 'OTEL_TRACES_SAMPLER',
    meaning: 'sampler (parentbased_traceidratio with OTEL_TRACES_SAMPLER_ARG=0.1 keeps one trace in ten)',
    fallback: 'parentbased_always_on',
  },
  { name: 'OTEL_SDK_DISABLED', meaning: '"true": no traces even with an endpoint set', fallback: 'false' },
];

/** What the service itself reads of the OpenTelemetry variables (docs/operations.md, "Traces"). */
export interface TracesSetting {
  /** `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, else `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  readonly endpoint: string;
  /** `OTEL_SERVICE_NAME`, else `feedback-service` (the SDK's own default would be `unknown_service:node`). */
  readonly serviceName: string;
}

/**
 * Whether traces are asked for (docs/operations.md, "Traces"): `OTEL_EXPORTER_OTLP_ENDPOINT` (or the traces-only
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set and `OTEL_SDK_DISABLED` is not `true`. This is the one test made before
 * any OpenTelemetry module is loaded (src/cli/preload.ts); the other `OTEL_*` variables (protocol, headers, sampler,
 * batch sizes) are read by the OpenTelemetry SDK itself, with their standard meanings.
 * @returns the setting, or undefined when traces are not asked for.
 */
export function tracesRequested(env: Env = process.env): TracesSetting | undefined {
  if (raw(env, 'OTEL_SDK_DISABLED')?.trim().toLowerCase() === 'true') return undefined;
  const endpoint = raw(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') ?? raw(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  if (endpoint === undefined) return undefined;
  return { endpoint, serviceName: raw(env, 'OTEL_SERVICE_NAME')?.trim() ?? 'feedback-service' };
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function raw(env: Env, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v.trim() === '' ? undefined : v;
}

function positiveInt(env: Env, name: string, fallback: number): number {
  const value = raw(env, name);
  if (value === undefined) return fallback;
  if (!/^\s*[1-9]\d*\s*$/.test(value) || !Number.isSafeInteger(Number(value))) {
    throw new ConfigError(name, 'a positive integer', value);
  }
  return Number(value);
}

function nonNegativeInt(env: Env, name: string, fallback: number): number {
  const value = raw(env, name);
  if (value === undefined) return fallback;
  if (!/^\s*\d+\s*$/.test(value) || !Number.isSafeInteger(Number(value))) throw new ConfigError(name, 'a whole number (0 or more)', value);
  return Number(value);
}

/** The HTTP server's timeouts: the request timeout covers the headers, so it cannot be shorter (Node refuses that). */
function httpTimeouts(env: Env): Pick<Config, 'httpHeadersTimeoutMs' | 'httpRequestTimeoutMs' | 'httpKeepAliveTimeoutMs'> {
  const headers = positiveInt(env, 'HTTP_HEADERS_TIMEOUT_MS', HTTP_DEFAULTS.headersTimeoutMs);
  const request = positiveInt(env, 'HTTP_REQUEST_TIMEOUT_MS', Math.max(HTTP_DEFAULTS.requestTimeoutMs, headers));
  if (request < headers) throw new ConfigError('HTTP_REQUEST_TIMEOUT_MS', `at least HTTP_HEADERS_TIMEOUT_MS (${headers})`, String(request));
  return {
    httpHeadersTimeoutMs: headers,
    httpRequestTimeoutMs: request,
    httpKeepAliveTimeoutMs: positiveInt(env, 'HTTP_KEEP_ALIVE_TIMEOUT_MS', HTTP_DEFAULTS.keepAliveTimeoutMs),
  };
}

/** Days 1-36500: a cutoff that far back is still a valid date. */
function retentionDays(env: Env, name: string, fallback: number): number {
  const value = raw(env, name);
  if (value === undefined) return fallback;
  if (!/^\s*[1-9]\d{0,4}\s*$/.test(value) || Number(value) > 36_500) throw new ConfigError(name, 'a whole number of days 1-36500', value);
  return Number(value);
}

function port(env: Env): number {
  const value = raw(env, 'PORT');
  if (value === undefined) return 3000;
  const n = Number(value);
  if (!/^\s*\d+\s*$/.test(value) || n < 1 || n > 65535) throw new ConfigError('PORT', 'an integer 1-65535', value);
  return n;
}

function host(env: Env): string {
  const value = raw(env, 'HOST');
  if (value === undefined) return '127.0.0.1';
  // A host name or an IPv4/IPv6 address, no scheme, port or spaces.
  if (!/^[A-Za-z0-9.-]+$/.test(value) && !/^[0-9A-Fa-f:.]+(%[A-Za-z0-9]+)?$/.test(value)) {
    throw new ConfigError('HOST', 'a host name or an IP address (no scheme or port)', value);
  }
  return value;
}

function url(env: Env, name: string, schemes: readonly string[]): string | undefined {
  const value = raw(env, name);
  if (value === undefined) return undefined;
  let parsed: URL | undefined;
  try {
    parsed = new URL(value.trim());
  } catch {
    parsed = undefined;
  }
  if (!parsed || !schemes.includes(parsed.protocol.replace(/:$/, '')) || parsed.host === '') {
    throw new ConfigError(name, `a URL starting with ${schemes.map((s) => `${s}://`).join(' or ')}`, value);
  }
  return value.trim();
}

/**
 * Where the Redis client connects (docs/operations.md, "Redis with failover (Sentinel)", "Redis Cluster"):
 * a plain URL, given to ioredis as is; a Sentinel set: the sentinels' addresses, the monitored master's
 * name, and the database number, user, password and TLS the master is reached with; or a Redis Cluster:
 * seed nodes (any reachable one tells the client the whole cluster), user, password and TLS.
 */
export type RedisTarget =
  | { readonly kind: 'url'; readonly url: string }
  | {
      readonly kind: 'sentinel';
      readonly sentinels: ReadonlyArray<{ host: string; port: number }>;
      readonly name: string;
      readonly db: number;
      readonly username: string | undefined;
      readonly password: string | undefined;
      readonly tls: boolean;
    }
  | {
      readonly kind: 'cluster';
      readonly nodes: ReadonlyArray<{ host: string; port: number }>;
      readonly username: string | undefined;
      readonly password: string | undefined;
      readonly tls: boolean;
    };

const SENTINEL_FORM = 'redis+sentinel://[user:password@]host:port[,host:port...]/<master name>[?db=N] (or rediss+sentinel://)';
const CLUSTER_FORM = 'redis+cluster://[user:password@]host:port[,host:port...] (or rediss+cluster://; a cluster has only database 0)';

/**
 * Parses `REDIS_URL`: `redis://` / `rediss://` stay one URL; `redis+sentinel://` / `rediss+sentinel://`
 * name sentinels (port default 26379) and a master; `redis+cluster://` / `rediss+cluster://` name seed
 * nodes of a Redis Cluster (port default 6379; `?db=0` is allowed, another database is not, since a
 * cluster has only database 0). Throws ConfigError naming REDIS_URL for a malformed `+sentinel` or
 * `+cluster` value and for any other `redis+…` scheme.
 */
export function redisTarget(value: string): RedisTarget {
  const v = value.trim();
  if (!/^rediss?\+/i.test(v)) return { kind: 'url', url: value };
  const cluster = /^rediss?\+cluster:/i.test(v);
  const form = cluster ? CLUSTER_FORM : SENTINEL_FORM;
  // scheme, user, password, hosts, path (the master's name; none for a cluster), query
  const m = /^(rediss?)\+(sentinel|cluster):\/\/(?:([^:@/]*)(?::([^@/]*))?@)?([^/?#@]+)(?:\/([^/?#]*))?(?:\?([^#]*))?$/.exec(v);
  if (!m || (cluster ? (m[6] ?? '') !== '' : !m[6])) throw new ConfigError('REDIS_URL', form, value);
  const hosts = m[5]!.split(',').map((hp) => {
    const a = /^([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::(\d{1,5}))?$/.exec(hp.trim());
    const port = a?.[2] === undefined ? (cluster ? 6379 : 26379) : Number(a[2]);
    if (!a || port < 1 || port > 65535) throw new ConfigError('REDIS_URL', form, value);
    return { host: a[1]!.replace(/^\[|\]$/g, ''), port };
  });
  const query = new URLSearchParams(m[7] ?? '');
  const db = query.get('db') ?? '0';
  if (!/^\d{1,2}$/.test(db) || [...query.keys()].some((k) => k !== 'db')) throw new ConfigError('REDIS_URL', form, value);
  if (cluster && Number(db) !== 0) throw new ConfigError('REDIS_URL', form, value);
  const decode = (s: string | undefined) => (s === undefined || s === '' ? undefined : decodeURIComponent(s));
  const credentials = { username: decode(m[3]), password: decode(m[4]), tls: m[1]!.toLowerCase() === 'rediss' };
  if (cluster) return { kind: 'cluster', nodes: hosts, ...credentials };
  return { kind: 'sentinel', sentinels: hosts, name: decodeURIComponent(m[6]!), db: Number(db), ...credentials };
}

/**
 * `DATABASE_READ_URL`: one or more PostgreSQL URLs, comma-separated (docs/operations.md, "Read replicas").
 * @throws ConfigError naming DATABASE_READ_URL for a malformed URL, or when DATABASE_URL is unset (the
 *   embedded database has no replicas).
 */
function databaseReadUrls(env: Env, primary: string | undefined): string[] {
  const value = raw(env, 'DATABASE_READ_URL');
  if (value === undefined) return [];
  if (primary === undefined) throw new ConfigError('DATABASE_READ_URL', 'unset while DATABASE_URL is unset (the embedded database has no replicas)', value);
  return value.split(',').map((part) => {
    const one = url({ DATABASE_READ_URL: part }, 'DATABASE_READ_URL', ['postgres', 'postgresql']);
    if (one === undefined) throw new ConfigError('DATABASE_READ_URL', 'comma-separated postgres:// URLs', value);
    return one;
  });
}

function redisUrl(env: Env): string | undefined {
  const value = raw(env, 'REDIS_URL');
  if (value !== undefined && redisTarget(value).kind !== 'url') return value.trim();
  try {
    return url(env, 'REDIS_URL', ['redis', 'rediss']);
  } catch {
    // Name every form REDIS_URL takes, not only the plain URLs (README.md, "Configuration").
    throw new ConfigError('REDIS_URL', `a URL starting with redis:// or rediss://, a Sentinel URL ${SENTINEL_FORM}, or a Cluster URL ${CLUSTER_FORM}`, value!);
  }
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const value = raw(env, name);
  if (value === undefined) return fallback;
  const v = value.trim().toLowerCase();
  if (v === 'true' || v === '1' || v === 'yes' || v === 'on') return true;
  if (v === 'false' || v === '0' || v === 'no' || v === 'off') return false;
  throw new ConfigError(name, name === 'METRICS' || name === 'SENTIMENT' ? 'on or off' : 'true or false', value);
}

function seconds(env: Env, name: string): number[] | undefined {
  const value = raw(env, name);
  if (value === undefined) return undefined;
  const parts = value.split(',').map((p) => p.trim());
  if (parts.some((p) => !/^\d+(\.\d+)?$/.test(p))) {
    throw new ConfigError(name, 'comma-separated seconds (e.g. "1,2,5")', value);
  }
  return parts.map(Number);
}

function calendarDate(env: Env, name: string): string | undefined {
  const value = raw(env, name);
  if (value === undefined) return undefined;
  const v = value.trim();
  if (!isCalendarDate(v)) throw new ConfigError(name, 'a date YYYY-MM-DD', value);
  return v;
}

function logLevel(env: Env): string {
  const value = raw(env, 'LOG_LEVEL');
  if (value === undefined) return 'info';
  const v = value.trim().toLowerCase();
  if (!LOG_LEVELS.includes(v)) throw new ConfigError('LOG_LEVEL', `one of ${LOG_LEVELS.join(', ')}`, value);
  return v;
}

const IPV4_CIDR = /^(\d{1,3})(\.\d{1,3}){3}(\/\d{1,2})?$/;
const IPV6_CIDR = /^[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*(\/\d{1,3})?$/;

/** Checks a value Express accepts for `trust proxy`: true/false, a hop count, or a list of addresses. */
function trustProxy(env: Env): string | undefined {
  const value = raw(env, 'TRUST_PROXY');
  if (value === undefined) return undefined;
  const v = value.trim();
  if (/^(true|false)$/i.test(v) || /^\d+$/.test(v)) return v;
  const items = v.split(',').map((p) => p.trim());
  const valid = (item: string) => {
    if (['loopback', 'linklocal', 'uniquelocal'].includes(item)) return true;
    if (IPV4_CIDR.test(item)) {
      const [addr, bits] = item.split('/');
      return addr!.split('.').every((o) => Number(o) <= 255) && (bits === undefined || Number(bits) <= 32);
    }
    return IPV6_CIDR.test(item) && (item.split('/')[1] === undefined || Number(item.split('/')[1]) <= 128);
  };
  if (items.length === 0 || !items.every(valid)) {
    throw new ConfigError('TRUST_PROXY', 'true, false, a hop count, or comma-separated addresses/CIDRs (loopback, linklocal, uniquelocal)', value);
  }
  return v;
}

/**
 * The value to give Express (`app.set('trust proxy', …)`) for a checked `TRUST_PROXY`: `true`/`false` as
 * booleans, a hop count as a number, an address list as the string; undefined stays undefined.
 */
export function trustProxyValue(setting: string | undefined): boolean | number | string | undefined {
  if (setting === undefined) return undefined;
  if (/^true$/i.test(setting)) return true;
  if (/^false$/i.test(setting)) return false;
  if (/^\d+$/.test(setting)) return Number(setting);
  return setting;
}

/** `0.0.0.0`, `::` and their other spellings: listen on every interface. */
function isWildcard(host: string): boolean {
  return /^(0+\.){3}0+$/.test(host) || /^[0:]+$/.test(host);
}

/**
 * Builds the frozen Config from an environment (default `process.env`) plus explicit overrides.
 * @throws ConfigError naming the variable when a value is malformed (`PORT must be an integer 1-65535, got "abc"`),
 *   checked at start-up, not per request (README.md, "Configuration").
 */
export function loadConfig(overrides: Partial<Config> = {}, env: Env = process.env): Config {
  const config: { -readonly [K in keyof Config]: Config[K] } = {
    databaseUrl: url(env, 'DATABASE_URL', ['postgres', 'postgresql']),
    databaseReadUrls: databaseReadUrls(env, url(env, 'DATABASE_URL', ['postgres', 'postgresql'])),
    databaseReadMaxLagMs: positiveInt(env, 'DATABASE_READ_MAX_LAG_MS', 5000),
    dataDir: path.resolve(env.FEEDBACK_DATA_DIR || './.data'),
    redisUrl: redisUrl(env),
    port: port(env),
    host: host(env),
    rateLimitPerMinute: positiveInt(env, 'RATE_LIMIT_PER_MINUTE', 60),
    authFailuresPerMinute: positiveInt(env, 'AUTH_FAILURES_PER_MINUTE', 60),
    logLevel: logLevel(env),
    bodyLimitBytes: 1024 * 1024,
    validateResponses: false,
    publicUrl: '',
    publicUrlGuessed: false,
    trustProxy: trustProxy(env),
    submissionsPerMinute: positiveInt(env, 'SUBMISSIONS_PER_MINUTE', 20),
    webhookAllowHttp: bool(env, 'WEBHOOK_ALLOW_HTTP', false),
    webhookAllowPrivate: bool(env, 'WEBHOOK_ALLOW_PRIVATE', false),
    webhookRetrySchedule: seconds(env, 'WEBHOOK_RETRY_SCHEDULE'),
    webhookLogRetentionDays: retentionDays(env, 'WEBHOOK_LOG_RETENTION_DAYS', DEFAULT_WEBHOOK_LOG_RETENTION_DAYS),
    auditRetentionDays: retentionDays(env, 'AUDIT_RETENTION_DAYS', DEFAULT_AUDIT_RETENTION_DAYS),
    eventRetentionDays: retentionDays(env, 'EVENT_RETENTION_DAYS', DEFAULT_EVENT_RETENTION_DAYS),
    metricsEnabled: bool(env, 'METRICS', true),
    sentimentEnabled: bool(env, 'SENTIMENT', true),
    styleBSunset: calendarDate(env, 'STYLE_B_SUNSET'),
    styleBDeprecatedAt: calendarDate(env, 'STYLE_B_DEPRECATED_AT'),
    ...httpTimeouts(env),
    connectionsPerAddress: nonNegativeInt(env, 'CONNECTIONS_PER_ADDRESS', HTTP_DEFAULTS.connectionsPerAddress),
    exportStallTimeoutMs: positiveInt(env, 'EXPORT_STALL_TIMEOUT_MS', EXPORT_DEFAULTS.stallTimeoutMs),
    exportsPerKey: positiveInt(env, 'EXPORTS_PER_KEY', EXPORT_DEFAULTS.perKey),
    exportsMax: positiveInt(env, 'EXPORTS_MAX', url(env, 'DATABASE_URL', ['postgres', 'postgresql']) === undefined ? 1 : EXPORT_DEFAULTS.maxOnPostgres),
    streamsPerKey: positiveInt(env, 'STREAMS_PER_KEY', LIVE_DEFAULTS.perKey),
    streamHeartbeatMs: positiveInt(env, 'STREAM_HEARTBEAT_MS', LIVE_DEFAULTS.heartbeatMs),
    streamBufferBytes: positiveInt(env, 'STREAM_BUFFER_BYTES', LIVE_DEFAULTS.maxBufferBytes),
    streamPollMs: positiveInt(env, 'STREAM_POLL_MS', LIVE_DEFAULTS.pollMs),
    responseDeleteInlineMax: positiveInt(env, 'RESPONSE_DELETE_INLINE_MAX', RESPONSE_DELETE_DEFAULTS.inlineMax),
    responseDeleteBatchSize: positiveInt(env, 'RESPONSE_DELETE_BATCH_SIZE', RESPONSE_DELETE_DEFAULTS.batchSize),
    ...overrides,
  };
  const publicUrl = url(env, 'PUBLIC_URL', ['http', 'https']);
  if (publicUrl !== undefined && (new URL(publicUrl).search !== '' || new URL(publicUrl).hash !== '')) {
    throw new ConfigError('PUBLIC_URL', 'a URL without query or fragment', publicUrl);
  }
  if (config.publicUrl === '') {
    // A wildcard listen address is no address to link to: localhost at least works on this machine.
    config.publicUrlGuessed = publicUrl === undefined && isWildcard(config.host);
    const host = config.publicUrlGuessed ? 'localhost' : config.host.includes(':') ? `[${config.host}]` : config.host;
    config.publicUrl = (publicUrl ?? `http://${host}:${config.port}`).replace(/\/+$/, '');
  }
  return Object.freeze(config);
}
