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

/**
 * Builds the frozen Config from an environment (default `process.env`) plus explicit overrides.
 * @throws Error naming the variable when a value is malformed (checked at start-up, not per request).
 */
export function loadConfig(overrides: Partial<Config> = {}, env: Env = process.env): Config {
  const empty = (v: string | undefined) => (v === undefined || v === '' ? undefined : v);
  const config: Config = {
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
    ...overrides,
  };
  return Object.freeze(config);
}
