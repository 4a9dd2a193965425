/**
 * Redis with failover (docs/operations.md, "Redis with failover (Sentinel)"): two `serve` processes reach
 * Redis through three sentinels (`REDIS_URL=redis+sentinel://…/mymaster`). Under continuous load the
 * master is killed (SIGKILL): every request still answers, without a 5xx and within the outage rule
 * (docs/operations.md, "Redis down or hanging"), and once the sentinels promote the replica both
 * instances share their rate budgets in the new master again, without a restart.
 * Needs `redis-server` on PATH; with CI=true a missing binary fails instead of skipping.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import type { Db } from '../../src/db/connection';
import { ownDatabase } from '../component/webhooks/harness';
import { apiKey, freePort, getWorkspace, load, Processes, redisServerAvailable, sleep, until } from './processes';

// A set-up (up to 90 s), a failover and two waits of up to 20 s and 60 s on a busy 2-core machine.
jest.setTimeout(300_000);
// A failover under the load of a full suite run on 2 cores has, a few times, left one instance on its in-process
// fallback for the whole wait (its client never ready again; docs/operations.md, "Redis with failover (Sentinel)"):
// the whole scenario, set-up included, runs again once on a fresh set of processes before it counts as failed.
jest.retryTimes(1, { logErrorsBeforeRetry: true });

const hasRedisServer = redisServerAvailable('the Sentinel failover test');
const maybe = hasRedisServer ? describe : describe.skip;

let ps: Processes | undefined;
let own: { url: string; db: Db; drop(): Promise<void> } | undefined;
let masterPort: number;
let replicaPort: number;
let master: ChildProcess;
let a: string;
let b: string;

/** Starts a master, its replica, three sentinels and two `serve` instances on a database of their own. */
async function startSet(): Promise<void> {
  const p = (ps = new Processes());
  [masterPort, replicaPort] = [await freePort(), await freePort()];
  master = p.redisServer(masterPort);
  p.redisServer(replicaPort, ['--replicaof', '127.0.0.1', String(masterPort)]);
  const replica = p.client(replicaPort);
  await until('the replica to sync', 15_000, async () => (await replica.info('replication')).includes('master_link_status:up'));
  const sentinelPorts = [await freePort(), await freePort(), await freePort()];
  for (const port of sentinelPorts) {
    const conf = path.join(p.tmp, `sentinel-${port}.conf`);
    writeFileSync(
      conf,
      [
        `port ${port}`,
        'bind 127.0.0.1',
        'protected-mode no',
        `dir ${p.tmp}`,
        `sentinel monitor mymaster 127.0.0.1 ${masterPort} 2`,
        'sentinel down-after-milliseconds mymaster 1000',
        'sentinel failover-timeout mymaster 5000',
        '',
      ].join('\n'),
    );
    p.start('redis-server', [conf, '--sentinel']);
  }
  // A failover needs a quorum of sentinels that know each other and the replica.
  for (const port of sentinelPorts) {
    const s = p.client(port);
    await until(`sentinel ${port} to know its peers and the replica`, 20_000, async () => {
      const peers = (await s.call('SENTINEL', 'SENTINELS', 'mymaster')) as unknown[];
      const replicas = (await s.call('SENTINEL', 'REPLICAS', 'mymaster')) as unknown[];
      return peers.length === 2 && replicas.length === 1;
    });
  }
  own = await ownDatabase();
  const url = `redis+sentinel://${sentinelPorts.map((port) => `127.0.0.1:${port}`).join(',')}/mymaster`;
  const dbUrl = own.url;
  [a, b] = await Promise.all([p.serve(dbUrl, url), p.serve(dbUrl, url)]);
}

/** Stops every process of the set and drops its database. */
async function stopSet(): Promise<void> {
  await ps?.stop();
  await own?.drop();
  ps = undefined;
  own = undefined;
}

afterAll(stopSet, 60_000);

const key = (limit: number) => apiKey(own!.db, limit);
const get = getWorkspace;

maybe('Redis through Sentinel', () => {
  it('keeps answering while the master dies, then shares the budgets in the promoted master', async () => {
    // A retry starts from a fresh set: the first one's master is dead.
    await stopSet();
    await startSet();
    const before = await key(1000);
    expect((await get(a, before)).headers.get('x-ratelimit-remaining')).toBe('999');
    expect((await get(b, before)).headers.get('x-ratelimit-remaining')).toBe('998');
    const oldMaster = ps!.client(masterPort);
    expect(await oldMaster.keys(`*${before.id}*`)).toHaveLength(1);
    oldMaster.disconnect();

    // Continuous load on both instances through the failover.
    const loadKey = await key(100_000);
    const { answers, stop } = load([a, b], loadKey);
    await sleep(500);
    master.kill('SIGKILL');
    const killedAt = answers.length;

    const replica = ps!.client(replicaPort);
    try {
      await until('the replica to be promoted', 20_000, async () => ((await replica.call('ROLE')) as unknown[])[0] === 'master');
      // Both instances count in the new master again: one shared budget, stored there. The budget is
      // large so that polling on a slow machine never runs it out (a 429 would read as "not shared").
      const after = await key(100_000);
      let last = 'no answer yet';
      await until('the budget to be shared in the promoted master', 60_000, async () => {
        const answers = [await get(a, after), await get(b, after)];
        await Promise.all(answers.map((r) => r.arrayBuffer()));
        const [x, y] = answers.map((r) => Number(r.headers.get('x-ratelimit-remaining'))) as [number, number];
        const keys = await replica.keys(`*${after.id}*`);
        last = `statuses ${answers.map((r) => r.status).join(', ')}, remaining ${x} then ${y}, ${keys.length} keys in the promoted master`;
        return y === x - 1 && keys.length === 1;
      }).catch((err: Error) => {
        // What the two instances last answered and logged about Redis, for a failure seen only in a busy CI.
        const redisLines = ps!.serveLogs.map(
          (out, i) =>
            `instance ${i + 1}:\n${out()
              .split('\n')
              .filter((l) => /redis/i.test(l))
              .slice(-8)
              .join('\n')}`,
        );
        throw new Error(`${err.message} (${last})\n${redisLines.join('\n')}`);
      });
    } finally {
      await stop();
    }

    expect(answers.length).toBeGreaterThan(killedAt);
    expect(answers.filter((x) => x.status >= 500)).toEqual([]);
    expect(answers.filter((x) => x.status !== 200)).toEqual([]);
    expect(Math.max(...answers.map((x) => x.ms))).toBeLessThan(2_000);
    // The switch is one outage per instance: logged once when it starts, once when Redis is back.
    for (const out of ps!.serveLogs) {
      expect(out().split('Redis unavailable').length - 1).toBe(1);
      expect(out().split('Redis is back').length - 1).toBe(1);
    }
  });
});
