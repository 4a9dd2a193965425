"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.redisIdempotencyStore = redisIdempotencyStore;
exports.memoryIdempotencyStore = memoryIdempotencyStore;
exports.canonicalJson = canonicalJson;
exports.idempotency = idempotency;
/**
 * Idempotency keys (CONTRACT section 5; STYLE section 7). On POST, PATCH and DELETE with an
 * `Idempotency-Key` header (1..255 printable characters), the answer is recorded for 24 h, scoped to
 * the API key: the same key with the same method, path and body (canonical JSON) replays the stored
 * status, headers and exact body bytes with `Idempotent-Replayed: true`; another method, path or
 * body is 409 idempotency_replay; the same key while the first request still runs is 409 conflict.
 * 5xx answers are not stored, so a retry runs again. Records live in Redis (shared by every
 * instance) or, without Redis, in an in-process map with the same semantics. If Redis fails, the
 * request runs without idempotency (logged) rather than failing.
 */
const node_crypto_1 = require("node:crypto");
const errors_1 = require("../core/errors");
const TTL_MS = 24 * 60 * 60 * 1000;
/** A request still running holds its key this long at most: a crashed instance frees it, not after 24 h. */
const IN_FLIGHT_TTL_MS = 5 * 60 * 1000;
const METHODS = new Set(['POST', 'PATCH', 'DELETE']);
const PRINTABLE = /^[\x20-\x7e]{1,255}$/;
/** Response headers replayed with the body (rate-limit, request id and style headers are the new request's). */
const STORED_HEADERS = ['content-type', 'location'];
/** Redis store: `SET key value NX PX ttl` takes the lock atomically on every instance. */
function redisIdempotencyStore(redis) {
    return {
        async setIfAbsent(key, value, ttlMs) {
            return (await redis.set(key, value, 'PX', ttlMs, 'NX')) === 'OK';
        },
        get: (key) => redis.get(key),
        async set(key, value, ttlMs) {
            await redis.set(key, value, 'PX', ttlMs);
        },
        async delete(key) {
            await redis.del(key);
        },
    };
}
/** In-process store with TTL (one instance only): the check and the set run in one tick. */
function memoryIdempotencyStore(now = Date.now) {
    const entries = new Map();
    const live = (key) => {
        const e = entries.get(key);
        if (e && e.expiresAt <= now()) {
            entries.delete(key);
            return undefined;
        }
        return e;
    };
    let writes = 0;
    const sweep = () => {
        if (++writes % 1000 !== 0)
            return;
        for (const key of [...entries.keys()])
            live(key);
    };
    return {
        async setIfAbsent(key, value, ttlMs) {
            if (live(key))
                return false;
            entries.set(key, { value, expiresAt: now() + ttlMs });
            sweep();
            return true;
        },
        async get(key) {
            return live(key)?.value ?? null;
        },
        async set(key, value, ttlMs) {
            entries.set(key, { value, expiresAt: now() + ttlMs });
            sweep();
        },
        async delete(key) {
            entries.delete(key);
        },
    };
}
/** JSON with object keys sorted at every level, so `{"a":1,"b":2}` and `{"b":2,"a":1}` are one body. */
function canonicalJson(value) {
    if (Array.isArray(value))
        return `[${value.map(canonicalJson).join(',')}]`;
    if (value !== null && typeof value === 'object') {
        const obj = value;
        return `{${Object.keys(obj)
            .filter((k) => obj[k] !== undefined)
            .sort()
            .map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`)
            .join(',')}}`;
    }
    return JSON.stringify(value) ?? 'null';
}
const sha256 = (s) => (0, node_crypto_1.createHash)('sha256').update(s, 'utf8').digest('hex');
/**
 * Collects the bytes the handler writes and calls `done` with status, headers and body before the
 * answer is finished, so a retry that arrives after the answer always finds the stored record.
 */
function capture(res, done) {
    const chunks = [];
    const toBuffer = (chunk, encoding) => {
        if (chunk === undefined || chunk === null || typeof chunk === 'function')
            return undefined;
        if (Buffer.isBuffer(chunk))
            return chunk;
        if (chunk instanceof Uint8Array)
            return Buffer.from(chunk);
        return Buffer.from(String(chunk), typeof encoding === 'string' ? encoding : 'utf8');
    };
    const write = res.write.bind(res);
    const end = res.end.bind(res);
    res.write = (...args) => {
        const b = toBuffer(args[0], args[1]);
        if (b)
            chunks.push(b);
        return write(...args);
    };
    res.end = (...args) => {
        const b = toBuffer(args[0], args[1]);
        if (b)
            chunks.push(b);
        const headers = {};
        for (const name of STORED_HEADERS) {
            const v = res.getHeader(name);
            if (v !== undefined)
                headers[name] = Array.isArray(v) ? v.join(', ') : String(v);
        }
        done(res.statusCode, headers, Buffer.concat(chunks)).finally(() => end(...args));
        return res;
    };
}
/**
 * The idempotency middleware; runs after the auth, access and validation steps (so `req.auth` is
 * set and invalid requests never take a lock).
 * @throws AppError validation_error naming the `Idempotency-Key` header when it is empty, longer
 * than 255 characters or not printable ASCII; idempotency_replay (409) for another method, path or
 * body; conflict (409, details "in progress") while the first request runs.
 */
function idempotency(opts) {
    const store = opts.store ?? (opts.redis ? redisIdempotencyStore(opts.redis) : memoryIdempotencyStore());
    const prefix = `${opts.prefix ?? 'fs'}:idem`;
    return async (req, res, next) => {
        const header = req.get('Idempotency-Key');
        if (header === undefined || !METHODS.has(req.method)) {
            next();
            return;
        }
        if (!PRINTABLE.test(header)) {
            throw errors_1.errors.invalid('header', 'Idempotency-Key', '`Idempotency-Key` must be 1 to 255 printable ASCII characters.');
        }
        const log = req.log ?? opts.logger;
        const scope = opts.scope ? `s:${sha256(opts.scope(req))}` : (req.auth?.id ?? 'anonymous');
        const recordKey = `${prefix}:${scope}:${sha256(header)}`;
        const path = req.originalUrl.split('?')[0] ?? req.originalUrl;
        const fingerprint = sha256(`${req.method}\n${path}\n${req.body === undefined ? '' : canonicalJson(req.body)}`);
        let record;
        try {
            const inFlight = { state: 'in_flight', fingerprint };
            if (!(await store.setIfAbsent(recordKey, JSON.stringify(inFlight), IN_FLIGHT_TTL_MS))) {
                const raw = await store.get(recordKey);
                // Expired or deleted between the two calls: run without a record rather than guess.
                record = raw === null ? undefined : JSON.parse(raw);
                if (record === undefined) {
                    log.warn({ request_id: req.requestId }, 'idempotency record vanished; running the request without it');
                    next();
                    return;
                }
            }
        }
        catch (err) {
            // debug, not warn: a Redis outage is logged once by platform/redis.ts, not per request.
            log.debug({ err, request_id: req.requestId }, 'idempotency store unavailable; running the request without idempotency');
            next();
            return;
        }
        if (record) {
            if (record.fingerprint !== fingerprint)
                throw errors_1.errors.idempotencyReplay();
            if (record.state === 'in_flight') {
                throw errors_1.errors.conflict('A request with this Idempotency-Key is still in progress; retry when it has finished.', [
                    { location: 'header', field: 'Idempotency-Key', message: 'The first request with this `Idempotency-Key` is still in progress.' },
                ]);
            }
            res.status(record.status);
            for (const [name, value] of Object.entries(record.headers))
                res.setHeader(name, value);
            res.setHeader('Idempotent-Replayed', 'true');
            res.end(Buffer.from(record.body, 'base64'));
            return;
        }
        let settled = false;
        capture(res, (status, headers, body) => {
            settled = true;
            const write = status >= 500
                ? store.delete(recordKey)
                : store.set(recordKey, JSON.stringify({ state: 'done', fingerprint, status, headers, body: body.toString('base64') }), TTL_MS);
            return write.catch((err) => log.warn({ err, request_id: req.requestId }, 'could not store the idempotent answer'));
        });
        // A request that ends without an answer (client gone, crash in a stream) frees its key.
        res.on('close', () => {
            if (!settled)
                store.delete(recordKey).catch(() => undefined);
        });
        next();
    };
}
//# sourceMappingURL=idempotency.js.map