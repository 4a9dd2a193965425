/**
 * Live streams across real processes (docs/live.md, "Stream" and "Fan-out"; issue 31 item 6): `serve` instances as
 * child processes (tests/support/child-cli.ts) on this file's own PostgreSQL database and the run's Redis. A client on
 * one instance receives the responses submitted through another; a client that drops after event 10 and reconnects
 * with `Last-Event-ID` of event 10 while 20 more arrive gets exactly events 11-30; a SIGKILL of the instance a client
 * is on loses nothing once it reconnects to the other; a SIGTERM ends a stream with a `retry:` hint. PostgreSQL only
 * (the embedded database is one process's).
 */
import net from 'node:net';
import { nanoid } from 'nanoid';
import type { Db } from '../../../src/db/connection';
import { childProcesses, type Child } from '../../support/child-cli';
import { onEmbeddedDb } from '../../support/db';
import { formWorkspace, goodAnswers, type FormWorkspace } from '../../support/given';
import { openStream, type SseStream } from '../../support/sse';
import { ownDatabase } from '../webhooks/harness';

// Events become readable once every older transaction of the PostgreSQL server has ended: a long one elsewhere delays them.
jest.setTimeout(300_000);

const { cli, killAll } = childProcesses();
let own: { url: string; db: Db; drop(): Promise<void> };
const streams: SseStream[] = [];

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** A `serve` process (no webhook worker) on the file's database and the run's Redis; resolves once it listens. */
async function instance(): Promise<{ base: string; child: Child }> {
  const port = await freePort();
  const child = cli(['serve', '--no-worker', '--port', String(port)], {
    DATABASE_URL: own.url,
    REDIS_URL: process.env.TEST_REDIS_URL!,
    RATE_LIMIT_PER_MINUTE: '100000',
  });
  await child.waitFor('listening');
  return { base: `http://127.0.0.1:${port}`, child };
}

async function submit(base: string, w: FormWorkspace): Promise<string> {
  const res = await fetch(`${base}/api/v1/workspaces/${w.ws}/responses`, {
    method: 'POST',
    headers: { 'X-API-Key': w.key, 'X-API-Style': 'A', 'Idempotency-Key': nanoid(), 'content-type': 'application/json' },
    body: JSON.stringify({ form_id: w.form, answers: goodAnswers() }),
  });
  const body = (await res.json()) as { data: { id: string } };
  expect(res.status).toBe(201);
  return body.data.id;
}

async function follow(base: string, w: FormWorkspace, lastEventId?: string): Promise<SseStream> {
  const s = await openStream(`${base}/api/v1/workspaces/${w.ws}/responses/stream`, {
    'X-API-Key': w.key,
    'X-API-Style': 'A',
    ...(lastEventId === undefined ? {} : { 'Last-Event-ID': lastEventId }),
  });
  expect(s.status).toBe(200);
  streams.push(s);
  return s;
}

const idsOf = (s: SseStream) => s.events.map((e) => (JSON.parse(e.data) as { id: string }).id);

(onEmbeddedDb() ? describe.skip : describe)('two serve instances on one database and Redis', () => {
  let a: { base: string; child: Child };
  let b: { base: string; child: Child };

  beforeAll(async () => {
    own = await ownDatabase();
    [a, b] = await Promise.all([instance(), instance()]);
  });
  afterEach(() => {
    streams.splice(0).forEach((s) => s.close());
  });
  afterAll(async () => {
    killAll();
    await own?.drop();
  });

  it('a client on instance A receives the responses submitted through instance B', async () => {
    const w = await formWorkspace(own.db);
    const s = await follow(a.base, w);
    const ids = [await submit(b.base, w), await submit(b.base, w), await submit(b.base, w)];
    await s.atLeast(3);
    expect(idsOf(s)).toEqual(ids);
  });

  it('a client that drops after event 10 and reconnects with Last-Event-ID of event 10 while 20 more arrive gets exactly events 11-30', async () => {
    const w = await formWorkspace(own.db);
    const first = await follow(a.base, w);
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push(await submit(b.base, w));
    await first.atLeast(10);
    expect(idsOf(first)).toEqual(ids);
    const tenth = first.events[9]!.id!;
    first.close();
    // 20 more arrive while the client is away and as it reconnects (to the other instance).
    const more = (async () => {
      for (let i = 0; i < 20; i++) ids.push(await submit(b.base, w));
    })();
    const again = await follow(b.base, w, tenth);
    await more;
    await again.atLeast(20);
    // One more after them: the next event the client gets is it, so nothing was sent twice or beyond 30.
    const last = await submit(a.base, w);
    await again.atLeast(21);
    expect(idsOf(again)).toEqual([...ids.slice(10, 30), last]);
    const positions = again.events.map((e) => e.id!);
    expect([...positions].sort()).toEqual(positions);
    expect(positions[0]! > tenth).toBe(true);
  });

  it('a SIGKILL of the instance a client is on loses nothing after the client reconnects to the other', async () => {
    const w = await formWorkspace(own.db);
    const victim = await instance();
    const s = await follow(victim.base, w);
    const ids = [await submit(b.base, w), await submit(b.base, w)];
    await s.atLeast(2);
    const lastSeen = s.events[s.events.length - 1]!.id!;
    victim.child.proc.kill('SIGKILL');
    await victim.child.exited;
    await s.ended;
    // Written while the client has no connection.
    for (let i = 0; i < 3; i++) ids.push(await submit(b.base, w));
    const again = await follow(a.base, w, lastSeen);
    await again.atLeast(3);
    const next = await submit(b.base, w);
    await again.atLeast(4);
    expect([...idsOf(s), ...idsOf(again)]).toEqual([...ids, next]);
  });

  it('a SIGTERM ends the streams of the instance with a retry: hint, and it exits 0', async () => {
    const w = await formWorkspace(own.db);
    const leaving = await instance();
    const s = await follow(leaving.base, w);
    const id = await submit(b.base, w);
    await s.atLeast(1);
    leaving.child.proc.kill('SIGTERM');
    await s.ended;
    expect(s.retries).toEqual([1000]);
    expect(idsOf(s)).toEqual([id]);
    expect(await leaving.child.exited).toBe(0);
  });
});
