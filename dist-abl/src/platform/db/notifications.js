"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.listenToChannel = listenToChannel;
/**
 * PostgreSQL LISTEN for one channel, on PostgreSQL and on the embedded PGlite alike.
 *
 * - PostgreSQL: a dedicated `pg.Client` (outside the knex pool, which would hand the connection to
 *   requests) that LISTENs and reconnects after a lost connection (1 s, then up to every 5 s). Its
 *   socket does not keep the process alive.
 * - PGlite: the process's own instance (`pglite.listen`), so no extra connection.
 *
 * One connection per database handle and channel, shared by every subscriber, and closed with the
 * handle (`db.destroy()`), so nothing outlives the pool it belongs to.
 *
 * `onReset` runs whenever notices may have been missed (the connection was lost or is back): a
 * subscriber that caches must then drop what it holds. Used by the API key cache (issue 11).
 */
const pg_1 = __importDefault(require("pg"));
const connection_1 = require("./connection");
const RECONNECT_MIN_MS = 1_000;
const RECONNECT_MAX_MS = 5_000;
const channels = new WeakMap();
/**
 * Subscribes to notices on `channel` (a plain identifier). Never throws: a failed connection is logged
 * at `warn` once per outage and retried in the background.
 */
function listenToChannel(opts) {
    const { db, channel, logger } = opts;
    let perDb = channels.get(db);
    if (!perDb) {
        const map = new Map();
        perDb = map;
        channels.set(db, map);
        // The connections live as long as the handle: destroying it stops them first.
        // (knex's own destroy() is read-only; it ends in its client's destroy(), which is not.)
        const client = db.client;
        const destroy = client.destroy.bind(client);
        client.destroy = async (...args) => {
            channels.delete(db);
            await Promise.all([...map.values()].map((c) => c.listener.stop()));
            return destroy(...args);
        };
    }
    let entry = perDb.get(channel);
    if (!entry) {
        const subscribers = new Set();
        const fanOut = {
            onNotice: (payload) => subscribers.forEach((s) => s.onNotice(payload)),
            onReset: () => subscribers.forEach((s) => s.onReset()),
        };
        const listen = (0, connection_1.isEmbedded)(db) ? listenEmbedded : listenPostgres;
        entry = { subscribers, listener: listen(db, channel, logger, fanOut) };
        perDb.set(channel, entry);
    }
    const me = { onNotice: opts.onNotice, onReset: opts.onReset };
    entry.subscribers.add(me);
    const { subscribers } = entry;
    return { unsubscribe: () => subscribers.delete(me) };
}
function listenEmbedded(db, channel, logger, opts) {
    const pglite = db.client.pglite;
    let unlisten = Promise.resolve(undefined);
    if (pglite) {
        unlisten = pglite.listen(channel, opts.onNotice).catch((err) => {
            logger.warn({ err, channel }, 'could not LISTEN on the embedded database');
            return undefined;
        });
    }
    return {
        async stop() {
            const stop = await unlisten;
            await stop?.().catch(() => undefined);
        },
    };
}
function listenPostgres(db, channel, logger, opts) {
    const connection = db.client.config.connection;
    const config = typeof connection === 'string' ? { connectionString: connection } : { ...connection };
    let client;
    let listening = false;
    let stopped = false;
    let warned = false;
    let delay = RECONNECT_MIN_MS;
    let timer;
    const lost = (err) => {
        if (stopped)
            return;
        const wasListening = listening;
        listening = false;
        client?.removeAllListeners();
        client?.end().catch(() => undefined);
        client = undefined;
        if (wasListening)
            opts.onReset();
        if (!warned) {
            warned = true;
            logger.warn({ err, channel }, 'LISTEN connection lost: retrying in the background');
        }
        timer = setTimeout(connect, delay);
        timer.unref();
        delay = Math.min(delay * 2, RECONNECT_MAX_MS);
    };
    const connect = () => {
        if (stopped)
            return;
        const c = new pg_1.default.Client({ ...config, application_name: 'feedback-service-listen', keepAlive: true });
        client = c;
        c.on('error', lost);
        c.on('end', () => lost());
        c.on('notification', (n) => {
            if (n.channel === channel)
                opts.onNotice(n.payload ?? '');
        });
        c.connect()
            .then(() => {
            // An idle LISTEN connection must not keep a process alive that has nothing else to do.
            c.connection?.stream?.unref?.();
            return c.query(`LISTEN ${channel}`);
        })
            .then(() => {
            if (stopped || client !== c)
                return;
            listening = true;
            delay = RECONNECT_MIN_MS;
            // Notices sent while no connection listened are lost: start from a clean slate.
            opts.onReset();
            if (warned)
                logger.info({ channel }, 'LISTEN connection is back');
            warned = false;
        })
            .catch((err) => {
            if (client === c)
                lost(err);
        });
    };
    connect();
    return {
        async stop() {
            stopped = true;
            listening = false;
            if (timer)
                clearTimeout(timer);
            const c = client;
            client = undefined;
            c?.removeAllListeners();
            c?.on('error', () => undefined);
            await c?.end().catch(() => undefined);
        },
    };
}
//# sourceMappingURL=notifications.js.map