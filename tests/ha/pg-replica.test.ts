/**
 * Read replicas (docs/operations.md, "Read replicas") on a real streaming replica: the test starts its own
 * PostgreSQL primary and one replica (bench/pg-cluster.ts; the replica applies the WAL 1 s late, so a
 * read that went there too early would miss the write), and a `serve` process with `DATABASE_URL` on the
 * primary and `DATABASE_READ_URL` on the replica. It checks, over HTTP and /metrics, that lists are answered
 * by the replica, that a key reads its own write at once, that stopping the replica sends reads to the
 * primary without an error (and /readyz stays 200, listing the replica as down), and that the replica's return
 * is picked up. Needs initdb, pg_ctl and pg_basebackup; with CI=true missing binaries fail instead of skipping.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { nanoid } from 'nanoid';
import { importFixture } from '../../src/core/import/importer';
import { createDb, migrateLatest, type Db } from '../../src/db/connection';
import { freePort, pgBinDir, startPgCluster, type PgCluster } from '../../bench/pg-cluster';
import { sleep } from '../component/webhooks/harness';
import { cliJs } from '../support/cli';

jest.setTimeout(60_000);

const root = path.resolve(__dirname, '../..');
const bin = pgBinDir();
if (!bin && process.env.CI === 'true')
  throw new Error('initdb, pg_ctl and pg_basebackup not found (needed by the read replica test; CI=true does not skip it)');
const maybe = bin ? describe : describe.skip;

let cluster: PgCluster | undefined;
let db: Db | undefined;
let child: ChildProcess | undefined;
let base: string;
let output = '';
const ws = 'ws_replica';
const secret = `fa_${nanoid(40)}`;
// Unique per run: the write positions live in the shared Redis under the key's id.
const keyId = `key_replica${nanoid(8).replace(/[^a-zA-Z0-9]/g, 'x')}`;
const table = 'tbl_replica';

async function until<T>(what: string, ms: number, probe: () => Promise<T | undefined | false>): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe().catch(() => undefined);
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; serve said:\n${output.slice(-3000)}`);
    await sleep(100);
  }
}

async function serve(primary: string, replica: string): Promise<string> {
  const port = await freePort();
  child = spawn(process.execPath, [cliJs, 'serve', '--port', String(port)], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      DATABASE_URL: primary,
      DATABASE_READ_URL: replica,
      REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const proc = child;
  proc.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  proc.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<never>((_, reject) => proc.once('exit', (code) => reject(new Error(`serve exited ${code}: ${output}`))));
  await Promise.race([until('serve to listen', 30_000, async () => output.includes('feedback-service listening')), exited]);
  return `http://127.0.0.1:${port}`;
}

beforeAll(async () => {
  if (!bin) return;
  cluster = await startPgCluster({ bin, replicaSettings: ["recovery_min_apply_delay = '1s'"] });
  db = createDb({ databaseUrl: cluster.primary.url(), dataDir: '' });
  await migrateLatest(db);
  await importFixture(db, {
    workspaces: [{ id: ws, name: 'Replica', link: 'replica' }],
    api_keys: [{ id: keyId, name: 'replica', secret, workspace_ids: [ws] }],
    datatables: [
      {
        id: table,
        workspace_id: ws,
        name: 'Customers',
        fields: [{ name: 'id', type: 'string' }],
        rows: [{ row_id: 'row_replica', data: { id: 'c-fixture' } }],
      },
    ],
    forms: [{ id: 'frm_replica', workspace_id: ws, name: 'NPS', questions: [{ id: 'q_score', type: 'nps', title: 'How likely?', required: true }] }],
    responses: [
      {
        id: 'rsp_replica',
        form_id: 'frm_replica',
        score: 9,
        created_at: '2026-11-20T10:00:00Z',
        respondent_email: 'a@example.com',
        email_id: 'em_replica',
        answers: [{ question_id: 'q_score', value: 9 }],
      },
    ],
    email_events: [{ workspace_id: ws, email_id: 'em_replica', email: 'a@example.com', type: 'open', created_at: '2026-11-20T10:01:00Z' }],
    webhook_endpoints: [{ workspace_id: ws, url: 'https://hooks.example.com/replica', events: ['response.created'] }],
  });
  base = await serve(cluster.primary.url(), cluster.replicas[0]!.url());
}, 60_000);

afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    const gone = new Promise((r) => child!.once('exit', r));
    child.kill('SIGTERM');
    const kill = setTimeout(() => child!.kill('SIGKILL'), 10_000);
    await gone;
    clearTimeout(kill);
  }
  await db?.destroy();
  await cluster?.destroy();
}, 60_000);

const get = (p: string) => fetch(`${base}/api/v1/workspaces/${ws}${p}`, { headers: { 'X-API-Key': secret } });

/** `db_reads_total{target}` from /metrics. */
async function reads(): Promise<{ primary: number; replica: number }> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const count = (target: string) => Number(new RegExp(`^db_reads_total\\{target="${target}"\\} (\\d+)`, 'm').exec(text)?.[1] ?? NaN);
  return { primary: count('primary'), replica: count('replica') };
}

interface Readiness {
  status: string;
  checks: { database: string; replicas?: Array<{ name: string; state: string; lag_seconds: number | null }> };
}
const readiness = async () => {
  const res = await fetch(`${base}/readyz`);
  return { status: res.status, body: (await res.json()) as Readiness };
};
const replicaState = async () => (await readiness()).body.checks.replicas?.[0]?.state;

maybe('read replicas', () => {
  it('answers lists from the replica', async () => {
    await until('the replica to be ok', 15_000, async () => (await replicaState()) === 'ok');
    // The fixture reaches the replica 1 s after its commit.
    await until('the fixture on the replica', 15_000, async () => (await get(`/datatables/${table}/rows`)).status === 200);
    const before = await reads();
    const res = await get(`/datatables/${table}/rows`);
    expect(res.status).toBe(200);
    const after = await reads();
    expect(after.replica).toBe(before.replica + 1);
    expect(after.primary).toBe(before.primary);
  });

  it('answers every kind of read from the replica (none of them writes)', async () => {
    const endpoint = ((await (await get('/webhook-endpoints')).json()) as { data: Array<{ id: string }> }).data[0]!.id;
    const paths = [
      '',
      '/forms',
      '/forms/frm_replica',
      '/forms/frm_replica/schema',
      '/forms/frm_replica/analytics/summary',
      '/forms/frm_replica/analytics/questions',
      '/forms/frm_replica/analytics/timeseries?interval=day',
      '/forms/frm_replica/questions',
      '/forms/frm_replica/questions/q_score',
      '/forms/frm_replica/responses',
      '/forms/frm_replica/dashboard-links',
      '/responses',
      '/responses?page=1',
      '/responses/export?format=ndjson',
      '/responses/rsp_replica',
      '/datatables',
      `/datatables/${table}`,
      `/datatables/${table}/rows/row_replica`,
      '/tables',
      `/tables/${table}`,
      `/tables/${table}/fields`,
      `/tables/${table}/entries`,
      `/tables/${table}/entries/row_replica`,
      '/email-events',
      '/emails/em_replica/events',
      '/webhook-endpoints',
      `/webhook-endpoints/${endpoint}`,
      `/webhook-endpoints/${endpoint}/deliveries`,
      '/api-keys',
      `/api-keys/${keyId}/usage`,
      `/api-keys/${keyId}/migration-report`,
    ];
    const before = await reads();
    const failed: string[] = [];
    for (const p of paths) {
      const res = await get(p);
      const body = await res.text();
      if (res.status !== 200) failed.push(`${p}: ${res.status} ${body.slice(0, 200)}`);
    }
    expect(failed).toEqual([]);
    const v2 = await fetch(`${base}/api/v2/workspaces/${ws}/responses`, { headers: { 'X-API-Key': secret } });
    expect(v2.status).toBe(200);
    const after = await reads();
    expect(after.replica - before.replica).toBe(paths.length + 1);
    expect(after.primary).toBe(before.primary);
  });

  it('reads its own write back at once (on the primary while the replica has not replayed it)', async () => {
    for (let i = 0; i < 5; i++) {
      const created = await fetch(`${base}/api/v1/workspaces/${ws}/datatables/${table}/rows`, {
        method: 'POST',
        headers: { 'X-API-Key': secret, 'Content-Type': 'application/json' },
        body: JSON.stringify({ data: { id: `c-${i}` } }),
      });
      expect(created.status).toBe(201);
      const row = ((await created.json()) as { data: { row_id: string } }).data;
      const before = await reads();
      const back = await get(`/datatables/${table}/rows/${row.row_id}`);
      expect(back.status).toBe(200);
      // The replica applies the WAL 1 s late, so only the primary could have answered.
      expect((await reads()).primary).toBe(before.primary + 1);
    }
  });

  it('sends reads to the primary without an error while the replica is stopped, and back once it returns', async () => {
    await cluster!.stop(cluster!.replicas[0]!);
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await get(`/datatables/${table}/rows`)).status);
    expect(statuses).toEqual(Array(10).fill(200));
    await until('the replica to show as down', 10_000, async () => (await replicaState()) === 'down');
    const ready = await readiness();
    expect(ready.status).toBe(200);
    expect(ready.body.status).toBe('ok');
    const text = await (await fetch(`${base}/metrics`)).text();
    expect(text).toMatch(/^db_replica_up\{replica="127\.0\.0\.1:\d+\/postgres"\} 0$/m);
    const before = await reads();
    expect((await get(`/datatables/${table}/rows`)).status).toBe(200);
    expect((await reads()).primary).toBe(before.primary + 1);

    await cluster!.start(cluster!.replicas[0]!);
    await until('the replica to be ok again', 20_000, async () => (await replicaState()) === 'ok');
    const again = await reads();
    expect((await get(`/datatables/${table}/rows`)).status).toBe(200);
    expect((await reads()).replica).toBe(again.replica + 1);
    expect(await (await fetch(`${base}/metrics`)).text()).toMatch(/^db_replica_lag_seconds\{replica="127\.0\.0\.1:\d+\/postgres"\} [\d.]+$/m);
  });
});
