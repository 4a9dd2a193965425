/**
 * Slow and greedy clients against a real listening server on 127.0.0.1 (docs/operations.md, "Slow clients"): the
 * headers, request and keep-alive timeouts cut a client off, the per-address connection cap answers 429, and a
 * client that gives up its upload is logged as a client abort (info, no stack), not as a server error.
 */
import net from 'node:net';
import type { Server } from 'node:http';
import { Writable } from 'node:stream';
import { nanoid } from 'nanoid';
import { buildApp, stopAppBackground } from '../../../src/app';
import { loadConfig, type Config } from '../../../src/config';
import { createHttpServer } from '../../../src/platform/http-server';
import { createLogger, type Logger } from '../../../src/platform/logger';
import { createRateLimiter } from '../../../src/platform/rate-limit';
import { testConfig, useTestApp } from '../../support/app';

const t = useTestApp();

/** A listening server around the test app (or `app`) with the limits of `overrides`. */
async function serve(overrides: Partial<Config>, logger: Logger = createLogger('silent'), app = t.app): Promise<{ server: Server; port: number }> {
  const server = createHttpServer(app, logger, testConfig(overrides));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as net.AddressInfo).port };
}

async function stop(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

/** A raw connection: what it received, and a promise of when the server closed it (ms after `since()`). */
function connect(port: number) {
  const socket = net.connect(port, '127.0.0.1');
  let data = '';
  let mark = Date.now();
  socket.on('data', (c: Buffer) => (data += c.toString('utf8')));
  socket.on('error', () => undefined);
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now() - mark)));
  const opened = new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  return {
    socket,
    opened,
    closed,
    received: () => data,
    since: () => {
      mark = Date.now();
    },
  };
}

/** Resolves `p`, or 'still open' after `ms`. */
const within = <T>(p: Promise<T>, ms: number) => Promise.race([p, new Promise<'still open'>((r) => setTimeout(() => r('still open'), ms).unref())]);

describe('HTTP server timeouts (HTTP_HEADERS_TIMEOUT_MS, HTTP_REQUEST_TIMEOUT_MS, HTTP_KEEP_ALIVE_TIMEOUT_MS)', () => {
  it('cuts off a client that sends its headers slowly, after the headers timeout', async () => {
    const { server, port } = await serve({ httpHeadersTimeoutMs: 500, httpRequestTimeoutMs: 1_000 });
    const c = connect(port);
    const drip = setInterval(() => c.socket.writable && c.socket.write(`X-Slow-${nanoid(4)}: a\r\n`), 100);
    try {
      await c.opened;
      c.since();
      c.socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n');
      const after = await within(c.closed, 5_000);
      expect(after).not.toBe('still open');
      expect(after as number).toBeGreaterThanOrEqual(450);
      expect(after as number).toBeLessThan(2_000);
      expect(c.received()).toBe('');
    } finally {
      clearInterval(drip);
      c.socket.destroy();
      await stop(server);
    }
  });

  it('cuts off a client that sends its body slowly, after the request timeout', async () => {
    const { server, port } = await serve({ httpHeadersTimeoutMs: 400, httpRequestTimeoutMs: 1_000 });
    const c = connect(port);
    const drip = setInterval(() => c.socket.writable && c.socket.write(' '), 100);
    try {
      await c.opened;
      c.since();
      c.socket.write(
        `POST /api/v1/forms/frm_${nanoid(8)}/submissions HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n{"answers":`,
      );
      const after = await within(c.closed, 5_000);
      expect(after).not.toBe('still open');
      expect(after as number).toBeGreaterThanOrEqual(900);
      expect(after as number).toBeLessThan(2_500);
    } finally {
      clearInterval(drip);
      c.socket.destroy();
      await stop(server);
    }
  });

  it('closes an idle keep-alive connection after the keep-alive timeout', async () => {
    const { server, port } = await serve({ httpKeepAliveTimeoutMs: 300 });
    const c = connect(port);
    try {
      await c.opened;
      c.socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n');
      const deadline = Date.now() + 5_000;
      while (!c.received().includes('\r\n\r\n') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      c.since();
      expect(c.received()).toMatch(/^HTTP\/1\.1 200 /);
      const after = await within(c.closed, 4_000);
      expect(after).not.toBe('still open');
      // Node 24 adds a second of its own (keepAliveTimeoutBuffer); its default alone would be 5 s.
      expect(after as number).toBeLessThan(2_500);
    } finally {
      c.socket.destroy();
      await stop(server);
    }
  });

  it('refuses a request timeout shorter than the headers timeout at start-up', () => {
    expect(() => loadConfig({}, { HTTP_HEADERS_TIMEOUT_MS: '5000', HTTP_REQUEST_TIMEOUT_MS: '1000' })).toThrow(
      'HTTP_REQUEST_TIMEOUT_MS must be at least HTTP_HEADERS_TIMEOUT_MS (5000), got "1000"',
    );
  });
});

describe('open connections per client address (CONNECTIONS_PER_ADDRESS)', () => {
  it('answers 429 with Retry-After on a connection over the cap and closes it; a freed place serves again', async () => {
    const { server, port } = await serve({ connectionsPerAddress: 3 });
    const held = [connect(port), connect(port), connect(port)];
    try {
      await Promise.all(held.map((c) => c.opened));
      const over = await fetch(`http://127.0.0.1:${port}/healthz`);
      expect(over.status).toBe(429);
      expect(over.headers.get('retry-after')).toBe('1');
      expect(over.headers.get('connection')).toBe('close');
      expect(await over.json()).toEqual({
        error: { code: 'rate_limit_exceeded', message: 'Rate limit exceeded; retry in 1 s.', status: 429 },
        request_id: expect.stringMatching(/^req_/),
      });
      held[0]!.socket.destroy();
      await held[0]!.closed;
      // The server counts the close when it handles it: ask until it has (a busy machine may take a moment).
      let again = 0;
      for (const end = Date.now() + 3_000; again !== 200 && Date.now() < end;) {
        again = (await fetch(`http://127.0.0.1:${port}/healthz`, { headers: { Connection: 'close' } })).status;
      }
      expect(again).toBe(200);
    } finally {
      for (const c of held) c.socket.destroy();
      await stop(server);
    }
  });

  it('closes a connection over the cap that sends nothing within a second', async () => {
    const { server, port } = await serve({ connectionsPerAddress: 1 });
    const first = connect(port);
    await first.opened;
    const second = connect(port);
    try {
      await second.opened;
      second.since();
      const after = await within(second.closed, 4_000);
      expect(after).not.toBe('still open');
      expect(after as number).toBeLessThan(2_000);
      expect(await within(first.closed, 100)).toBe('still open');
    } finally {
      first.socket.destroy();
      second.socket.destroy();
      await stop(server);
    }
  });
});

describe('a client that aborts its upload', () => {
  it('is logged as a client abort at info, without an error line or a stack', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const l of chunk.toString('utf8').split('\n')) if (l.trim() !== '') lines.push(JSON.parse(l) as Record<string, unknown>);
        done();
      },
    });
    const logger = createLogger('debug', sink);
    const app = buildApp(testConfig({ logLevel: 'debug' }), {
      db: t.db,
      logger,
      redis: t.redis,
      limiter: createRateLimiter({ redis: t.redis, logger, prefix: `fs-abort-${nanoid(8)}` }),
    });
    const { server, port } = await serve({}, logger, app);
    const c = connect(port);
    try {
      await c.opened;
      c.socket.write(
        `POST /api/v1/forms/frm_${nanoid(8)}/submissions HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n{"answers":[`,
      );
      await new Promise((r) => setTimeout(r, 200));
      c.socket.destroy();
      const deadline = Date.now() + 5_000;
      const abortLine = () => lines.find((l) => l.msg === 'client aborted the request while sending its body');
      while (!abortLine() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      await new Promise((r) => setTimeout(r, 200));
      expect(abortLine()).toMatchObject({ level: 30, request_id: expect.stringMatching(/^req_/), received: 12, expected: 5000 });
      expect(abortLine()).not.toHaveProperty('err');
      expect(lines.filter((l) => (l.level as number) >= 50)).toEqual([]);
    } finally {
      await stop(server);
      await stopAppBackground(app);
    }
  });
});
