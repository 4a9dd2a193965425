/**
 * The read-replica rows of `npm run bench` (docs/performance.md, "Read replicas"): on a primary and one
 * streaming replica of its own (bench/pg-cluster.ts, free loopback ports), seeded with N responses, the
 * same app runs twice, one process each: on the primary alone ("one database") and with the replica as
 * DATABASE_READ_URL ("with replica"). Interleaved rounds of the Style A list and the per-question analytics
 * (a reading key), the Style A upsert (a writing key: the primary), and both at once, then the reads per
 * target from the replica app's /metrics (`db_reads_total`), so the report shows that the reads went to
 * the replica and what the routing costs. Database, replica, servers and load share the machine: on 2 cores
 * this measures correctness and overhead, not a speed-up.
 */
import pg from 'pg';
import { createApiKey } from '../src/core/api-keys/create-api-key';
import { importFixture } from '../src/core/import/importer';
import { createDb } from '../src/db/connection';
import { parseLsn } from '../src/db/replicas';
import { interleave, runLoad, type Interleaved, type LoadRun, type Workload } from './load';
import { pgBinDir, startPgCluster } from './pg-cluster';
import { serve, type Runtime, type Served } from './procs';
import { seed, withDatabase } from './seed';

export interface ReplicaRunOptions {
  responses: number;
  duration: number;
  rounds: number;
  warmup: number;
  connections: number;
  runtime: Runtime;
  log: (line: string) => void;
}

const ONE = 'one database';
const WITH = 'with replica';
const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** `db_reads_total{target}` of one app, from its /metrics. */
async function readsOf(s: Served): Promise<{ primary: number; replica: number }> {
  const text = await (await fetch(`${s.url}/metrics`)).text();
  const count = (target: string) => Number(new RegExp(`^db_reads_total\\{target="${target}"\\} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
  return { primary: count('primary'), replica: count('replica') };
}

/** Waits until the replica has replayed everything the primary had written when called. */
async function caughtUp(primaryUrl: string, replicaUrl: string, log: (line: string) => void): Promise<number> {
  const started = Date.now();
  const one = async (url: string, sql: string) => {
    const c = new pg.Client(url);
    await c.connect();
    try {
      return parseLsn(((await c.query(sql)).rows[0] as { lsn: string }).lsn);
    } finally {
      await c.end();
    }
  };
  const target = await one(primaryUrl, 'select pg_current_wal_lsn()::text as lsn');
  while ((await one(replicaUrl, 'select pg_last_wal_replay_lsn()::text as lsn')) < target) {
    if (Date.now() - started > 600_000) throw new Error('the replica did not catch up within 10 minutes');
    await new Promise((r) => setTimeout(r, 500));
  }
  const seconds = (Date.now() - started) / 1000;
  log(`replica caught up with the seed ${seconds.toFixed(1)} s after it ended`);
  return seconds;
}

/**
 * Runs the comparison and returns the report's section (Markdown lines), or a line saying why it was not
 * measured (no PostgreSQL server binaries).
 * @throws when a server does not start or a warm-up answer is not 2xx (the run is wrong, not slow)
 */
export async function measureReplica(o: ReplicaRunOptions): Promise<{ lines: string[]; failed: boolean }> {
  const bin = pgBinDir();
  if (!bin) return { lines: ['## Read replicas', '', 'Not measured: initdb, pg_ctl and pg_basebackup were not found (set PG_BIN).', ''], failed: false };
  o.log('replica: starting a primary and a streaming replica…');
  const cluster = await startPgCluster({ bin });
  const servers: Served[] = [];
  try {
    const s = await seed({ responses: o.responses, serverUrl: cluster.primary.url(), log: (l) => o.log(`replica seed: ${l}`) });
    const replicaUrl = withDatabase(cluster.replicas[0]!.url(), s.databaseName);
    const db = createDb({ databaseUrl: s.databaseUrl, dataDir: '.data', poolMax: 2 });
    let writer: string;
    const datatableId = 'tbl_bench_replica';
    let bigForm: string;
    try {
      writer = (await createApiKey(db, { name: 'bench writer', workspaceIds: [s.workspaceId], rateLimitPerMinute: 10_000_000 })).secret;
      await importFixture(db, {
        datatables: [
          {
            id: datatableId,
            workspace_id: s.workspaceId,
            name: 'Replica bench',
            fields: [
              { name: 'id', type: 'string' },
              { name: 'seats', type: 'number' },
            ],
          },
        ],
      });
      const [big] = (await db('response_counts')
        .where('workspace_id', s.workspaceId)
        .groupBy('form_id')
        .select('form_id')
        .orderByRaw('sum(responses) desc')
        .limit(1)) as Array<{ form_id: string }>;
      bigForm = big!.form_id;
    } finally {
      await db.destroy();
    }
    const lagAfterSeed = await caughtUp(s.databaseUrl, replicaUrl, o.log);

    const base = `/api/v1/workspaces/${s.workspaceId}`;
    const reader = { 'X-API-Key': s.apiKey };
    const listW: Workload = { name: 'Style A list', method: 'GET', path: `${base}/responses?form_id=${bigForm}&score_gte=9&limit=20`, headers: reader };
    const analyticsW: Workload = { name: 'Per-question analytics', method: 'GET', path: `${base}/forms/${bigForm}/analytics/questions`, headers: reader };
    const upsertW: Workload = {
      name: 'Style A upsert',
      method: 'POST',
      path: `${base}/datatables/${datatableId}/rows`,
      headers: { 'X-API-Key': writer, 'content-type': 'application/json' },
      body: (n, run) => JSON.stringify({ data: { id: n % 2 === 0 ? `c-${(n >> 1) % 1000}` : `n-${run}-${n}`, seats: n % 97 } }),
    };

    o.log('replica: starting the app on the primary alone and the app with the replica…');
    const one = await serve('app', s.databaseUrl, o.runtime);
    servers.push(one);
    const withReplica = await serve('app', s.databaseUrl, o.runtime, 'info', replicaUrl);
    servers.push(withReplica);
    const ids = async (sv: Served) =>
      JSON.stringify(((await (await fetch(sv.url + listW.path, { headers: reader })).json()) as { data: Array<{ id: string }> }).data.map((r) => r.id));
    if ((await ids(one)) !== (await ids(withReplica))) throw new Error('the app with the replica lists other rows than the app on the primary');
    const before = await readsOf(withReplica);

    const lo = { rounds: o.rounds, duration: o.duration, warmup: o.warmup, connections: o.connections, log: o.log };
    const both = (w: Workload) => [
      { label: ONE, url: one.url, workload: w },
      { label: WITH, url: withReplica.url, workload: w },
    ];
    const results: Array<[string, Interleaved[]]> = [];
    for (const w of [listW, analyticsW, upsertW]) {
      o.log(`replica: ${w.name}, ${ONE} vs ${WITH}…`);
      results.push([w.name, await interleave(both(w), lo)]);
    }
    o.log('replica: list and upsert at once (a reading key and a writing key)…');
    const mixed: Array<{ label: string; runs: LoadRun[] }> = [];
    for (const sv of [one, withReplica]) {
      const label = sv === one ? ONE : WITH;
      const half = Math.floor(o.connections / 2);
      mixed.push({
        label,
        runs: await Promise.all([runLoad(label, sv.url, listW, o.duration, o.connections - half), runLoad(label, sv.url, upsertW, o.duration, half)]),
      });
    }
    const after = await readsOf(withReplica);
    const lagText = (await (await fetch(`${withReplica.url}/metrics`)).text()).match(/^db_replica_lag_seconds\{[^}]*\} (\S+)$/m)?.[1] ?? '?';

    const all = [...results.flatMap(([, r]) => r.flatMap((x) => x.runs)), ...mixed.flatMap((m) => m.runs)];
    const bad = all.reduce((a, r) => a + r.non2xx + r.errors, 0);
    const lines: string[] = [];
    const out = (l = '') => lines.push(l);
    out('## Read replicas (one streaming replica)');
    out();
    out(
      `A primary and one streaming replica started for this run (PostgreSQL's own \`initdb\` / \`pg_basebackup -R\`, default settings plus \`fsync=off\`, on this machine), ${fmt(o.responses)} responses seeded on the primary (the replica had replayed them ${lagAfterSeed.toFixed(1)} s after the seed ended). The same app twice: **${ONE}** (\`DATABASE_URL\` only) and **${WITH}** (\`DATABASE_READ_URL\` = the replica). Lists and analytics use one key, upserts another (a key that writes reads its next requests from the primary: docs/operations.md, "Read replicas"). ${o.connections} connections, ${o.rounds} interleaved rounds of ${o.duration} s, medians.`,
    );
    out();
    out(`| Workload | ${ONE}, req/s | ${WITH}, req/s | Ratio | p99 (ms), ${ONE} / ${WITH} |`);
    out('|---|---:|---:|---:|---|');
    for (const [name, [a, b]] of results) {
      const p99 = (x: Interleaved) => Math.max(...x.runs.map((r) => r.latencyP99));
      out(`| ${name} | ${fmt(a!.medianRps)} | ${fmt(b!.medianRps)} | ${(b!.medianRps / a!.medianRps).toFixed(2)}x | ${p99(a!)} / ${p99(b!)} |`);
    }
    for (const w of [listW, upsertW]) {
      const r = (label: string) => mixed.find((m) => m.label === label)!.runs.find((x) => x.workload === w.name)!;
      out(
        `| ${w.name}, while the other runs (one run) | ${fmt(r(ONE).rps)} | ${fmt(r(WITH).rps)} | ${(r(WITH).rps / r(ONE).rps).toFixed(2)}x | ${r(ONE).latencyP99} / ${r(WITH).latencyP99} |`,
      );
    }
    out();
    out(
      `Reads of the app ${WITH} during the runs (\`db_reads_total\`): ${fmt(after.replica - before.replica)} on the replica, ${fmt(after.primary - before.primary)} on the primary; \`db_replica_lag_seconds\` at the end: ${lagText}. ${bad === 0 ? 'Every answer was 2xx.' : `**${fmt(bad)} answers outside 2xx or errors.**`}`,
    );
    out();
    out(
      'On this 2-core machine the primary, the replica, both apps and the load generator share the same cores, so a replica adds work (WAL streaming and replay, a second server process, the poll every second, a Redis lookup per read) and no capacity: the ratio shows the overhead of the routing, not the gain a replica on its own machine gives.',
    );
    out();
    return { lines, failed: bad > 0 };
  } finally {
    await Promise.all(servers.map((x) => x.stop()));
    await cluster.destroy();
  }
}
