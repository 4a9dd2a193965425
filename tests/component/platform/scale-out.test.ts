/**
 * Two `serve` processes on one PostgreSQL and one Redis act as one service (docs/operations.md, "Several instances behind a load balancer";
 * docs/operations.md): a key or a dashboard link (docs/analytics.md, "Dashboard links") revoked through one instance is
 * refused within 1 s by the other, the rate budget
 * of a key is shared, and webhook attempts are not doubled although both instances run the worker.
 * The CLI runs as child processes (`node dist/src/cli/main.js serve`, tests/support/cli.ts cliJs) on this file's own database.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { nanoid } from 'nanoid';
import { importFixture } from '../../../src/core/import/importer';
import type { Db } from '../../../src/db/connection';
import { KEY_CACHE_TTL_MS } from '../../../src/platform/auth/key-cache';
import { surveyForm, uid } from '../../support/given';
import { ownDatabase, receiver, sleep, type Receiver } from '../webhooks/harness';
import { cliJs } from '../../support/cli';

jest.setTimeout(90_000);

const root = path.resolve(__dirname, '../../..');
const children: ChildProcess[] = [];
let own: { url: string; db: Db; drop(): Promise<void> };
let hook: Receiver;
let a: string;
let b: string;
let stopping = false;

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** Starts `serve` on a free port with the shared database and Redis; resolves with its base URL once listening. */
async function serve(): Promise<string> {
  const port = await freePort();
  const proc = spawn(process.execPath, [cliJs, 'serve', '--port', String(port)], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      DATABASE_URL: own.url,
      REDIS_URL: process.env.TEST_REDIS_URL!,
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_RETRY_SCHEDULE: '0.2,0.2',
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(proc);
  let out = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${out}`)), 60_000);
    const onData = (c: Buffer) => {
      out += c.toString();
      if (out.includes('feedback-service listening')) {
        clearTimeout(timer);
        resolve();
      }
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    proc.once('exit', (code) => reject(new Error(`serve exited ${code}: ${out}`)));
  });
  // An instance that stops before afterAll makes every later request fail with ECONNREFUSED: say why.
  proc.once('exit', (code, signal) => {
    if (!stopping) console.error(`serve on port ${port} exited (${code ?? signal}) during the tests; its output:\n${out}`);
  });
  return `http://127.0.0.1:${port}`;
}

beforeAll(async () => {
  own = await ownDatabase();
  hook = await receiver(() => ({ status: 204 }));
  [a, b] = await Promise.all([serve(), serve()]);
});
afterAll(async () => {
  stopping = true;
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGTERM');
  await Promise.all(children.map((c) => (c.exitCode === null ? new Promise((r) => c.once('exit', r)) : Promise.resolve())));
  await hook?.close();
  await own?.drop();
}, 60_000);

/** A workspace with keys of the given rate limits (all scopes); returns the workspace and the secrets. */
async function workspace(limits: Array<number | undefined>): Promise<{ ws: string; keys: Array<{ id: string; secret: string }> }> {
  const ws = uid('ws');
  const keys = limits.map(() => ({ id: uid('key'), secret: `fa_${nanoid(40)}` }));
  await importFixture(own.db, {
    workspaces: [{ id: ws, name: ws, link: ws.toLowerCase().replace(/_/g, '-') }],
    api_keys: keys.map((k, i) => ({
      id: k.id,
      name: `key ${i}`,
      secret: k.secret,
      workspace_ids: [ws],
      ...(limits[i] ? { rate_limit_per_minute: limits[i] } : {}),
    })),
    datatables: [{ id: `tbl_${ws}`, workspace_id: ws, name: 'Customers', fields: [{ name: 'id', type: 'string' }] }],
  });
  return { ws, keys };
}

const get = (base: string, path: string, key: string) => fetch(`${base}${path}`, { headers: { 'X-API-Key': key } });

describe('two instances on one PostgreSQL and Redis', () => {
  it('refuses a key on the other instance within 1 s of one instance revoking it', async () => {
    const { ws, keys } = await workspace([undefined, undefined]);
    const [admin, victim] = keys as [{ id: string; secret: string }, { id: string; secret: string }];
    expect((await get(b, `/api/v1/workspaces/${ws}`, victim.secret)).status).toBe(200);
    const revoked = await fetch(`${a}/api/v1/workspaces/${ws}/api-keys/${victim.id}`, { method: 'DELETE', headers: { 'X-API-Key': admin.secret } });
    expect(revoked.status).toBe(204);
    // The promise is "within 1 s": the change notice usually empties b's cache in milliseconds, and a
    // request sent once 1 s has passed must be refused whatever the notice did (the cache's lifetime).
    const since = Date.now();
    let after = await get(b, `/api/v1/workspaces/${ws}`, victim.secret);
    while (after.status !== 401) {
      const late = Date.now() - since >= KEY_CACHE_TTL_MS;
      if (!late) await sleep(25);
      after = await get(b, `/api/v1/workspaces/${ws}`, victim.secret);
      if (late) break;
    }
    expect(after.status).toBe(401);
    expect(((await after.json()) as { error: { code: string } }).error.code).toBe('api_key_expired');
  });

  it('refuses a dashboard link on the other instance within 1 s of one instance revoking it', async () => {
    const { ws, keys } = await workspace([undefined]);
    const key = keys[0]!.secret;
    const form = uid('frm');
    await importFixture(own.db, { forms: [surveyForm(ws, form)] });
    const links = `/api/v1/workspaces/${ws}/forms/${form}/dashboard-links`;
    const made = await fetch(`${a}${links}`, { method: 'POST', headers: { 'X-API-Key': key } });
    expect(made.status).toBe(201);
    const { id, url } = ((await made.json()) as { data: { id: string; url: string } }).data;
    const pagePath = new URL(url).pathname;
    expect((await fetch(`${b}${pagePath}`)).status).toBe(200);
    expect((await fetch(`${a}${links}/${id}`, { method: 'DELETE', headers: { 'X-API-Key': key } })).status).toBe(204);
    // Each page request reads the link's row: the promise is "within 1 s"; poll until then, never longer.
    const since = Date.now();
    let after = await fetch(`${b}${pagePath}`);
    while (after.status !== 404 && Date.now() - since < 1000) {
      await sleep(25);
      after = await fetch(`${b}${pagePath}`);
    }
    expect(after.status).toBe(404);
    expect(after.headers.get('content-type')).toMatch(/^text\/html/);
  });

  it('shares one rate budget per key between the instances', async () => {
    const { ws, keys } = await workspace([4]);
    const key = keys[0]!.secret;
    const remaining: Array<string | null> = [];
    for (const base of [a, b, a, b]) remaining.push((await get(base, `/api/v1/workspaces/${ws}`, key)).headers.get('x-ratelimit-remaining'));
    expect(remaining).toEqual(['3', '2', '1', '0']);
    const refused = await get(b, `/api/v1/workspaces/${ws}`, key);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it('sends each webhook attempt once although both instances run the delivery worker', async () => {
    const { ws, keys } = await workspace([undefined]);
    const key = keys[0]!.secret;
    const path = `/${ws}`;
    const ep = await fetch(`${a}/api/v1/workspaces/${ws}/webhook-endpoints`, {
      method: 'POST',
      headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
      body: JSON.stringify({ url: `${hook.url}${path}`, events: ['row.created'] }),
    });
    expect(ep.status).toBe(201);
    const n = 8;
    for (let i = 0; i < n; i++) {
      const res = await fetch(`${i % 2 ? a : b}/api/v1/workspaces/${ws}/datatables/tbl_${ws}/rows`, {
        method: 'POST',
        headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
        body: JSON.stringify({ data: { id: `c-${i}` } }),
      });
      expect(res.status).toBe(201);
    }
    const mine = () => hook.received.filter((r) => r.path === path);
    const until = Date.now() + 30_000;
    while (mine().length < n && Date.now() < until) await sleep(100);
    await sleep(2000); // a doubled attempt would arrive by now
    const ids = mine().map((r) => r.headers['webhook-id']);
    expect(ids).toHaveLength(n);
    expect(new Set(ids).size).toBe(n);
  });
});
