/**
 * A server-sent events reader for the live stream tests (docs/live.md, "Stream"): opens a stream with fetch, parses it
 * with eventsource-parser, and collects its events, comments and `retry:` hints until it ends or is closed.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import { createParser } from 'eventsource-parser';

export interface SseEvent {
  id: string | undefined;
  event: string | undefined;
  data: string;
}

export interface SseStream {
  status: number;
  headers: Headers;
  /** The error envelope of an answer other than 200. */
  body: unknown;
  events: SseEvent[];
  comments: string[];
  retries: number[];
  /** Resolves when the server ended the stream (or the connection broke). */
  ended: Promise<void>;
  isEnded(): boolean;
  /** Resolves with the events once there are at least `n`; rejects after `ms` with what arrived. */
  atLeast(n: number, ms?: number): Promise<SseEvent[]>;
  /** Resolves when `check` holds (tested on every chunk received). */
  until(check: (s: SseStream) => boolean, ms?: number): Promise<void>;
  /** Closes the connection from the client side. */
  close(): void;
}

/** Opens `url` with `headers` and reads it as an event stream. */
export async function openStream(url: string, headers: Record<string, string>): Promise<SseStream> {
  const ac = new AbortController();
  const res = await fetch(url, { headers: { Accept: 'text/event-stream', ...headers }, signal: ac.signal });
  const listeners = new Set<() => void>();
  let ended = false;
  const s: SseStream = {
    status: res.status,
    headers: res.headers,
    body: undefined,
    events: [],
    comments: [],
    retries: [],
    ended: Promise.resolve(),
    isEnded: () => ended,
    until(check, ms = 120_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          listeners.delete(test);
          reject(new Error(`stream condition not met within ${ms} ms; events: ${JSON.stringify(s.events.map((e) => e.id))}, ended: ${ended}`));
        }, ms);
        const test = () => {
          if (!check(s)) return;
          clearTimeout(timer);
          listeners.delete(test);
          resolve();
        };
        listeners.add(test);
        test();
      });
    },
    async atLeast(n, ms) {
      await s.until((x) => x.events.length >= n, ms);
      return s.events;
    },
    close: () => ac.abort(),
  };
  if (res.status !== 200 || !res.body) {
    const text = await res.text();
    s.body = text ? (JSON.parse(text) as unknown) : undefined;
    ended = true;
    return s;
  }
  const parser = createParser({
    onEvent: (e) => s.events.push({ id: e.id, event: e.event, data: e.data }),
    onComment: (c) => s.comments.push(c),
    onRetry: (ms) => s.retries.push(ms),
  });
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  s.ended = (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parser.feed(decoder.decode(value, { stream: true }));
        listeners.forEach((l) => l());
      }
    } catch {
      // Aborted by close(), or the connection broke: the stream has ended either way.
    }
    ended = true;
    listeners.forEach((l) => l());
  })();
  return s;
}

/** Listens on an ephemeral local port with `app`; `close()` stops it and cuts open connections. */
export async function listenLocally(app: Express): Promise<{ base: string; close(): Promise<void> }> {
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** True for an operation of openapi/ whose success is an event stream (docs/live.md, "Stream"): it never ends. */
export const streamsEvents = (op: { responseTypes: Record<string, string[]> }) => (op.responseTypes['200'] ?? []).includes('text/event-stream');

/**
 * Makes a supertest request end at the head of a 200 event stream (it would never end: the connection is closed once
 * the headers are in, with an empty body); any other answer is read whole, its JSON parsed as `body`.
 */
export function headOfStream<T extends import('supertest').Test>(r: T): T {
  return r.buffer(true).parse((res, done) => {
    if (String(res.headers['content-type']).startsWith('text/event-stream')) {
      done(null, '');
      // In Node the answer is the IncomingMessage: closing it ends the connection.
      (res as unknown as { destroy(): void }).destroy();
      return;
    }
    let text = '';
    res.setEncoding('utf8');
    res.on('data', (c: string) => (text += c));
    res.on('end', () => {
      let body: unknown = text;
      try {
        body = text ? JSON.parse(text) : {};
      } catch {
        // Not JSON: the text itself.
      }
      done(null, body);
    });
  }) as T;
}
