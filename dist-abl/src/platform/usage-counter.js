"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.createUsageCounter = createUsageCounter;
const usage_1 = require("../core/api-keys/usage");
function createUsageCounter(opts) {
    let pending = new Map();
    let flushing = Promise.resolve();
    let timer;
    const record = (keyId, style) => {
        const date = new Date().toISOString().slice(0, 10);
        const k = `${keyId}\n${date}\n${style}`;
        const c = pending.get(k);
        if (c)
            c.requests += 1;
        else
            pending.set(k, { keyId, date, style, requests: 1 });
    };
    const flushOnce = async () => {
        if (pending.size === 0)
            return;
        const batch = pending;
        pending = new Map();
        try {
            await (0, usage_1.addUsage)(opts.db, [...batch.values()]);
        }
        catch (err) {
            opts.logger.warn({ err }, 'could not write API key usage; kept for the next flush');
            for (const [k, c] of batch) {
                const now = pending.get(k);
                if (now)
                    now.requests += c.requests;
                else
                    pending.set(k, c);
            }
        }
    };
    const flush = () => (flushing = flushing.then(flushOnce));
    const ensureTimer = () => {
        if (timer)
            return;
        timer = setInterval(() => void flush(), opts.intervalMs ?? 2000);
        timer.unref();
    };
    return {
        middleware: () => (req, res, next) => {
            ensureTimer();
            // 'finish' when the answer is sent; 'close' alone when the client went away first. Counted once.
            let counted = false;
            const count = () => {
                if (counted || !req.auth)
                    return;
                counted = true;
                const style = String(res.getHeader('X-API-Style') ?? req.style).toUpperCase() === 'B' ? 'B' : 'A';
                record(req.auth.id, style);
            };
            res.once('finish', count);
            res.once('close', count);
            next();
        },
        flush,
        stop: async () => {
            if (timer)
                clearInterval(timer);
            timer = undefined;
            await flush();
        },
    };
}
//# sourceMappingURL=usage-counter.js.map