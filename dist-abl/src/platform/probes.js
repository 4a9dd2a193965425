"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.READY_CHECK_TIMEOUT_MS = void 0;
exports.healthz = healthz;
exports.readyz = readyz;
/** Budget of each readiness check, in milliseconds. */
exports.READY_CHECK_TIMEOUT_MS = 1_000;
/** Resolves 'ok' when `check` resolves within the budget, 'down' when it rejects or is late. */
async function within(check, ms) {
    let timer;
    const late = new Promise((resolve) => {
        timer = setTimeout(() => resolve('down'), ms);
    });
    try {
        return await Promise.race([check().then(() => 'ok', () => 'down'), late]);
    }
    finally {
        clearTimeout(timer);
    }
}
function healthz() {
    return (_req, res) => {
        res.setHeader('Cache-Control', 'no-store');
        res.json({ status: 'ok' });
    };
}
function readyz(deps) {
    return async (_req, res) => {
        const redis = deps.redis;
        const [database, redisCheck] = await Promise.all([
            within(() => deps.db.raw('select 1'), exports.READY_CHECK_TIMEOUT_MS),
            // The service's client (no offline queue) fails at once while disconnected instead of waiting.
            redis ? within(() => redis.ping(), exports.READY_CHECK_TIMEOUT_MS) : Promise.resolve('absent'),
        ]);
        const ok = database === 'ok' && redisCheck !== 'down';
        res.setHeader('Cache-Control', 'no-store');
        res.status(ok ? 200 : 503).json({ status: ok ? 'ok' : 'unavailable', checks: { database, redis: redisCheck } });
    };
}
//# sourceMappingURL=probes.js.map