/**
 * startServer's shutdown in-process (docs/operations.md, "Shutdown and drain"): registered closers (background work such as the
 * webhook worker) are stopped before the pools close, and a request still in flight past the drain budget
 * has its connection closed instead of holding the shutdown. And while it runs, it folds the change marks of
 * conditional requests every second (docs/api-rules.md, "Conditional requests").
 */
import net from 'node:net';
import { loadConfig } from '../../../src/config';
import { changeVersion } from '../../../src/core/changes/change-marks.store';
import { startServer } from '../../../src/server';
import { openTestDb, testDbUrl } from '../../support/db';
import { workspaceWithKey } from '../../support/given';

const config = () => loadConfig({ databaseUrl: testDbUrl(), port: 0, host: '127.0.0.1', logLevel: 'silent', redisUrl: undefined }, {});

it('stops registered background work, then closes the database pool', async () => {
  const server = await startServer(config(), { worker: false });
  const order: string[] = [];
  server.addCloser('worker', async () => {
    await new Promise((r) => setTimeout(r, 50)); // its current attempt
    const res = await fetch(`${server.url}/readyz`).catch(() => undefined);
    order.push(`worker stopped (server accepting: ${res !== undefined})`);
  });
  server.addCloser('broken', () => {
    throw new Error('a closer that fails does not stop the others');
  });
  expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  await server.close();
  order.push('closed');
  expect(order).toEqual(['worker stopped (server accepting: false)', 'closed']);
});

it('closes a connection whose request is still in flight after the drain budget', async () => {
  const server = await startServer(config(), { drainMs: 300, worker: false });
  const socket = net.connect(server.port, '127.0.0.1');
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  socket.on('error', () => undefined);
  socket.write('POST /api/v1/workspaces HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{');
  const socketClosed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const started = Date.now();
  await server.close();
  await socketClosed;
  expect(Date.now() - started).toBeGreaterThanOrEqual(250);
  expect(Date.now() - started).toBeLessThan(3000);
});

it('folds the change marks every second while it runs, keeping every version', async () => {
  const db = await openTestDb();
  const server = await startServer(config(), { worker: false });
  try {
    const { ws } = await workspaceWithKey(db);
    const version = await changeVersion(db, [ws]);
    expect(Number(version)).toBeGreaterThan(0);
    const marksOf = async () => Number((await db('change_marks').where({ workspace_id: ws }).count({ n: '*' }))[0]!.n);
    for (const started = Date.now(); (await marksOf()) > 0 && Date.now() - started < 5000;) await new Promise((r) => setTimeout(r, 100));
    expect(await marksOf()).toBe(0);
    expect(await changeVersion(db, [ws])).toBe(version);
  } finally {
    await server.close();
    await db.destroy();
  }
});
