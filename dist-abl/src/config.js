"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.SETTINGS = exports.ConfigError = void 0;
exports.trustProxyValue = trustProxyValue;
exports.loadConfig = loadConfig;
/**
 * Service configuration, read from the environment exactly once (CONTRACT section 1).
 * Nothing else in the code reads `process.env`; tests build their own Config with `loadConfig({...})`.
 */
const node_path_1 = __importDefault(require("node:path"));
const dates_1 = require("./core/query/dates");
/** A setting with a bad value; the message names the environment variable (CONTRACT section 14). */
class ConfigError extends Error {
    constructor(name, expected, raw) {
        super(`${name} must be ${expected}, got ${JSON.stringify(raw)}`);
        this.name = 'ConfigError';
    }
}
exports.ConfigError = ConfigError;
/** Every environment setting with its default, for `serve --help` (CONTRACT section 1). */
exports.SETTINGS = [
    { name: 'DATABASE_URL', meaning: 'PostgreSQL URL (postgres:// or postgresql://)', fallback: 'unset: embedded PostgreSQL (PGlite) in FEEDBACK_DATA_DIR' },
    { name: 'FEEDBACK_DATA_DIR', meaning: 'folder of the embedded database', fallback: './.data' },
    { name: 'REDIS_URL', meaning: 'Redis for rate limits and idempotency, shared by every instance (redis:// or rediss://)', fallback: 'unset: in-process (one instance only)' },
    { name: 'PORT', meaning: 'listen port, 1-65535', fallback: '3000' },
    { name: 'HOST', meaning: 'listen address', fallback: '127.0.0.1' },
    { name: 'RATE_LIMIT_PER_MINUTE', meaning: 'requests per minute per key without a limit of its own', fallback: '60' },
    { name: 'AUTH_FAILURES_PER_MINUTE', meaning: 'requests with a missing or unknown key per minute per client address', fallback: '60' },
    { name: 'LOG_LEVEL', meaning: 'pino level: fatal, error, warn, info, debug, trace or silent', fallback: 'info' },
    { name: 'PUBLIC_URL', meaning: 'base of every link the service prints (http:// or https://)', fallback: 'http://{HOST}:{PORT}' },
    { name: 'TRUST_PROXY', meaning: 'Express "trust proxy": true, false, a hop count, or addresses/CIDRs/loopback,linklocal,uniquelocal', fallback: 'unset: X-Forwarded-For is ignored' },
    { name: 'SUBMISSIONS_PER_MINUTE', meaning: 'public submissions per minute per client address and form', fallback: '20' },
    { name: 'WEBHOOK_ALLOW_HTTP', meaning: 'allow http:// webhook URLs (true/false)', fallback: 'false' },
    { name: 'WEBHOOK_ALLOW_PRIVATE', meaning: 'allow webhook URLs on private or loopback addresses (true/false)', fallback: 'false' },
    { name: 'WEBHOOK_RETRY_SCHEDULE', meaning: 'comma-separated seconds before each webhook retry', fallback: 'the default schedule' },
    { name: 'METRICS', meaning: '"off" hides /metrics (on/off)', fallback: 'on' },
    { name: 'STYLE_B_SUNSET', meaning: 'date (YYYY-MM-DD) that turns on the Style B deprecation headers', fallback: 'unset' },
    { name: 'STYLE_B_DEPRECATED_AT', meaning: 'date (YYYY-MM-DD) of the Style B deprecation', fallback: '180 days before STYLE_B_SUNSET' },
];
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
function raw(env, name) {
    const v = env[name];
    return v === undefined || v.trim() === '' ? undefined : v;
}
function positiveInt(env, name, fallback) {
    const value = raw(env, name);
    if (value === undefined)
        return fallback;
    if (!/^\s*[1-9]\d*\s*$/.test(value) || !Number.isSafeInteger(Number(value))) {
        throw new ConfigError(name, 'a positive integer', value);
    }
    return Number(value);
}
function port(env) {
    const value = raw(env, 'PORT');
    if (value === undefined)
        return 3000;
    const n = Number(value);
    if (!/^\s*\d+\s*$/.test(value) || n < 1 || n > 65535)
        throw new ConfigError('PORT', 'an integer 1-65535', value);
    return n;
}
function host(env) {
    const value = raw(env, 'HOST');
    if (value === undefined)
        return '127.0.0.1';
    // A host name or an IPv4/IPv6 address, no scheme, port or spaces.
    if (!/^[A-Za-z0-9.\-]+$/.test(value) && !/^[0-9A-Fa-f:.]+(%[A-Za-z0-9]+)?$/.test(value)) {
        throw new ConfigError('HOST', 'a host name or an IP address (no scheme or port)', value);
    }
    return value;
}
function url(env, name, schemes) {
    const value = raw(env, name);
    if (value === undefined)
        return undefined;
    let parsed;
    try {
        parsed = new URL(value.trim());
    }
    catch {
        parsed = undefined;
    }
    if (!parsed || !schemes.includes(parsed.protocol.replace(/:$/, '')) || parsed.host === '') {
        throw new ConfigError(name, `a URL starting with ${schemes.map((s) => `${s}://`).join(' or ')}`, value);
    }
    return value.trim();
}
function bool(env, name, fallback) {
    const value = raw(env, name);
    if (value === undefined)
        return fallback;
    const v = value.trim().toLowerCase();
    if (v === 'true' || v === '1' || v === 'yes' || v === 'on')
        return true;
    if (v === 'false' || v === '0' || v === 'no' || v === 'off')
        return false;
    throw new ConfigError(name, name === 'METRICS' ? 'on or off' : 'true or false', value);
}
function seconds(env, name) {
    const value = raw(env, name);
    if (value === undefined)
        return undefined;
    const parts = value.split(',').map((p) => p.trim());
    if (parts.some((p) => !/^\d+(\.\d+)?$/.test(p))) {
        throw new ConfigError(name, 'comma-separated seconds (e.g. "1,2,5")', value);
    }
    return parts.map(Number);
}
function calendarDate(env, name) {
    const value = raw(env, name);
    if (value === undefined)
        return undefined;
    const v = value.trim();
    if (!(0, dates_1.isCalendarDate)(v))
        throw new ConfigError(name, 'a date YYYY-MM-DD', value);
    return v;
}
function logLevel(env) {
    const value = raw(env, 'LOG_LEVEL');
    if (value === undefined)
        return 'info';
    const v = value.trim().toLowerCase();
    if (!LOG_LEVELS.includes(v))
        throw new ConfigError('LOG_LEVEL', `one of ${LOG_LEVELS.join(', ')}`, value);
    return v;
}
const IPV4_CIDR = /^(\d{1,3})(\.\d{1,3}){3}(\/\d{1,2})?$/;
const IPV6_CIDR = /^[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*(\/\d{1,3})?$/;
/** Checks a value Express accepts for `trust proxy`: true/false, a hop count, or a list of addresses. */
function trustProxy(env) {
    const value = raw(env, 'TRUST_PROXY');
    if (value === undefined)
        return undefined;
    const v = value.trim();
    if (/^(true|false)$/i.test(v) || /^\d+$/.test(v))
        return v;
    const items = v.split(',').map((p) => p.trim());
    const valid = (item) => {
        if (['loopback', 'linklocal', 'uniquelocal'].includes(item))
            return true;
        if (IPV4_CIDR.test(item)) {
            const [addr, bits] = item.split('/');
            return addr.split('.').every((o) => Number(o) <= 255) && (bits === undefined || Number(bits) <= 32);
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
function trustProxyValue(setting) {
    if (setting === undefined)
        return undefined;
    if (/^true$/i.test(setting))
        return true;
    if (/^false$/i.test(setting))
        return false;
    if (/^\d+$/.test(setting))
        return Number(setting);
    return setting;
}
/**
 * Builds the frozen Config from an environment (default `process.env`) plus explicit overrides.
 * @throws ConfigError naming the variable when a value is malformed (`PORT must be an integer 1-65535, got "abc"`),
 *   checked at start-up, not per request (CONTRACT section 14).
 */
function loadConfig(overrides = {}, env = process.env) {
    const config = {
        databaseUrl: url(env, 'DATABASE_URL', ['postgres', 'postgresql']),
        dataDir: node_path_1.default.resolve(env.FEEDBACK_DATA_DIR || './.data'),
        redisUrl: url(env, 'REDIS_URL', ['redis', 'rediss']),
        port: port(env),
        host: host(env),
        rateLimitPerMinute: positiveInt(env, 'RATE_LIMIT_PER_MINUTE', 60),
        authFailuresPerMinute: positiveInt(env, 'AUTH_FAILURES_PER_MINUTE', 60),
        logLevel: logLevel(env),
        bodyLimitBytes: 1024 * 1024,
        validateResponses: false,
        publicUrl: '',
        trustProxy: trustProxy(env),
        submissionsPerMinute: positiveInt(env, 'SUBMISSIONS_PER_MINUTE', 20),
        webhookAllowHttp: bool(env, 'WEBHOOK_ALLOW_HTTP', false),
        webhookAllowPrivate: bool(env, 'WEBHOOK_ALLOW_PRIVATE', false),
        webhookRetrySchedule: seconds(env, 'WEBHOOK_RETRY_SCHEDULE'),
        metricsEnabled: bool(env, 'METRICS', true),
        styleBSunset: calendarDate(env, 'STYLE_B_SUNSET'),
        styleBDeprecatedAt: calendarDate(env, 'STYLE_B_DEPRECATED_AT'),
        ...overrides,
    };
    const publicUrl = url(env, 'PUBLIC_URL', ['http', 'https']);
    if (publicUrl !== undefined && (new URL(publicUrl).search !== '' || new URL(publicUrl).hash !== '')) {
        throw new ConfigError('PUBLIC_URL', 'a URL without query or fragment', publicUrl);
    }
    if (config.publicUrl === '') {
        const host = config.host.includes(':') ? `[${config.host}]` : config.host;
        config.publicUrl = (publicUrl ?? `http://${host}:${config.port}`).replace(/\/+$/, '');
    }
    return Object.freeze(config);
}
//# sourceMappingURL=config.js.map