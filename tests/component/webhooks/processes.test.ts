/**
 * Delivery across processes (docs/webhooks.md, "Running the worker"): the `feedback-service` CLI runs as child processes
 * (`node dist/src/cli/main.js …`, tests/support/cli.ts cliJs, one node process each, so SIGKILL hits the server itself) on
 * this file's own database. A write committed just before the API process is killed is delivered by
 * a worker started afterwards; two worker processes make each attempt once. (The embedded database:
 * embedded.test.ts.)
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { nanoid } from 'nanoid';
import { Webhook } from 'standardwebhooks';
import { importFixture } from '../../../src/core/import/importer';
import { recordEvents } from '../../../src/core/webhooks/outbox';
import type { Db } from '../../../src/db/connection';
import { uid } from '../../support/given';
import { ownDatabase, receiver, sleep, type Receiver } from './harness';
import { childProcesses, type Child } from '../../support/child-cli';

jest.setTimeout(60_000);

let own: { url: string; db: Db; drop(): Promise<void> };
let dir: string;
const { cli, killAll } = childProcesses({ WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SCHEDULE: '0.2,0.2' });

beforeAll(async () => {
  own = await ownDatabase();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fs-webhooks-'));
});
afterAll(async () => {
  killAll();
  await own.drop();
  fs.rmSync(dir, { recursive: true, force: true });
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** A workspace, a full-access key and a datatable in `db`. */
async function workspace(db: Db) {
  const ws = uid('ws');
  const key = `fa_${nanoid(40)}`;
  const table = uid('tbl');
  await importFixture(db, {
    workspaces: [{ id: ws, name: ws, link: ws.toLowerCase().replace(/_/g, '-') }],
    api_keys: [{ name: 'k', secret: key, workspace_ids: [ws] }],
    datatables: [{ id: table, workspace_id: ws, name: 'T', fields: [{ name: 'plan', type: 'string' }] }],
  });
  return { ws, key, table };
}

async function api(base: string, key: string, method: string, p: string, body?: unknown) {
  const res = await fetch(`${base}${p}`, {
    method,
    headers: { 'X-API-Key': key, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as { data: Record<string, unknown> } };
}

async function waitUntil(fn: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await fn())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await sleep(100);
  }
}

it('delivers a write committed just before the API process was killed (SIGKILL), once a worker starts', async () => {
  const r: Receiver = await receiver();
  try {
    const { ws, key, table } = await workspace(own.db);
    const port = await freePort();
    const server = cli(['serve', '--no-worker', '--port', String(port)], { DATABASE_URL: own.url });
    await server.waitFor('listening');
    const base = `http://127.0.0.1:${port}/api/v1/workspaces/${ws}`;
    const ep = await api(base, key, 'POST', '/webhook-endpoints', { url: `${r.url}/kill`, events: ['row.created'] });
    expect(ep.status).toBe(201);
    const row = await api(base, key, 'POST', `/datatables/${table}/rows`, { data: { plan: 'pro' } });
    expect(row.status).toBe(201);
    server.proc.kill('SIGKILL');
    await server.exited;
    expect(server.output()).not.toContain('webhook delivery worker started');

    const [pending] = await own.db('webhook_deliveries').where('workspace_id', ws);
    expect(pending).toMatchObject({ status: 'pending', attempts: 0 });
    expect(r.received).toHaveLength(0);

    const worker = cli(['worker'], { DATABASE_URL: own.url });
    const [got] = await r.waitFor(1, 20_000);
    expect(new Webhook(ep.body.data.secret as string).verify(got!.body, got!.headers as Record<string, string>)).toMatchObject({
      type: 'row.created',
      workspace_id: ws,
      data: row.body.data,
    });
    await waitUntil(async () => (await own.db('webhook_deliveries').where({ workspace_id: ws, status: 'succeeded' })).length === 1);
    worker.proc.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
    expect(worker.output()).toContain('webhook delivery worker stopped');
    expect(r.received).toHaveLength(1);
  } finally {
    await r.close();
  }
});

it('shares the queue between two worker processes without sending any attempt twice', async () => {
  const seen = new Map<string, number>();
  // Every event fails once, then succeeds: 2 attempts each, both possibly by different workers.
  const r = await receiver((req) => {
    const id = req.headers['webhook-id'] as string;
    seen.set(id, (seen.get(id) ?? 0) + 1);
    return { status: seen.get(id) === 1 ? 503 : 200, delayMs: 50 };
  });
  try {
    const { ws } = await workspace(own.db);
    await importFixture(own.db, { webhook_endpoints: [{ workspace_id: ws, url: `${r.url}/two`, events: ['row.deleted'] }] });
    const a = cli(['worker'], { DATABASE_URL: own.url });
    const b = cli(['worker'], { DATABASE_URL: own.url });
    await Promise.all([a.waitFor('webhook delivery worker started'), b.waitFor('webhook delivery worker started')]);
    const n = 30;
    await own.db.transaction((trx) =>
      recordEvents(
        trx,
        ws,
        Array.from({ length: n }, (_, i) => ({
          type: 'row.deleted' as const,
          resource: { kind: 'row_deleted' as const, rowId: `row_${i}`, datatableId: 'tbl_x' },
        })),
      ),
    );
    await r.waitFor(2 * n, 30_000);
    await waitUntil(async () => (await own.db('webhook_deliveries').where({ workspace_id: ws, status: 'succeeded' })).length === n, 20_000);
    await sleep(1000);
    expect(r.received).toHaveLength(2 * n);
    expect([...seen.values()].every((c) => c === 2)).toBe(true);
    expect(seen.size).toBe(n);
    const attempts = await own.db('webhook_deliveries').where('workspace_id', ws).pluck('attempts');
    expect(attempts).toEqual(Array(n).fill(2));
    // Both processes took part.
    const made = (c: Child) => (c.output().match(/"msg":"webhook attempt"/g) ?? []).length;
    expect(made(a) + made(b)).toBe(2 * n);
    expect(made(a)).toBeGreaterThan(0);
    expect(made(b)).toBeGreaterThan(0);
    a.proc.kill('SIGTERM');
    b.proc.kill('SIGTERM');
    expect(await Promise.all([a.exited, b.exited])).toEqual([0, 0]);
  } finally {
    await r.close();
  }
});

it('refuses to run `worker` apart on the embedded database (one process owns it; `serve` runs the worker)', async () => {
  const refused = cli(['worker'], { DATABASE_URL: undefined, FEEDBACK_DATA_DIR: path.join(dir, 'data') });
  expect(await refused.exited).toBe(1);
  expect(refused.output()).toContain('error: the embedded database (no DATABASE_URL) belongs to one process');
  expect(fs.existsSync(path.join(dir, 'data'))).toBe(false);
});
