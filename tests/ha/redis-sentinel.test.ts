/**
 * Redis with failover (docs/operations.md, "Redis with failover (Sentinel)"): two `serve` processes reach
 * Redis through three sentinels (`REDIS_URL=redis+sentinel://…/mymaster`). Under continuous load the
 * master is killed (SIGKILL): every request still answers, without a 5xx and within the outage rule
 * (docs/operations.md, "Redis down or hanging"), and once the sentinels promote the replica both
 * instances share their rate budgets in the new master again, without a restart.
 * Needs `redis-server` on PATH; with CI=true a missing binary fails instead of skipping.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import Redis from 'ioredis';
import { nanoid } from 'nanoid';
import { importFixture } from '../../src/core/import/importer';
import type { Db } from '../../src/platform/db/connection';
import { uid } from '../support/given';
import { ownDatabase, sleep } from '../component/webhooks/harness';

jest.setTimeout(90_000);

const root = path.resolve(__dirname, '../..');
const hasRedisServer = spawnSync('redis-server', ['--version']).status === 0;
if (!hasRedisServer && process.env.CI === 'true') throw new Error('redis-server is not on PATH (needed by the Sentinel failover test; CI=true does not skip it)');
const maybe = hasRedisServer ? describe : describe.skip;

const children: ChildProcess[] = [];
const clients: Redis[] = [];
let tmp: string;
let own: { url: string; db: Db; drop(): Promise<void> };
let masterPort: number;
let replicaPort: number;
let master: ChildProcess;
let a: string;
let b: string;
const logs: Array<() => string> = [];

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

function start(cmd: string, args: string[], env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? '' }): { proc: ChildProcess; out: () => string } {
  const proc = spawn(cmd, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(proc);
  let out = '';
  proc.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  proc.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  return { proc, out: () => out };
}

function client(port: number): Redis {
  const c = new Redis({ host: '127.0.0.1', port, lazyConnect: false, maxRetriesPerRequest: 1, retryStrategy: () => 200 });
  c.on('error', () => undefined);
  clients.push(c);
  return c;
}

async function until<T>(what: string, ms: number, probe: () => Promise<T | undefined | false>): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe().catch(() => undefined);
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

async function serve(redisUrl: string): Promise<string> {
  const port = await freePort();
  const { proc, out } = start(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'serve', '--port', String(port)], {
    PATH: process.env.PATH ?? '',
    DATABASE_URL: own.url,
    REDIS_URL: redisUrl,
    LOG_LEVEL: 'info',
  });
  logs.push(out);
  await new Promise<void>((resolve, reject) => {
    const timer = setInterval(() => {
      if (out().includes('feedback-service listening')) {
        clearInterval(timer);
        resolve();
      }
    }, 50);
    proc.once('exit', (code) => {
      clearInterval(timer);
      reject(new Error(`serve exited ${code}: ${out()}`));
    });
  });
  return `http://127.0.0.1:${port}`;
}

beforeAll(async () => {
  if (!hasRedisServer) return;
  tmp = mkdtempSync(path.join(os.tmpdir(), 'fs-sentinel-'));
  [masterPort, replicaPort] = [await freePort(), await freePort()];
  const common = ['--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'no', '--dir', tmp];
  master = start('redis-server', ['--port', String(masterPort), ...common]).proc;
  start('redis-server', ['--port', String(replicaPort), ...common, '--replicaof', '127.0.0.1', String(masterPort)]);
  const replica = client(replicaPort);
  await until('the replica to sync', 15_000, async () => (await replica.info('replication')).includes('master_link_status:up'));
  const sentinelPorts = [await freePort(), await freePort(), await freePort()];
  for (const port of sentinelPorts) {
    const conf = path.join(tmp, `sentinel-${port}.conf`);
    writeFileSync(
      conf,
      [
        `port ${port}`,
        'bind 127.0.0.1',
        'protected-mode no',
        `dir ${tmp}`,
        `sentinel monitor mymaster 127.0.0.1 ${masterPort} 2`,
        'sentinel down-after-milliseconds mymaster 1000',
        'sentinel failover-timeout mymaster 5000',
        '',
      ].join('\n'),
    );
    start('redis-server', [conf, '--sentinel']);
  }
  // A failover needs a quorum of sentinels that know each other and the replica.
  for (const port of sentinelPorts) {
    const s = client(port);
    await until(`sentinel ${port} to know its peers and the replica`, 20_000, async () => {
      const peers = (await s.call('SENTINEL', 'SENTINELS', 'mymaster')) as unknown[];
      const replicas = (await s.call('SENTINEL', 'REPLICAS', 'mymaster')) as unknown[];
      return peers.length === 2 && replicas.length === 1;
    });
  }
  own = await ownDatabase();
  const url = `redis+sentinel://${sentinelPorts.map((p) => `127.0.0.1:${p}`).join(',')}/mymaster`;
  [a, b] = await Promise.all([serve(url), serve(url)]);
}, 90_000);

afterAll(async () => {
  await Promise.all(clients.filter((c) => c.status !== 'end').map((c) => (c.status === 'ready' ? c.quit().catch(() => c.disconnect()) : c.disconnect())));
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await Promise.all(children.map((c) => (c.exitCode === null && c.signalCode === null ? new Promise((r) => c.once('exit', r)) : undefined)));
  await own?.drop();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
}, 60_000);

async function key(limit: number): Promise<{ ws: string; id: string; secret: string }> {
  const ws = uid('ws');
  const k = { id: uid('key'), secret: `fa_${nanoid(40)}` };
  await importFixture(own.db, {
    workspaces: [{ id: ws, name: ws, link: ws.toLowerCase().replace(/_/g, '-') }],
    api_keys: [{ id: k.id, name: 'ha', secret: k.secret, workspace_ids: [ws], rate_limit_per_minute: limit }],
  });
  return { ws, ...k };
}

const get = (base: string, k: { ws: string; secret: string }) => fetch(`${base}/api/v1/workspaces/${k.ws}`, { headers: { 'X-API-Key': k.secret } });

maybe('Redis through Sentinel', () => {
  it('keeps answering while the master dies, then shares the budgets in the promoted master', async () => {
    const before = await key(1000);
    expect((await get(a, before)).headers.get('x-ratelimit-remaining')).toBe('999');
    expect((await get(b, before)).headers.get('x-ratelimit-remaining')).toBe('998');
    const oldMaster = client(masterPort);
    expect(await oldMaster.keys(`*${before.id}*`)).toHaveLength(1);
    oldMaster.disconnect();

    // Continuous load on both instances through the failover.
    const load = await key(100_000);
    const answers: Array<{ status: number; ms: number }> = [];
    let loading = true;
    const loop = async (base: string) => {
      while (loading) {
        const t = Date.now();
        const r = await get(base, load);
        await r.arrayBuffer();
        answers.push({ status: r.status, ms: Date.now() - t });
        await sleep(20);
      }
    };
    const loops = [loop(a), loop(b)];
    await sleep(500);
    master.kill('SIGKILL');
    const killedAt = answers.length;

    const replica = client(replicaPort);
    await until('the replica to be promoted', 20_000, async () => ((await replica.call('ROLE')) as unknown[])[0] === 'master');
    // Both instances count in the new master again: one shared budget, stored there.
    const after = await key(50);
    await until('the budget to be shared in the promoted master', 15_000, async () => {
      const remaining: Array<string | null> = [];
      for (const base of [a, b]) remaining.push((await get(base, after)).headers.get('x-ratelimit-remaining'));
      const [x, y] = remaining.map(Number) as [number, number];
      return y === x - 1 && (await replica.keys(`*${after.id}*`)).length === 1;
    });
    loading = false;
    await Promise.all(loops);

    expect(answers.length).toBeGreaterThan(killedAt);
    expect(answers.filter((x) => x.status >= 500)).toEqual([]);
    expect(answers.filter((x) => x.status !== 200)).toEqual([]);
    expect(Math.max(...answers.map((x) => x.ms))).toBeLessThan(2_000);
    // The switch is one outage per instance: logged once when it starts, once when Redis is back.
    for (const out of logs) {
      expect(out().split('Redis unavailable').length - 1).toBe(1);
      expect(out().split('Redis is back').length - 1).toBe(1);
    }
  });
});
