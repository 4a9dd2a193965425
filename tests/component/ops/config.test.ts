/**
 * Start-up checks of every setting (README.md, "Configuration"): one message naming the environment variable,
 * `NAME must be …, got "value"`; good values load. TRUST_PROXY reaches Express in a form it accepts.
 */
import supertest from 'supertest';
import { buildApp } from '../../../src/app';
import { loadConfig, trustProxyValue } from '../../../src/config';
import { createLogger } from '../../../src/platform/logger';
import { openTestDb } from '../../support/db';

const bad: Array<[Record<string, string>, string]> = [
  [{ PORT: 'abc' }, 'PORT must be an integer 1-65535, got "abc"'],
  [{ PORT: '0' }, 'PORT must be an integer 1-65535, got "0"'],
  [{ PORT: '65536' }, 'PORT must be an integer 1-65535, got "65536"'],
  [{ HOST: 'http://0.0.0.0' }, 'HOST must be a host name or an IP address (no scheme or port), got "http://0.0.0.0"'],
  [{ DATABASE_URL: 'mysql://db/x' }, 'DATABASE_URL must be a URL starting with postgres:// or postgresql://, got "mysql://db/x"'],
  [
    { REDIS_URL: 'localhost:6379' },
    'REDIS_URL must be a URL starting with redis:// or rediss://, a Sentinel URL redis+sentinel://[user:password@]host:port[,host:port...]/<master name>[?db=N] ' +
      '(or rediss+sentinel://), or a Cluster URL redis+cluster://[user:password@]host:port[,host:port...] (or rediss+cluster://; a cluster has only database 0), ' +
      'got "localhost:6379"',
  ],
  [{ PUBLIC_URL: 'feedback.example.com' }, 'PUBLIC_URL must be a URL starting with http:// or https://, got "feedback.example.com"'],
  [{ PUBLIC_URL: 'https://x.example/?a=1' }, 'PUBLIC_URL must be a URL without query or fragment, got "https://x.example/?a=1"'],
  [{ RATE_LIMIT_PER_MINUTE: '0' }, 'RATE_LIMIT_PER_MINUTE must be a positive integer, got "0"'],
  [{ AUTH_FAILURES_PER_MINUTE: '1.5' }, 'AUTH_FAILURES_PER_MINUTE must be a positive integer, got "1.5"'],
  [{ SUBMISSIONS_PER_MINUTE: 'ten' }, 'SUBMISSIONS_PER_MINUTE must be a positive integer, got "ten"'],
  [{ LOG_LEVEL: 'verbose' }, 'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "verbose"'],
  [
    { TRUST_PROXY: 'yes please' },
    'TRUST_PROXY must be true, false, a hop count, or comma-separated addresses/CIDRs (loopback, linklocal, uniquelocal), got "yes please"',
  ],
  [
    { TRUST_PROXY: '10.0.0.0/33' },
    'TRUST_PROXY must be true, false, a hop count, or comma-separated addresses/CIDRs (loopback, linklocal, uniquelocal), got "10.0.0.0/33"',
  ],
  [{ WEBHOOK_ALLOW_HTTP: 'maybe' }, 'WEBHOOK_ALLOW_HTTP must be true or false, got "maybe"'],
  [{ WEBHOOK_ALLOW_PRIVATE: '2' }, 'WEBHOOK_ALLOW_PRIVATE must be true or false, got "2"'],
  [{ WEBHOOK_RETRY_SCHEDULE: '10,-5' }, 'WEBHOOK_RETRY_SCHEDULE must be comma-separated seconds (e.g. "1,2,5"), got "10,-5"'],
  [{ METRICS: 'disabled' }, 'METRICS must be on or off, got "disabled"'],
  [{ WEBHOOK_LOG_RETENTION_DAYS: '0' }, 'WEBHOOK_LOG_RETENTION_DAYS must be a whole number of days 1-36500, got "0"'],
  [{ WEBHOOK_LOG_RETENTION_DAYS: '7.5' }, 'WEBHOOK_LOG_RETENTION_DAYS must be a whole number of days 1-36500, got "7.5"'],
  [{ WEBHOOK_LOG_RETENTION_DAYS: '36501' }, 'WEBHOOK_LOG_RETENTION_DAYS must be a whole number of days 1-36500, got "36501"'],
  [{ STYLE_B_SUNSET: '2027-02-30' }, 'STYLE_B_SUNSET must be a date YYYY-MM-DD, got "2027-02-30"'],
  [{ STYLE_B_DEPRECATED_AT: '01/06/2027' }, 'STYLE_B_DEPRECATED_AT must be a date YYYY-MM-DD, got "01/06/2027"'],
  [{ HTTP_HEADERS_TIMEOUT_MS: '0' }, 'HTTP_HEADERS_TIMEOUT_MS must be a positive integer, got "0"'],
  [
    { HTTP_REQUEST_TIMEOUT_MS: '5000', HTTP_HEADERS_TIMEOUT_MS: '10000' },
    'HTTP_REQUEST_TIMEOUT_MS must be at least HTTP_HEADERS_TIMEOUT_MS (10000), got "5000"',
  ],
  [{ HTTP_KEEP_ALIVE_TIMEOUT_MS: '5s' }, 'HTTP_KEEP_ALIVE_TIMEOUT_MS must be a positive integer, got "5s"'],
  [{ CONNECTIONS_PER_ADDRESS: '-1' }, 'CONNECTIONS_PER_ADDRESS must be a whole number (0 or more), got "-1"'],
  [{ EXPORT_STALL_TIMEOUT_MS: '0' }, 'EXPORT_STALL_TIMEOUT_MS must be a positive integer, got "0"'],
  [{ EXPORTS_PER_KEY: 'two' }, 'EXPORTS_PER_KEY must be a positive integer, got "two"'],
  [{ EXPORTS_MAX: '0' }, 'EXPORTS_MAX must be a positive integer, got "0"'],
];

it.each(bad)('refuses %j with one line naming the variable', (env, message) => {
  expect(() => loadConfig({}, env)).toThrow(new Error(message));
});

it('loads good values of every setting', () => {
  const c = loadConfig(
    {},
    {
      PORT: '8080',
      HOST: '0.0.0.0',
      DATABASE_URL: 'postgresql://app@db:5432/feedback',
      REDIS_URL: 'rediss://cache:6380/0',
      PUBLIC_URL: 'https://feedback.example.com/',
      RATE_LIMIT_PER_MINUTE: '120',
      LOG_LEVEL: 'WARN',
      TRUST_PROXY: '10.0.0.0/8, loopback, ::1',
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_RETRY_SCHEDULE: '1, 5,30',
      WEBHOOK_LOG_RETENTION_DAYS: '90',
      METRICS: 'off',
      STYLE_B_SUNSET: '2027-06-30',
    },
  );
  expect(c).toMatchObject({
    port: 8080,
    host: '0.0.0.0',
    databaseUrl: 'postgresql://app@db:5432/feedback',
    redisUrl: 'rediss://cache:6380/0',
    publicUrl: 'https://feedback.example.com',
    rateLimitPerMinute: 120,
    logLevel: 'warn',
    trustProxy: '10.0.0.0/8, loopback, ::1',
    webhookAllowHttp: true,
    webhookRetrySchedule: [1, 5, 30],
    webhookLogRetentionDays: 90,
    metricsEnabled: false,
    styleBSunset: '2027-06-30',
  });
  expect(loadConfig({}, {})).toMatchObject({
    port: 3000,
    host: '127.0.0.1',
    metricsEnabled: true,
    trustProxy: undefined,
    logLevel: 'info',
    webhookLogRetentionDays: 30,
  });
});

it('loads the slow-client and export settings, with their defaults (docs/operations.md, "Slow clients")', () => {
  expect(loadConfig({}, { DATABASE_URL: 'postgres://db/x' })).toMatchObject({
    httpHeadersTimeoutMs: 10_000,
    httpRequestTimeoutMs: 30_000,
    httpKeepAliveTimeoutMs: 5_000,
    connectionsPerAddress: 64,
    exportStallTimeoutMs: 30_000,
    exportsPerKey: 2,
    exportsMax: 4,
  });
  // The embedded database has one connection: one export at a time.
  expect(loadConfig({}, {}).exportsMax).toBe(1);
  const c = loadConfig(
    {},
    {
      HTTP_HEADERS_TIMEOUT_MS: '40000',
      HTTP_KEEP_ALIVE_TIMEOUT_MS: '65000',
      CONNECTIONS_PER_ADDRESS: '0',
      EXPORT_STALL_TIMEOUT_MS: '5000',
      EXPORTS_PER_KEY: '1',
      EXPORTS_MAX: '3',
    },
  );
  // A headers timeout above the request timeout's default lifts that default with it.
  expect(c).toMatchObject({
    httpHeadersTimeoutMs: 40_000,
    httpRequestTimeoutMs: 40_000,
    httpKeepAliveTimeoutMs: 65_000,
    connectionsPerAddress: 0,
    exportStallTimeoutMs: 5_000,
    exportsPerKey: 1,
    exportsMax: 3,
  });
});

it('gives Express a trust proxy value it accepts, so X-Forwarded-For counts only when configured', async () => {
  expect(trustProxyValue('true')).toBe(true);
  expect(trustProxyValue('FALSE')).toBe(false);
  expect(trustProxyValue('2')).toBe(2);
  expect(trustProxyValue('loopback, 10.0.0.0/8')).toBe('loopback, 10.0.0.0/8');
  const db = await openTestDb();
  try {
    const logger = createLogger('silent');
    for (const [setting, budgetPerSender] of [
      ['loopback', true],
      [undefined, false],
    ] as const) {
      const app = buildApp(loadConfig({ trustProxy: setting, authFailuresPerMinute: 1, logLevel: 'silent' }, {}), { db, logger });
      const from = (ip: string) => supertest(app).get('/api/v1/workspaces').set('X-Forwarded-For', ip);
      expect((await from('203.0.113.1')).status).toBe(401);
      // Behind a trusted proxy another client has its own budget; otherwise all share the proxy's.
      expect((await from('203.0.113.2')).status).toBe(budgetPerSender ? 401 : 429);
    }
  } finally {
    await db.destroy();
  }
});
