/**
 * Service configuration, read from the environment exactly once (CONTRACT section 1).
 * Nothing else in the code reads `process.env`; tests build their own Config with `loadConfig({...})`.
 */
import path from 'node:path';

export interface Config {
  /** PostgreSQL URL; undefined means the embedded PGlite database in `dataDir`. */
  readonly databaseUrl: string | undefined;
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
  /** Base of every link the service prints or mints (CONTRACT sections 1, 11); no trailing slash. */
  readonly publicUrl: string;
  /** Express `trust proxy` value; undefined: client addresses are the sockets' (CONTRACT section 11). */
  readonly trustProxy: string | undefined;
  /** Public submissions per minute per client address and form (CONTRACT section 11). */
  readonly submissionsPerMinute: number;
  /** Webhook delivery (CONTRACT section 13): allow http:// URLs. */
  readonly webhookAllowHttp: boolean;
  /** Webhook delivery: allow loopback, private and other non-public addresses. */
  readonly webhookAllowPrivate: boolean;
  /** Delays in seconds before each retry; undefined: the contract's default schedule. */
  readonly webhookRetrySchedule: readonly number[] | undefined;
  /** `METRICS=off` hides /metrics (CONTRACT section 14). */
  readonly metricsEnabled: boolean;
  /** `STYLE_B_SUNSET` (YYYY-MM-DD): turns on the Style B deprecation headers (CONTRACT section 15). */
  readonly styleBSunset: string | undefined;
  /** `STYLE_B_DEPRECATED_AT` (YYYY-MM-DD); default 180 days before the sunset. */
  readonly styleBDeprecatedAt: string | undefined;
}

type Env = Record<string, string | undefined>;

function positiveInt(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) {
    throw new Error(`${name} must be a positive integer; got "${raw}"`);
  }
  return n;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const v = raw.trim().toLowerCase();
  if (v === 'true' || v === '1' || v === 'yes' || v === 'on') return true;
  if (v === 'false' || v === '0' || v === 'no' || v === 'off') return false;
  throw new Error(`${name} must be true or false; got "${raw}"`);
}

function seconds(env: Env, name: string): number[] | undefined {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  const parts = raw.split(',').map((p) => Number(p.trim()));
  if (parts.some((n) => !Number.isFinite(n) || n < 0)) {
    throw new Error(`${name} must be comma-separated seconds (e.g. "1,2,5"); got "${raw}"`);
  }
  return parts;
}

/**
 * Builds the frozen Config from an environment (default `process.env`) plus explicit overrides.
 * @throws Error naming the variable when a value is malformed (checked at start-up, not per request).
 */
export function loadConfig(overrides: Partial<Config> = {}, env: Env = process.env): Config {
  const empty = (v: string | undefined) => (v === undefined || v === '' ? undefined : v);
  const config: { -readonly [K in keyof Config]: Config[K] } = {
    databaseUrl: empty(env.DATABASE_URL),
    dataDir: path.resolve(env.FEEDBACK_DATA_DIR || './.data'),
    redisUrl: empty(env.REDIS_URL),
    port: positiveInt(env, 'PORT', 3000),
    host: env.HOST || '127.0.0.1',
    rateLimitPerMinute: positiveInt(env, 'RATE_LIMIT_PER_MINUTE', 60),
    authFailuresPerMinute: positiveInt(env, 'AUTH_FAILURES_PER_MINUTE', 60),
    logLevel: env.LOG_LEVEL || 'info',
    bodyLimitBytes: 1024 * 1024,
    validateResponses: false,
    publicUrl: '',
    trustProxy: empty(env.TRUST_PROXY),
    submissionsPerMinute: positiveInt(env, 'SUBMISSIONS_PER_MINUTE', 20),
    webhookAllowHttp: bool(env, 'WEBHOOK_ALLOW_HTTP', false),
    webhookAllowPrivate: bool(env, 'WEBHOOK_ALLOW_PRIVATE', false),
    webhookRetrySchedule: seconds(env, 'WEBHOOK_RETRY_SCHEDULE'),
    metricsEnabled: env.METRICS?.trim().toLowerCase() !== 'off',
    styleBSunset: empty(env.STYLE_B_SUNSET),
    styleBDeprecatedAt: empty(env.STYLE_B_DEPRECATED_AT),
    ...overrides,
  };
  if (config.publicUrl === '') {
    const host = config.host.includes(':') ? `[${config.host}]` : config.host;
    config.publicUrl = (empty(env.PUBLIC_URL) ?? `http://${host}:${config.port}`).replace(/\/+$/, '');
  }
  return Object.freeze(config);
}
