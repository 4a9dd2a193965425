/**
 * The live streams of this instance (issue 31 item 2; docs/live.md, "Stream" and "Fan-out"): `GET {ws}/responses/stream`
 * and `GET {ws}/events/stream` as server-sent events. The adapters (src/adapters/streams.handlers.ts) parse a request's
 * filters and hand a StreamSpec here; this module reads the event log, fans new events out and keeps the limits.
 *
 * Fan-out. Each write that appends to the log sends `NOTIFY event_log, '<workspace id>'` at its commit (migration 028).
 * The instance holds ONE listening connection (src/db/notifications.ts, shared with the key cache) and, per workspace
 * with open streams, one watch: on a notice the watch reads the new events with eventsAfter (a short query on the pool;
 * nothing is held while streams wait) and keeps them as chunks in a small ring, each chunk a range (from, to] of
 * positions that is complete (eventsAfter's visibility rule: no event can appear in a range already read). Events
 * become readable only below the oldest open transaction of the cluster, so a notice may find nothing yet: the watch
 * reads again after 100, 200, 400 and 800 ms, and every STREAM_POLL_MS anyway, which also covers a lost notice.
 *
 * Streams. A stream keeps the position it has read through. Behind the ring (a resume from an old `Last-Event-ID`) it
 * reads the log itself, page by page, until the ring covers it; then it takes the ring's chunks. Its filter is SQL
 * over each range (StreamSpec.frames), computed once per chunk for all streams that filter alike (same `filterKey`),
 * and so is the rendered text. One pump per stream writes in position order: every event after the position it
 * resumed from, exactly once.
 *
 * Limits: STREAMS_PER_KEY open streams per key on this instance (429 beyond); a comment every STREAM_HEARTBEAT_MS;
 * a client whose unread output passes STREAM_BUFFER_BYTES is disconnected (memory never grows with a slow reader);
 * a key that is revoked, expires, loses the workspace or the scope has its streams closed when the key change notice
 * arrives (the key cache's channel, migration 007), so within 1 s; close() (graceful shutdown) ends every stream
 * with a `retry:` hint, so clients reconnect to another instance at once.
 */
import type { Request, Response } from 'express';
import { findApiKeyById, isKeyInactive, type ApiKeyMeta } from '../core/api-keys/api-keys.store';
import { errors } from '../core/errors';
import { eventsAfter, latestPosition, type LoggedEvent } from '../core/events/event-log.store';
import type { Scope } from '../core/scopes';
import type { Db } from '../db';
import { listenToChannel, type Subscription } from '../db/notifications';
import { KEY_CHANGE_CHANNEL } from './auth/key-cache';
import type { Logger } from './logger';

/** The channel migration 028's trigger notifies, with the workspace id as payload. */
export const EVENT_LOG_CHANNEL = 'event_log';

/** The limits of the streams (README.md, "Configuration"). */
export interface LiveLimits {
  /** `STREAMS_PER_KEY`: open streams per API key on this instance. */
  perKey: number;
  /** `STREAM_HEARTBEAT_MS`: a comment line this often keeps proxies from closing an idle stream. */
  heartbeatMs: number;
  /** `STREAM_BUFFER_BYTES`: a client with more unread output than this is disconnected. */
  maxBufferBytes: number;
  /** `STREAM_POLL_MS`: each watch reads the log this often even without a notice. */
  pollMs: number;
}

export const LIVE_DEFAULTS: LiveLimits = { perKey: 5, heartbeatMs: 15_000, maxBufferBytes: 1024 * 1024, pollMs: 1_000 };

/** The `retry:` (ms) a stream ended by a shutdown is sent: reconnect soon, to an instance that runs. */
export const SHUTDOWN_RETRY_MS = 1_000;
/** Seconds a client refused by the per-key cap is told to wait. */
const STREAMS_RETRY_AFTER_SECONDS = 5;
/** Re-reads after a notice that found nothing readable yet (an older transaction was still open). */
const WAKE_BACKOFF_MS = [100, 200, 400, 800];
/** Events per read of the log. */
const READ_LIMIT = 500;
/** The ring keeps at most this many events (older ones are read from the log by the streams that need them). */
const RING_EVENTS = 5_000;

/** One SSE frame: the event's position (its `id:`) and the whole text of the frame. */
export interface Frame {
  position: string;
  text: string;
}

/** What a stream sends, decided by its adapter from the request. */
export interface StreamSpec {
  workspaceId: string;
  /** A position token (already validated and lower-cased), or undefined: only events from now on. */
  after: string | undefined;
  key: ApiKeyMeta;
  /** The scope the stream needs (its list's); a key that loses it has its streams closed. */
  scope: Scope;
  /** Equal for streams that select and render alike (kind, style, filters): their frames are computed once per range. */
  filterKey: string;
  /**
   * The frames of the events of the range (`from`, `to`] (all of the workspace's events in it, in order) that the
   * stream sends: its filter applied as SQL over the range, each event rendered (sseFrame).
   */
  frames(from: string, to: string, events: readonly LoggedEvent[]): Promise<Frame[]>;
}

/** The frame of one event: `id:` its position, `event:` its name, `data:` its JSON on one line. */
export function sseFrame(position: string, event: string, data: unknown): Frame {
  return { position, text: `id: ${position}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n` };
}

export interface LiveStreams {
  /**
   * The database streams read: the primary, also with read replicas (docs/operations.md, "Read replicas"), since a
   * replica that lags would not yet hold the response a new event names. Stream handlers read through it only.
   */
  readonly db: Db;
  /**
   * Opens a stream as the answer to `req`: reads the first page after `spec.after` before the first byte (so a bad or
   * expired position is an error answer), then answers 200 `text/event-stream` and streams until the client goes.
   * A HEAD request gets the head only.
   * While shutting down, a stream opens with the `retry:` hint only.
   * @throws AppError rate_limit_exceeded (429) over STREAMS_PER_KEY; position_expired (410) for a pruned `after`.
   */
  open(req: Request, res: Response, spec: StreamSpec): Promise<void>;
  /** Streams open on this instance (metrics, tests). */
  count(): number;
  /** Ends every stream with a `retry:` hint, refuses new ones and stops the timers (graceful shutdown). */
  close(): Promise<void>;
}

interface Chunk {
  from: string;
  to: string;
  events: LoggedEvent[];
  /** Frames by filterKey, computed by the first stream that needs them. */
  frames: Map<string, Promise<Frame[]>>;
}

interface Watch {
  workspaceId: string;
  ready: Promise<void>;
  /** The ring covers (ringFrom, head]. */
  head: string;
  ringFrom: string;
  chunks: Chunk[];
  ringEvents: number;
  streams: Set<Stream>;
  reading: boolean;
  again: boolean;
  retry: NodeJS.Timeout | undefined;
}

interface Stream {
  spec: StreamSpec;
  res: Response;
  watch: Watch;
  /** Read (and sent, when selected) through this position. */
  pos: string;
  /** False until its head and first events are written: no pump, heartbeat or close writes before. */
  started: boolean;
  pumping: boolean;
  again: boolean;
  closed: boolean;
}

/** The streams of one app (built once in buildApp). */
export function createLiveStreams(opts: { db: Db; logger: Logger; limits?: Partial<LiveLimits> }): LiveStreams {
  return new LiveHub(opts.db, opts.logger, { ...LIVE_DEFAULTS, ...opts.limits });
}

/** The per-instance state of the streams: watches by workspace, streams by key, the notices and the timers. */
class LiveHub implements LiveStreams {
  private readonly watches = new Map<string, Watch>();
  private readonly byKey = new Map<string, Set<Stream>>();
  private stopped = false;
  private subscriptions: Subscription[] = [];
  private timers: NodeJS.Timeout[] = [];
  private checkingKeys = false;
  private recheckAgain = false;

  constructor(
    readonly db: Db,
    private readonly logger: Logger,
    private readonly limits: LiveLimits,
  ) {}

  count(): number {
    return this.allStreams().length;
  }

  async open(req: Request, res: Response, spec: StreamSpec): Promise<void> {
    const mine = this.byKey.get(spec.key.id) ?? new Set<Stream>();
    if (mine.size >= this.limits.perKey) throw errors.tooManyAtOnce('open streams', `${this.limits.perKey} per key`, STREAMS_RETRY_AFTER_SECONDS);
    this.start();
    const w = this.watchOf(spec.workspaceId);
    const s: Stream = { spec, res, watch: w, pos: spec.after ?? '', started: false, pumping: false, again: false, closed: false };
    // Held from here, so concurrent opens of one key count each other.
    mine.add(s);
    this.byKey.set(spec.key.id, mine);
    w.streams.add(s);
    let first: Frame[] = [];
    try {
      await w.ready;
      if (spec.after === undefined) s.pos = w.head;
      else {
        const page = await eventsAfter(this.db, spec.workspaceId, spec.after, { limit: READ_LIMIT });
        if (page.events.length > 0) {
          const to = page.events[page.events.length - 1]!.position;
          first = await spec.frames(spec.after, to, page.events);
          s.pos = to;
        }
      }
    } catch (err) {
      this.forget(s);
      throw err;
    }
    // The key was revoked while the first page was read (recheckKeys marked it closed).
    if (s.closed) {
      this.forget(s);
      throw errors.apiKeyExpired();
    }
    res.status(200);
    res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    res.setHeader('Cache-Control', 'no-store');
    // Proxies that buffer answers (nginx) must pass each event on at once.
    res.setHeader('X-Accel-Buffering', 'no');
    res.once('close', () => this.forget(s));
    if (req.method === 'HEAD' || this.stopped) {
      this.forget(s);
      // Opened while shutting down: straight to the retry hint.
      res.end(this.stopped && req.method !== 'HEAD' ? `retry: ${SHUTDOWN_RETRY_MS}\n\n` : undefined);
      return;
    }
    res.flushHeaders();
    s.started = true;
    for (const f of first) this.write(s, f.text);
    void this.pump(s);
  }

  async close(): Promise<void> {
    this.stopped = true;
    for (const s of this.allStreams()) this.end(s, 'retry');
    this.timers.forEach(clearInterval);
    this.timers = [];
    this.subscriptions.forEach((sub) => sub.unsubscribe());
    this.subscriptions = [];
    this.watches.forEach((w) => clearTimeout(w.retry));
    this.watches.clear();
  }

  /** Starts the notices and timers with the first stream, so an app that never streams holds nothing. */
  private start(): void {
    if (this.subscriptions.length > 0) return;
    const { db, logger } = this;
    const recheck = () => void this.recheckKeys();
    this.subscriptions = [
      listenToChannel({
        db,
        channel: EVENT_LOG_CHANNEL,
        logger,
        onNotice: (ws) => {
          const w = this.watches.get(ws);
          if (w) this.wake(w);
        },
        onReset: () => this.watches.forEach((w) => this.wake(w)),
      }),
      listenToChannel({ db, channel: KEY_CHANGE_CHANNEL, logger, onNotice: recheck, onReset: recheck }),
    ];
    this.every(this.limits.pollMs, () => {
      this.watches.forEach((w) => void this.read(w));
      for (const s of this.allStreams()) if (isKeyInactive(s.spec.key)) this.end(s, 'close');
    });
    this.every(this.limits.heartbeatMs, () => {
      for (const s of this.allStreams()) this.write(s, ': heartbeat\n\n');
    });
  }

  private every(ms: number, fn: () => void): void {
    const t = setInterval(fn, ms);
    t.unref();
    this.timers.push(t);
  }

  private allStreams(): Stream[] {
    return [...this.byKey.values()].flatMap((set) => [...set]);
  }

  private write(s: Stream, text: string): void {
    if (s.closed || !s.started) return;
    s.res.write(text);
    // A client that does not read: its output would grow without bound. Cut it (it may resume from its last id).
    if (s.res.writableLength > this.limits.maxBufferBytes) {
      this.logger.info({ workspaceId: s.spec.workspaceId, buffered: s.res.writableLength }, 'stream closed: the client is not reading');
      this.end(s, 'destroy');
    }
  }

  private end(s: Stream, how: 'close' | 'retry' | 'destroy'): void {
    if (s.closed) return;
    // Not answered yet: open() sees the mark and answers with an error (or, shutting down, the retry hint).
    if (!s.started) {
      s.closed = how !== 'retry';
      return;
    }
    if (how === 'retry') s.res.write(`retry: ${SHUTDOWN_RETRY_MS}\n\n`);
    s.closed = true;
    if (how === 'destroy') s.res.destroy();
    else s.res.end();
  }

  private forget(s: Stream): void {
    s.closed = true;
    const mine = this.byKey.get(s.spec.key.id);
    mine?.delete(s);
    if (mine?.size === 0) this.byKey.delete(s.spec.key.id);
    const w = s.watch;
    w.streams.delete(s);
    if (w.streams.size === 0 && this.watches.get(w.workspaceId) === w) {
      this.watches.delete(w.workspaceId);
      clearTimeout(w.retry);
    }
  }

  private watchOf(workspaceId: string): Watch {
    const known = this.watches.get(workspaceId);
    if (known) return known;
    const w: Watch = {
      workspaceId,
      ready: Promise.resolve(),
      head: '',
      ringFrom: '',
      chunks: [],
      ringEvents: 0,
      streams: new Set(),
      reading: false,
      again: false,
      retry: undefined,
    };
    w.ready = latestPosition(this.db, workspaceId).then((p) => {
      w.head = p;
      w.ringFrom = p;
    });
    // A failed first read fails the opening stream; the next one tries again.
    w.ready.catch(() => this.watches.get(workspaceId) === w && w.streams.size === 0 && this.watches.delete(workspaceId));
    this.watches.set(workspaceId, w);
    return w;
  }

  /**
   * Reads the events after the watch's head into the ring, then pumps its streams.
   * @returns whether anything new was found (true while another read runs: it will read again).
   */
  private async read(w: Watch): Promise<boolean> {
    if (w.reading) {
      w.again = true;
      return true;
    }
    w.reading = true;
    let found = false;
    try {
      await w.ready;
      do {
        w.again = false;
        found = (await this.readPages(w)) || found;
      } while (w.again);
    } catch (err) {
      this.logger.warn({ err, workspaceId: w.workspaceId }, 'live streams: could not read the event log (retrying)');
    } finally {
      w.reading = false;
    }
    if (found) w.streams.forEach((s) => void this.pump(s));
    return found;
  }

  /** Appends the readable events after the head to the ring, page by page; drops the oldest past RING_EVENTS. */
  private async readPages(w: Watch): Promise<boolean> {
    let found = false;
    for (;;) {
      const page = await eventsAfter(this.db, w.workspaceId, w.head, { limit: READ_LIMIT });
      if (page.events.length === 0) return found;
      const to = page.events[page.events.length - 1]!.position;
      w.chunks.push({ from: w.head, to, events: page.events, frames: new Map() });
      w.ringEvents += page.events.length;
      w.head = to;
      found = true;
      while (w.ringEvents > RING_EVENTS && w.chunks.length > 1) {
        const old = w.chunks.shift()!;
        w.ringEvents -= old.events.length;
        w.ringFrom = old.to;
      }
      if (!page.hasMore) return found;
    }
  }

  /** A notice for the workspace: read now, and again shortly while nothing is readable yet. */
  private wake(w: Watch): void {
    clearTimeout(w.retry);
    let attempt = 0;
    const attemptRead = async () => {
      const found = await this.read(w);
      if (found || attempt >= WAKE_BACKOFF_MS.length || !this.watches.has(w.workspaceId)) return;
      w.retry = setTimeout(() => void attemptRead(), WAKE_BACKOFF_MS[attempt++]);
      w.retry.unref();
    };
    void attemptRead();
  }

  private framesOf(c: Chunk, spec: StreamSpec): Promise<Frame[]> {
    let p = c.frames.get(spec.filterKey);
    if (!p) {
      p = spec.frames(c.from, c.to, c.events);
      c.frames.set(spec.filterKey, p);
      p.catch(() => c.frames.delete(spec.filterKey));
    }
    return p;
  }

  private send(s: Stream, frames: readonly Frame[]): void {
    for (const f of frames) if (f.position > s.pos) this.write(s, f.text);
  }

  /** Brings the stream up to the watch's head, in order; one pump at a time per stream. */
  private async pump(s: Stream): Promise<void> {
    if (!s.started) return;
    if (s.pumping) {
      s.again = true;
      return;
    }
    s.pumping = true;
    try {
      do {
        s.again = false;
        await this.catchUp(s);
      } while (s.again && !s.closed);
    } catch (err) {
      // A pruned position (410) or a database error: end the stream; the client resumes from its last id.
      this.logger.warn({ err, workspaceId: s.spec.workspaceId }, 'live stream ended: could not read the event log');
      this.end(s, 'close');
    } finally {
      s.pumping = false;
    }
  }

  private async catchUp(s: Stream): Promise<void> {
    const w = s.watch;
    for (;;) {
      if (s.closed) return;
      if (s.pos < w.ringFrom) {
        const page = await eventsAfter(this.db, w.workspaceId, s.pos, { limit: READ_LIMIT });
        // Nothing readable between its position and the ring: what was there has been erased since.
        if (page.events.length === 0) {
          s.pos = w.ringFrom;
          continue;
        }
        const to = page.events[page.events.length - 1]!.position;
        this.send(s, await s.spec.frames(s.pos, to, page.events));
        s.pos = to;
        continue;
      }
      const c = w.chunks.find((k) => k.to > s.pos);
      if (!c) return;
      // A chunk is complete for its range whether or not the ring has dropped it meanwhile.
      this.send(s, await this.framesOf(c, s.spec));
      s.pos = c.to;
    }
  }

  /** A key changed somewhere: close the streams of keys that can no longer read what they stream. */
  private async recheckKeys(): Promise<void> {
    if (this.checkingKeys) {
      this.recheckAgain = true;
      return;
    }
    this.checkingKeys = true;
    try {
      do {
        this.recheckAgain = false;
        for (const [keyId, streams] of [...this.byKey]) {
          const key = await findApiKeyById(this.db, keyId);
          for (const s of [...streams]) {
            if (!key || isKeyInactive(key) || !key.workspaceIds.includes(s.spec.workspaceId) || !key.scopes.includes(s.spec.scope)) this.end(s, 'close');
          }
        }
      } while (this.recheckAgain);
    } catch (err) {
      this.logger.warn({ err }, 'live streams: could not check keys after a change notice');
    } finally {
      this.checkingKeys = false;
    }
  }
}
