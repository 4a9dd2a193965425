/**
 * Redis Cluster (docs/operations.md, "Redis Cluster"): two `serve` processes reach a cluster of three
 * masters with a replica each (real `redis-server --cluster-enabled yes` processes) through
 * `REDIS_URL=redis+cluster://…` naming two seed nodes. Rate budgets are shared and idempotent writes
 * replay across the instances, with the service's keys spread over the masters. Then a master is killed
 * (SIGKILL) under load: every request still answers, without a 5xx, and once the cluster has promoted
 * its replica both instances share their budgets there again, without a restart.
 * Needs `redis-server` and `redis-cli` on PATH; with CI=true a missing binary fails instead of skipping.
 */
import path from 'node:path';
import type Redis from 'ioredis';
import type { Db } from '../../src/db/connection';
import { ownDatabase } from '../component/webhooks/harness';
import { apiKey, freePort, getWorkspace, load, Processes, redisServerAvailable, sleep, until } from './processes';

jest.setTimeout(120_000);

const hasRedisServer = redisServerAvailable('the Redis Cluster test');
const maybe = hasRedisServer ? describe : describe.skip;

let ps: Processes | undefined;
let own: { url: string; db: Db; drop(): Promise<void> };
let ports: number[];
let a: string;
let b: string;

beforeAll(async () => {
  if (!hasRedisServer) return;
  const p = (ps = new Processes());
  ports = [];
  for (let i = 0; i < 6; i++) ports.push(await freePort());
  for (const port of ports) {
    p.redisServer(port, ['--cluster-enabled', 'yes', '--cluster-config-file', path.join(p.tmp, `nodes-${port}.conf`), '--cluster-node-timeout', '1000']);
  }
  const nodes = ports.map((port) => p.client(port));
  for (const [i, c] of nodes.entries()) await until(`node ${ports[i]} to answer`, 10_000, async () => (await c.ping()) === 'PONG');
  // Three masters, a replica each.
  const create = p.start('redis-cli', ['--cluster', 'create', ...ports.map((port) => `127.0.0.1:${port}`), '--cluster-replicas', '1', '--cluster-yes']);
  const code = await new Promise((resolve) => create.proc.once('exit', resolve));
  if (code !== 0) throw new Error(`redis-cli --cluster create failed: ${create.out()}`);
  await until('every node to see the cluster ok and every replica in sync', 20_000, async () => {
    for (const c of nodes) {
      if (!String(await c.cluster('INFO')).includes('cluster_state:ok')) return false;
      const role = (await c.call('ROLE')) as unknown[];
      if (role[0] === 'slave' && role[3] !== 'connected') return false;
    }
    return true;
  });
  own = await ownDatabase();
  const url = `redis+cluster://127.0.0.1:${ports[0]},127.0.0.1:${ports[1]}`;
  [a, b] = await Promise.all([p.serve(own.url, url), p.serve(own.url, url)]);
}, 60_000);

afterAll(async () => {
  await ps?.stop();
  await own?.drop();
}, 30_000);

type Key = Awaited<ReturnType<typeof apiKey>>;
const key = (limit: number) => apiKey(own.db, limit);
const get = getWorkspace;
const addRow = (base: string, k: Key, idempotencyKey: string) =>
  fetch(`${base}/api/v1/workspaces/${k.ws}/datatables/tbl_${k.ws}/rows`, {
    method: 'POST',
    headers: { 'X-API-Key': k.secret, 'Content-Type': 'application/json', 'Idempotency-Key': idempotencyKey },
    body: JSON.stringify({ data: { id: 'c-1' } }),
  });

/** The masters now, each with a client of its own. */
async function masters(): Promise<Array<{ port: number; redis: Redis }>> {
  const found: Array<{ port: number; redis: Redis }> = [];
  for (const port of ports) {
    const redis = ps!.client(port);
    const role = (await redis.call('ROLE').catch(() => ['gone'])) as unknown[];
    if (role[0] === 'master') found.push({ port, redis });
    else redis.disconnect();
  }
  return found;
}

/** Whether `node` holds the rate-limit counter (or any other key) of API key `k`. */
const holds = async (node: Redis, k: Key) => (await node.keys(`*${k.id}*`)).length > 0;

/** A new API key whose rate-limit counter (after one request on `a`) lives on `master`. */
async function keyOn(master: Redis, limit: number): Promise<Key> {
  for (let i = 0; i < 40; i++) {
    const k = await key(limit);
    expect((await get(a, k)).status).toBe(200);
    if (await holds(master, k)) return k;
  }
  throw new Error('no key landed on the master in 40 tries');
}

maybe('Redis Cluster', () => {
  it('shares rate budgets and idempotent writes between instances, keys spread over the masters', async () => {
    const k = await key(1000);
    expect((await get(a, k)).headers.get('x-ratelimit-remaining')).toBe('999');
    expect((await get(b, k)).headers.get('x-ratelimit-remaining')).toBe('998');
    expect((await get(a, k)).headers.get('x-ratelimit-remaining')).toBe('997');

    const first = await addRow(a, k, 'cluster-1');
    expect(first.status).toBe(201);
    const retry = await addRow(b, k, 'cluster-1');
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await retry.text()).toBe(await first.text());

    // Every command names one key, so none is refused as CROSSSLOT wherever the keys land.
    const ms = await masters();
    expect(ms).toHaveLength(3);
    const used = async () => (await Promise.all(ms.map(async (m) => (await m.redis.keys('fs:*')).length > 0))).filter(Boolean).length;
    for (let i = 0; i < 30 && (await used()) < 2; i++) expect((await get(b, await key(10))).status).toBe(200);
    expect(await used()).toBeGreaterThanOrEqual(2);
  });

  it('keeps answering while a master dies, then shares the budgets in the promoted replica', async () => {
    const [victim] = await masters();
    const loadKey = await keyOn(victim!.redis, 100_000);
    // Large budgets: polling on a slow machine must never run one out (a 429 would read as "not shared").
    const after = await keyOn(victim!.redis, 100_000);
    const { answers, stop } = load([a, b], loadKey);
    await sleep(500);
    const replicaPort = await until('the victim to have a replica', 20_000, async () => {
      const info = await victim!.redis.info('replication');
      return Number(/slave0:ip=[^,]+,port=(\d+)/.exec(info)?.[1]) || undefined;
    });
    // A start on a busy machine may have timed a command out: wait until no instance is in an outage.
    const said = (out: () => string) => out().match(/Redis unavailable|Redis is back/g) ?? [];
    await until('both instances to use Redis', 10_000, async () => ps!.serveLogs.every((out) => said(out).at(-1) !== 'Redis unavailable'));
    const saidBefore = ps!.serveLogs.map((out) => said(out).length);
    ps!.killRedis(victim!.port);
    const killedAt = answers.length;

    const promoted = ps!.client(replicaPort);
    try {
      await until('the replica to be promoted', 20_000, async () => ((await promoted.call('ROLE')) as unknown[])[0] === 'master');
      await until('the budget to be shared in the promoted master', 30_000, async () => {
        const x = Number((await get(a, after)).headers.get('x-ratelimit-remaining'));
        const y = Number((await get(b, after)).headers.get('x-ratelimit-remaining'));
        return y === x - 1 && (await holds(promoted, after));
      });
    } finally {
      await stop();
    }

    expect(answers.length).toBeGreaterThan(killedAt);
    expect(answers.filter((x) => x.status !== 200)).toEqual([]);
    expect(Math.max(...answers.map((x) => x.ms))).toBeLessThan(2_000);
    // Each instance logged the lost master, then (within its 2 s check) that every master answers again.
    const since = () => ps!.serveLogs.map((out, i) => said(out).slice(saidBefore[i]));
    await until('both instances to log that Redis is back', 10_000, async () => since().every((words) => words.at(-1) === 'Redis is back'));
    for (const words of since()) expect(words[0]).toBe('Redis unavailable');
  });
});
