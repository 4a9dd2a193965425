/**
 * Nothing lost or half done (issue 30, item 6; docs/data-rights.md, "Crashes"), with real `feedback-service`
 * processes on this file's own PostgreSQL database (one process per server, so SIGKILL hits the server itself; PGlite
 * serves one process only, so these run on PostgreSQL): a bulk delete job killed in its middle leaves whole batches
 * and its progress equal to what went, and a worker started afterwards finishes it; an erasure killed inside its
 * transaction leaves nothing, and sent again it finishes; two erasures of one address sent at once to two processes
 * leave one record and one result. After each, the counters equal a fresh count.
 */
import { nanoid } from 'nanoid';
import { importFixture } from '../../../src/core/import/importer';
import type { Db } from '../../../src/db/connection';
import { childProcesses } from '../../support/child-cli';
import { formWorkspace, scenario } from '../../support/given';
import { freePort, until } from '../ops/helpers';
import { ownDatabase } from '../webhooks/harness';

jest.setTimeout(120_000);

let own: { url: string; db: Db; drop(): Promise<void> };
const { cli, killAll } = childProcesses();

beforeAll(async () => {
  own = await ownDatabase();
});
afterAll(async () => {
  killAll();
  await own.drop();
});

const BATCH = 5;
const env = () => ({ DATABASE_URL: own.url, RESPONSE_DELETE_INLINE_MAX: '10', RESPONSE_DELETE_BATCH_SIZE: String(BATCH) });

async function startServer(args: string[] = []) {
  const port = await freePort();
  const server = cli(['serve', '--port', String(port), ...args], env());
  await server.waitFor('listening');
  return { server, base: `http://127.0.0.1:${port}/api/v1/workspaces` };
}

async function send(url: string, key: string, body: unknown) {
  const res = await fetch(url, { method: 'POST', headers: { 'X-API-Key': key, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as { data: Record<string, unknown> } };
}

const count = async (q: Promise<unknown>) => Number(((await q) as Array<{ n: unknown }>)[0]!.n);

/** `response_counts` per form equals a fresh count of the workspace's responses. */
async function expectCountersFresh(ws: string): Promise<void> {
  const kept = (await own.db('response_counts').where('workspace_id', ws).groupBy('form_id').select('form_id').sum({ n: 'responses' })) as Array<{
    form_id: string;
    n: unknown;
  }>;
  const fresh = (await own.db('responses').where('workspace_id', ws).groupBy('form_id').select('form_id').count({ n: '*' })) as Array<{
    form_id: string;
    n: unknown;
  }>;
  const byForm = (rows: Array<{ form_id: string; n: unknown }>) =>
    Object.fromEntries(rows.filter((r) => Number(r.n) !== 0).map((r) => [r.form_id, Number(r.n)]));
  expect(byForm(kept)).toEqual(byForm(fresh));
}

/** Whether a backend of this database (not the test's own) holds a transaction that has written. */
async function writingTransactions(): Promise<number> {
  const res = (await own.db.raw(
    'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND backend_xid IS NOT NULL AND pid <> pg_backend_pid()',
  )) as { rows: Array<{ n: number }> };
  return res.rows[0]!.n;
}

it('a bulk delete job killed in its middle keeps whole batches; a worker started afterwards finishes it', async () => {
  const s = await scenario(own.db, { responseCount: 900 });
  const matched = s.responses.filter((r) => r.form_id === s.nps).length;
  const { server, base } = await startServer();
  await server.waitFor('webhook delivery worker started');
  const res = await send(`${base}/${s.ws}/response-deletions`, s.key, { form_id: s.nps });
  expect(res.status).toBe(202);
  const id = res.body.data.id as string;
  const progress = async () =>
    (await own.db('response_deletions').where({ workspace_id: s.ws, id }).first('status', 'deleted')) as { status: string; deleted: string | number };
  await until(async () => Number((await progress()).deleted) >= 4 * BATCH, 30_000);
  server.proc.kill('SIGKILL');
  await server.exited;
  await until(async () => (await writingTransactions()) === 0, 10_000);

  const mid = await progress();
  const left = await count(own.db('responses').where({ workspace_id: s.ws, form_id: s.nps }).count({ n: '*' }));
  expect(mid.status).toBe('running');
  expect(Number(mid.deleted)).toBeLessThan(matched);
  // Each batch's rows and its progress commit together: what went is exactly the progress, in whole batches.
  expect(matched - left).toBe(Number(mid.deleted));
  expect(Number(mid.deleted) % BATCH).toBe(0);
  await expectCountersFresh(s.ws);

  // The killed worker's job stays `active` until pg-boss expires it (DELETION_JOB_OPTIONS.expireInSeconds, 15 min)
  // and puts it up for retry; the test stands in for those minutes by doing what the expiry does.
  await own.db.raw(
    "UPDATE pgboss.job SET state = 'retry', start_after = now() WHERE name = 'response-deletion' AND state = 'active' AND data->>'deletionId' = ?",
    [id],
  );
  const worker = cli(['worker'], env());
  await until(async () => (await progress()).status === 'succeeded', 60_000);
  worker.proc.kill('SIGTERM');
  expect(await worker.exited).toBe(0);
  expect(Number((await progress()).deleted)).toBe(matched);
  expect(await count(own.db('responses').where({ workspace_id: s.ws, form_id: s.nps }).count({ n: '*' }))).toBe(0);
  await expectCountersFresh(s.ws);
});

describe('erasures across processes', () => {
  const plant = async (ws: string, form: string, address: string, n: number) =>
    importFixture(own.db, {
      responses: Array.from({ length: n }, (_, i) => ({
        form_id: form,
        score: i % 11,
        answers: [
          { question_id: 'q_plan', value: { id: 'opt_pro' } },
          { question_id: 'q_email', value: address },
        ],
      })),
    });
  const person = () =>
    `crash-${nanoid(8)
      .toLowerCase()
      .replace(/[^a-z0-9]/g, 'x')}@example.com`;
  const ofPerson = (ws: string, address: string) =>
    count(own.db('responses').where('workspace_id', ws).whereRaw('strpos(answers::text, ?) > 0', [address]).count({ n: '*' }));

  it('an erasure killed inside its transaction leaves nothing; sent again, it finishes with one record', async () => {
    const w = await formWorkspace(own.db);
    const address = person();
    await plant(w.ws, w.form, address, 1500);
    await plant(w.ws, w.form, 'kept@example.com', 3);
    const { server, base } = await startServer(['--no-worker']);
    const pending = send(`${base}/${w.ws}/erasure-requests`, w.key, { email: address }).catch(() => undefined);
    // Killed once the erasure's transaction has written (its record claimed, deletes under way), before it commits.
    await until(async () => (await writingTransactions()) > 0, 20_000);
    server.proc.kill('SIGKILL');
    await server.exited;
    await pending;
    await until(async () => (await writingTransactions()) === 0, 10_000);
    expect(await ofPerson(w.ws, address)).toBe(1500);
    expect(await own.db('erasure_requests').where('workspace_id', w.ws)).toHaveLength(0);
    expect(await own.db('email_suppressions').where('workspace_id', w.ws)).toHaveLength(0);
    await expectCountersFresh(w.ws);

    const again = await startServer(['--no-worker']);
    const done = await send(`${again.base}/${w.ws}/erasure-requests`, w.key, { email: address });
    expect(done.status).toBe(201);
    expect(done.body.data).toMatchObject({ runs: 1, removed: expect.objectContaining({ responses: 1500 }) });
    expect(await ofPerson(w.ws, address)).toBe(0);
    expect(await count(own.db('responses').where('workspace_id', w.ws).count({ n: '*' }))).toBe(3);
    expect(await own.db('erasure_requests').where('workspace_id', w.ws)).toHaveLength(1);
    await expectCountersFresh(w.ws);
    again.server.proc.kill('SIGTERM');
    await again.server.exited;
  });

  it('two erasures of one address sent at once to two processes leave one record and one result', async () => {
    const w = await formWorkspace(own.db);
    const address = person();
    await plant(w.ws, w.form, address, 200);
    const [one, two] = await Promise.all([startServer(['--no-worker']), startServer(['--no-worker'])]);
    const [a, b] = await Promise.all([
      send(`${one.base}/${w.ws}/erasure-requests`, w.key, { email: address }),
      send(`${two.base}/${w.ws}/erasure-requests`, w.key, { email: address.toUpperCase() }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 201]);
    expect(a.body.data.id).toBe(b.body.data.id);
    const removed = (r: typeof a) => (r.body.data.removed as { responses: number }).responses;
    expect(removed(a) + removed(b)).toBe(200);
    expect(await own.db('erasure_requests').where('workspace_id', w.ws)).toHaveLength(1);
    expect(await ofPerson(w.ws, address)).toBe(0);
    await expectCountersFresh(w.ws);
    for (const p of [one, two]) p.server.proc.kill('SIGTERM');
    await Promise.all([one.server.exited, two.server.exited]);
  });
});
