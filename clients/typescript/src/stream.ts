/**
 * Following a live stream (docs/live.md, "Stream"): `GET {ws}/responses/stream` and `GET {ws}/events/stream` answer
 * `text/event-stream`. `followStream` reads one, yields each event with its JSON `data` parsed, and when the
 * connection ends or breaks (a shutdown's `retry:` hint, a restart, a network failure) connects again with
 * `Last-Event-ID` set to the last event it yielded: the server then sends every later event exactly once, in order,
 * from any instance. A 4xx answer ends it with an ApiError (`410 position_expired`: list again without a position,
 * then follow from the newest one; a 429 was already retried after its `Retry-After`). The package has no runtime
 * dependency, so the parser is the few lines of the HTML standard's event stream rules below.
 */
import { ApiError } from './api-error';
import type { Sleep } from './retry';

/** One event: `id` its position in the log (resume after it), `event` its type, `data` the parsed JSON. */
export interface StreamEvent<T> {
  id: string;
  event: string;
  data: T;
}

/** Why and when followStream connects again. */
export interface ReconnectInfo {
  /** The position it resumes after (undefined: nothing received yet, it asks from now on again or `after`). */
  lastEventId: string | undefined;
  delayMs: number;
  /** The failure that ended the connection; undefined when the server ended it. */
  error?: unknown;
}

export interface FollowOptions {
  /** Start after this position (an event's `id` or `position`); default: the events from now on. */
  after?: string;
  /** Stops following (the iterator then ends). */
  signal?: AbortSignal;
  /** Wait before connecting again, ms, until the server sends a `retry:` (default 1000). */
  retryMs?: number;
  sleep?: Sleep;
  onReconnect?: (info: ReconnectInfo) => void;
}

interface RawEvent {
  id: string | undefined;
  event: string;
  data: string;
}

/**
 * An event stream parser (HTML standard, "Server-sent events", interpreting an event stream): feed it text as it
 * arrives; it calls `onEvent` per dispatched event (with the last event id seen) and `onRetry` per `retry:` line.
 */
export function parseEventStream(onEvent: (e: RawEvent) => void, onRetry: (ms: number) => void): (chunk: string) => void {
  let buffer = '';
  let data: string[] = [];
  let event = '';
  let lastId: string | undefined;
  const line = (text: string) => {
    if (text === '') {
      if (data.length > 0) onEvent({ id: lastId, event: event || 'message', data: data.join('\n') });
      data = [];
      event = '';
      return;
    }
    if (text.startsWith(':')) return;
    const colon = text.indexOf(':');
    const field = colon < 0 ? text : text.slice(0, colon);
    const value = colon < 0 ? '' : text.slice(colon + 1).replace(/^ /, '');
    if (field === 'data') data.push(value);
    else if (field === 'event') event = value;
    else if (field === 'id' && !value.includes('\0')) lastId = value;
    else if (field === 'retry' && /^\d+$/.test(value)) onRetry(Number(value));
  };
  return (chunk) => {
    buffer += chunk;
    for (;;) {
      const end = /\r\n|\r|\n/.exec(buffer);
      // A `\r` at the very end may be the first half of `\r\n`: wait for more.
      if (!end || (end[0] === '\r' && end.index === buffer.length - 1)) return;
      line(buffer.slice(0, end.index));
      buffer = buffer.slice(end.index + end[0].length);
    }
  };
}

const timerSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Follows the stream at `url` (headers: the key and the style), yielding its events and reconnecting after each end
 * with `Last-Event-ID`, until `signal` aborts.
 * @throws ApiError for a 4xx answer (400 bad filter or position, 401, 403, 404, 410 position_expired).
 */
export async function* followStream<T>(
  fetchFn: typeof fetch,
  url: string,
  headers: Record<string, string>,
  options: FollowOptions = {},
): AsyncGenerator<StreamEvent<T>, void, undefined> {
  let lastEventId = options.after;
  let delayMs = options.retryMs ?? 1_000;
  const sleep = options.sleep ?? timerSleep;
  while (!options.signal?.aborted) {
    let error: unknown;
    try {
      const res = await fetchFn(url, {
        headers: { ...headers, Accept: 'text/event-stream', ...(lastEventId === undefined ? {} : { 'Last-Event-ID': lastEventId }) },
        signal: options.signal,
      });
      if (!res.ok || !res.body) {
        const failure = new ApiError(res.status, await res.json().catch(() => undefined), res);
        if (res.status < 500) throw failure;
        error = failure;
      } else {
        const received: RawEvent[] = [];
        const feed = parseEventStream(
          (e) => received.push(e),
          (ms) => (delayMs = ms),
        );
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          feed(value);
          for (const e of received.splice(0)) {
            lastEventId = e.id ?? lastEventId;
            yield { id: e.id ?? '', event: e.event, data: JSON.parse(e.data) as T };
          }
        }
      }
    } catch (err) {
      if (err instanceof ApiError) throw err;
      if (options.signal?.aborted) return;
      error = err;
    }
    options.onReconnect?.({ lastEventId, delayMs, error });
    await sleep(delayMs);
  }
}
