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
import type { Knex } from 'knex';
import pg from 'pg';
import type { Db, DbLogger as Logger } from './index';
import { isEmbedded } from './connection';

export interface Subscription {
  /** Stops this subscriber's callbacks (the connection closes with the database handle). */
  unsubscribe(): void;
  /** Whether notices arrive now: false before the first LISTEN succeeded and while the connection is lost. */
  listening(): boolean;
}

export interface ListenOptions {
  db: Db;
  channel: string;
  logger: Logger;
  /** Called with each notice's payload. */
  onNotice: (payload: string) => void;
  /** Called when notices may have been missed (connection lost or re-established). */
  onReset: () => void;
}

interface ChannelListener {
  stop(): Promise<void>;
  listening(): boolean;
}

interface Subscriber {
  onNotice: (payload: string) => void;
  onReset: () => void;
}

const RECONNECT_MIN_MS = 1_000;
const RECONNECT_MAX_MS = 5_000;

const channels = new WeakMap<Db, Map<string, { subscribers: Set<Subscriber>; listener: ChannelListener }>>();

/**
 * Subscribes to notices on `channel` (a plain identifier). Never throws: a failed connection is logged
 * at `warn` once per outage and retried in the background.
 */
export function listenToChannel(opts: ListenOptions): Subscription {
  const { db, channel, logger } = opts;
  let perDb = channels.get(db);
  if (!perDb) {
    const map = new Map<string, { subscribers: Set<Subscriber>; listener: ChannelListener }>();
    perDb = map;
    channels.set(db, map);
    // The connections live as long as the handle: destroying it stops them first.
    // (knex's own destroy() is read-only; it ends in its client's destroy(), which is not.)
    const client = db.client as { destroy: (...args: unknown[]) => Promise<void> };
    const destroy = client.destroy.bind(client);
    client.destroy = async (...args: unknown[]) => {
      channels.delete(db);
      await Promise.all([...map.values()].map((c) => c.listener.stop()));
      return destroy(...args);
    };
  }
  let entry = perDb.get(channel);
  if (!entry) {
    const subscribers = new Set<Subscriber>();
    const fanOut: Subscriber = {
      onNotice: (payload) => subscribers.forEach((s) => s.onNotice(payload)),
      onReset: () => subscribers.forEach((s) => s.onReset()),
    };
    const listen = isEmbedded(db) ? listenEmbedded : listenPostgres;
    entry = { subscribers, listener: listen(db, channel, logger, fanOut) };
    perDb.set(channel, entry);
  }
  const me: Subscriber = { onNotice: opts.onNotice, onReset: opts.onReset };
  entry.subscribers.add(me);
  const { subscribers, listener } = entry;
  return { unsubscribe: () => subscribers.delete(me), listening: () => listener.listening() };
}

function listenEmbedded(db: Db, channel: string, logger: Logger, opts: Subscriber): ChannelListener {
  const pglite = (db.client as { pglite?: { listen(channel: string, cb: (payload: string) => void): Promise<() => Promise<void>> } }).pglite;
  let unlisten: Promise<(() => Promise<void>) | undefined> = Promise.resolve(undefined);
  let listening = false;
  if (pglite) {
    unlisten = pglite.listen(channel, opts.onNotice).then(
      (stop) => {
        listening = true;
        return stop;
      },
      (err: unknown) => {
        logger.warn({ err, channel }, 'could not LISTEN on the embedded database');
        return undefined;
      },
    );
  }
  return {
    listening: () => listening,
    async stop() {
      const stop = await unlisten;
      await stop?.().catch(() => undefined);
    },
  };
}

function listenPostgres(db: Db, channel: string, logger: Logger, opts: Subscriber): ChannelListener {
  const connection = (db.client as Knex.Client).config.connection as pg.ClientConfig | string;
  const config: pg.ClientConfig = typeof connection === 'string' ? { connectionString: connection } : { ...connection };
  let client: pg.Client | undefined;
  let listening = false;
  let stopped = false;
  let warned = false;
  let delay = RECONNECT_MIN_MS;
  let timer: NodeJS.Timeout | undefined;

  const lost = (err?: unknown) => {
    if (stopped) return;
    const wasListening = listening;
    listening = false;
    client?.removeAllListeners();
    client?.end().catch(() => undefined);
    client = undefined;
    if (wasListening) opts.onReset();
    if (!warned) {
      warned = true;
      logger.warn({ err, channel }, 'LISTEN connection lost: retrying in the background');
    }
    timer = setTimeout(connect, delay);
    timer.unref();
    delay = Math.min(delay * 2, RECONNECT_MAX_MS);
  };

  const connect = () => {
    if (stopped) return;
    const c = new pg.Client({ ...config, application_name: 'feedback-service-listen', keepAlive: true });
    client = c;
    c.on('error', lost);
    c.on('end', () => lost());
    c.on('notification', (n) => {
      if (n.channel === channel) opts.onNotice(n.payload ?? '');
    });
    c.connect()
      .then(() => {
        // An idle LISTEN connection must not keep a process alive that has nothing else to do.
        (c as unknown as { connection?: { stream?: { unref?(): void } } }).connection?.stream?.unref?.();
        return c.query(`LISTEN ${channel}`);
      })
      .then(() => {
        if (stopped || client !== c) return;
        listening = true;
        delay = RECONNECT_MIN_MS;
        // Notices sent while no connection listened are lost: start from a clean slate.
        opts.onReset();
        if (warned) logger.info({ channel }, 'LISTEN connection is back');
        warned = false;
      })
      .catch((err: unknown) => {
        if (client === c) lost(err);
      });
  };
  connect();

  return {
    listening: () => listening,
    async stop() {
      stopped = true;
      listening = false;
      if (timer) clearTimeout(timer);
      const c = client;
      client = undefined;
      c?.removeAllListeners();
      c?.on('error', () => undefined);
      await c?.end().catch(() => undefined);
    },
  };
}
