/**
 * Webhook delivery end to end (docs/webhooks.md, "Events and payloads"): writes through the API record events in their
 * transaction, the worker (in this process, on this file's own database) signs and POSTs them to
 * receivers on 127.0.0.1, retries on the short schedule, honours Retry-After, follows no redirect,
 * times out, disables on 410, and the delivery log shows every outcome.
 */
import { Webhook } from 'standardwebhooks';
import { importFixture } from '../../../src/core/import/importer';
import { recordEvents } from '../../../src/core/webhooks/outbox';
import { knexExecutor, PgBoss } from '../../../src/db/pg-boss';
import { requeueStuckDeliveries } from '../../../src/delivery/attempt';
import { createDeliveryWorker, queueDepth, type DeliveryWorker } from '../../../src/delivery/worker';
import { createLogger } from '../../../src/platform/logger';
import { uid, workspaceWithKey } from '../../support/given';
import { receiver, sleep, useWebhookApp, type Receiver } from './harness';

jest.setTimeout(30_000);

// Declared before the app's own hooks: afterAll hooks run in declaration order, so the worker stops
// (after its attempts in flight and pg-boss's loops, up to ~16 s) before the database is dropped.
afterAll(async () => {
  await worker?.stop();
  await Promise.all(receivers.map((r) => r.close()));
}, 60_000);
const t = useWebhookApp({ webhookAllowHttp: true, webhookAllowPrivate: true, webhookRetrySchedule: [0.2, 0.2, 0.2] }, { own: true });
let worker: DeliveryWorker;
const outcomes: string[] = [];
const receivers: Receiver[] = [];

beforeAll(async () => {
  worker = createDeliveryWorker({
    db: t.db,
    config: t.config,
    logger: createLogger(process.env.WH_DEBUG ? 'warn' : 'silent'),
    observer: { onOutcome: (o) => outcomes.push(o) },
    timeoutMs: 1000,
    pollingIntervalSeconds: 0.5,
  });
  await worker.start();
});

async function hook(...args: Parameters<typeof receiver>): Promise<Receiver> {
  const r = await receiver(...args);
  receivers.push(r);
  return r;
}

/** A workspace with a key (of `style`) and a datatable `Customers` (columns id, plan). */
async function workspace(style: 'A' | 'B' = 'A') {
  const { ws, key } = await workspaceWithKey(t.db, { style });
  const table = uid('tbl');
  await importFixture(t.db, {
    datatables: [
      {
        id: table,
        workspace_id: ws,
        name: 'Customers',
        fields: [
          { name: 'id', type: 'string' },
          { name: 'plan', type: 'string' },
        ],
      },
    ],
  });
  const api = `/api/v1/workspaces/${ws}`;
  return { ws, key, table, api };
}

async function endpoint(w: { key: string; api: string }, url: string, events: string[], extra: Record<string, unknown> = {}) {
  const res = await t
    .http()
    .post(`${w.api}/webhook-endpoints`)
    .set('X-API-Key', w.key)
    .send({ url, events, ...extra });
  expect(res.status).toBe(201);
  return res.body.data as { id: string; secret: string; style: string };
}

async function eventually<T>(fn: () => Promise<T>, ok: (v: T) => boolean, ms = 10_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v) || Date.now() > until) return v;
    await sleep(100);
  }
}

const deliveries = async (w: { key: string; api: string }, endpointId: string, query = '') =>
  (await t.http().get(`${w.api}/webhook-endpoints/${endpointId}/deliveries${query}`).set('X-API-Key', w.key)).body.data as Array<Record<string, unknown>>;

const json = (r: { body: string }) =>
  JSON.parse(r.body) as { id: string; type: string; timestamp: string; workspace_id: string; data: Record<string, unknown> };

describe('delivery attempts', () => {
  it('retries a receiver that fails twice, then succeeds: 3 attempts of one event id, each validly signed', async () => {
    const r = await hook((_req, i) => ({ status: i < 2 ? 500 : 204 }));
    const w = await workspace();
    const ep = await endpoint(w, `${r.url}/hook`, ['row.created']);
    const before = outcomes.length;
    const row = await t
      .http()
      .post(`${w.api}/datatables/${w.table}/rows`)
      .set('X-API-Key', w.key)
      .send({ data: { id: 'c-1', plan: 'pro' } });
    expect(row.status).toBe(201);

    const got = await r.waitFor(3);
    const ids = new Set(got.map((g) => g.headers['webhook-id']));
    expect(ids.size).toBe(1);
    const eventId = got[0]!.headers['webhook-id'] as string;
    expect(eventId).toMatch(/^evt_/);
    const wh = new Webhook(ep.secret);
    for (const g of got) {
      expect(g.path).toBe('/hook');
      expect(g.headers['content-type']).toBe('application/json');
      expect(g.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(wh.verify(g.body, g.headers as Record<string, string>)).toMatchObject({ id: eventId, type: 'row.created' });
      expect(json(g)).toEqual({
        id: eventId,
        type: 'row.created',
        timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T.*Z$/),
        workspace_id: w.ws,
        data: row.body.data,
      });
    }

    const [d] = await eventually(
      () => deliveries(w, ep.id),
      (l) => l[0]?.status === 'succeeded',
    );
    expect(d).toEqual({
      id: expect.stringMatching(/^dlv_/),
      endpoint_id: ep.id,
      event_id: eventId,
      event_type: 'row.created',
      status: 'succeeded',
      attempts: 3,
      last_status_code: 204,
      last_error: null,
      next_attempt_at: null,
      recovery_id: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    await sleep(300);
    expect(r.received).toHaveLength(3);
    expect(outcomes.slice(before)).toEqual(['retried', 'retried', 'succeeded']);
    const one = await t.http().get(`${w.api}/webhook-endpoints/${ep.id}/deliveries/${d!.id}`).set('X-API-Key', w.key);
    expect(one.status).toBe(200);
    expect(one.body.data).toEqual(d);
  });

  it('gives up after the schedule (4 attempts here): a redirect is never followed and counts as a failure', async () => {
    const r = await hook(() => ({ status: 302, headers: { location: '/elsewhere' } }));
    const w = await workspace();
    const ep = await endpoint(w, `${r.url}/hook`, ['row.created']);
    await t
      .http()
      .post(`${w.api}/datatables/${w.table}/rows`)
      .set('X-API-Key', w.key)
      .send({ data: { plan: 'free' } });
    const [d] = await eventually(
      () => deliveries(w, ep.id),
      (l) => l[0]?.status === 'failed',
    );
    expect(d).toMatchObject({ status: 'failed', attempts: 4, last_status_code: 302, next_attempt_at: null });
    expect(d!.last_error).toContain('redirect');
    expect(r.received.map((g) => g.path)).toEqual(['/hook', '/hook', '/hook', '/hook']);
  });

  it('fails an attempt that gets no answer within the timeout, then succeeds on the retry', async () => {
    const r = await hook((_req, i) => (i === 0 ? { status: 200, delayMs: 3000 } : { status: 200 }));
    const w = await workspace();
    const ep = await endpoint(w, `${r.url}/slow`, ['row.created']);
    await t
      .http()
      .post(`${w.api}/datatables/${w.table}/rows`)
      .set('X-API-Key', w.key)
      .send({ data: { plan: 'x' } });
    const got = await r.waitFor(2);
    // The retry came after the 1 s timeout plus the 0.2 s delay, not after the 3 s answer.
    expect(got[1]!.at - got[0]!.at).toBeGreaterThanOrEqual(1000);
    expect(got[1]!.at - got[0]!.at).toBeLessThan(2900);
    const [d] = await eventually(
      () => deliveries(w, ep.id),
      (l) => l[0]?.status === 'succeeded',
    );
    expect(d).toMatchObject({ status: 'succeeded', attempts: 2, last_status_code: 200 });
  });

  it('honours a Retry-After longer than the schedule', async () => {
    const r = await hook((_req, i) => (i === 0 ? { status: 503, headers: { 'retry-after': '2' } } : { status: 200 }));
    const w = await workspace();
    const ep = await endpoint(w, `${r.url}/busy`, ['row.created']);
    await t
      .http()
      .post(`${w.api}/datatables/${w.table}/rows`)
      .set('X-API-Key', w.key)
      .send({ data: { plan: 'x' } });
    const [first] = await r.waitFor(1);
    const pending = await eventually(
      () => deliveries(w, ep.id),
      (l) => l[0]?.last_status_code === 503,
    );
    expect(pending[0]).toMatchObject({ status: 'pending', attempts: 1, last_status_code: 503, last_error: 'HTTP 503' });
    expect(Date.parse(pending[0]!.next_attempt_at as string) - first!.at).toBeGreaterThanOrEqual(1500);
    const got = await r.waitFor(2);
    expect(got[1]!.at - got[0]!.at).toBeGreaterThanOrEqual(1900);
  });

  it('disables the endpoint on 410 Gone and ends its pending deliveries as failed; later writes are not sent', async () => {
    const r = await hook(() => ({ status: 410 }));
    const w = await workspace();
    const ep = await endpoint(w, `${r.url}/gone`, ['row.created']);
    await t
      .http()
      .post(`${w.api}/datatables/${w.table}/rows`)
      .set('X-API-Key', w.key)
      .send({ data: [{ plan: 'a' }, { plan: 'b' }] });
    const list = await eventually(
      () => deliveries(w, ep.id),
      (l) => l.length === 2 && l.every((d) => d.status === 'failed'),
    );
    expect(list.map((d) => d.status)).toEqual(['failed', 'failed']);
    expect(list.some((d) => d.last_status_code === 410)).toBe(true);
    const got = await t.http().get(`${w.api}/webhook-endpoints/${ep.id}`).set('X-API-Key', w.key);
    expect(got.body.data).toMatchObject({ enabled: false, disabled_reason: expect.stringContaining('410 Gone') });

    const seen = r.received.length;
    await t
      .http()
      .post(`${w.api}/datatables/${w.table}/rows`)
      .set('X-API-Key', w.key)
      .send({ data: { plan: 'c' } });
    await sleep(1200);
    expect(r.received).toHaveLength(seen);
    expect(await deliveries(w, ep.id)).toHaveLength(2);

    const enabled = await t.http().patch(`${w.api}/webhook-endpoints/${ep.id}`).set('X-API-Key', w.key).send({ enabled: true });
    expect(enabled.status).toBe(200);
    expect(enabled.body.data).toMatchObject({ enabled: true, disabled_reason: null });
  });

  it('sends nothing for a write that rolls back', async () => {
    const r = await hook();
    const w = await workspace();
    const ep = await endpoint(w, `${r.url}/rb`, ['row.deleted']);
    await expect(
      t.db.transaction(async (trx) => {
        await recordEvents(trx, w.ws, [{ type: 'row.deleted', resource: { kind: 'row_deleted', rowId: 'row_x', datatableId: w.table } }]);
        throw new Error('the write failed after recording its event');
      }),
    ).rejects.toThrow('the write failed');
    await sleep(1200);
    expect(r.received).toHaveLength(0);
    expect(await deliveries(w, ep.id)).toEqual([]);
    expect(await t.db('webhook_events').where('workspace_id', w.ws)).toEqual([]);
  });
});

describe('payloads per style', () => {
  it('renders row events in each endpoint style: A flat snake_case, B {row_id, data}; row.deleted {row_id, datatable_id}', async () => {
    const r = await hook();
    const w = await workspace();
    const all = ['row.created', 'row.updated', 'row.deleted'];
    const a = await endpoint(w, `${r.url}/a`, all, { style: 'A' });
    const b = await endpoint(w, `${r.url}/b`, all, { style: 'B' });
    const created = await t
      .http()
      .post(`${w.api}/datatables/${w.table}/rows`)
      .set('X-API-Key', w.key)
      .send({ data: { id: 'c-9', plan: 'pro' } });
    const rowId = created.body.data.row_id as string;
    await t
      .http()
      .patch(`${w.api}/datatables/${w.table}/rows/${rowId}`)
      .set('X-API-Key', w.key)
      .send({ data: { plan: 'max' } });
    expect((await t.http().delete(`${w.api}/datatables/${w.table}/rows/${rowId}`).set('X-API-Key', w.key)).status).toBe(204);
    const got = await r.waitFor(6);
    const at = (path: string, type: string) => json(got.find((g) => g.path === path && json(g).type === type)!);

    expect(at('/a', 'row.created').data).toEqual({ id: 'c-9', plan: 'pro', row_id: rowId, created_at: expect.any(String), updated_at: expect.any(String) });
    expect(at('/b', 'row.created').data).toEqual({ row_id: rowId, data: { id: 'c-9', plan: 'pro' } });
    expect(at('/a', 'row.updated').data).toMatchObject({ id: 'c-9', plan: 'max', row_id: rowId });
    expect(at('/b', 'row.updated').data).toEqual({ row_id: rowId, data: { id: 'c-9', plan: 'max' } });
    expect(at('/a', 'row.deleted').data).toEqual({ row_id: rowId, datatable_id: w.table });
    expect(at('/b', 'row.deleted').data).toEqual({ row_id: rowId, datatable_id: w.table });
    expect(at('/a', 'row.created').id).toBe(at('/b', 'row.created').id);
    expect(
      new Webhook(a.secret).verify(got.find((g) => g.path === '/a')!.body, got.find((g) => g.path === '/a')!.headers as Record<string, string>),
    ).toBeTruthy();
    expect(
      new Webhook(b.secret).verify(got.find((g) => g.path === '/b')!.body, got.find((g) => g.path === '/b')!.headers as Record<string, string>),
    ).toBeTruthy();
  });

  it('defaults the endpoint style to the creating key style', async () => {
    const w = await workspace('B');
    const ep = await endpoint(w, 'http://127.0.0.1:9/x', ['row.created']);
    expect(ep.style).toBe('B');
  });

  it('renders response.created and email_event.created (recorded by the collect branch) per style', async () => {
    const r = await hook();
    const w = await workspace();
    await endpoint(w, `${r.url}/a`, ['response.created', 'email_event.created'], { style: 'A' });
    await endpoint(w, `${r.url}/b`, ['response.created', 'email_event.created'], { style: 'B' });
    const createdAt = new Date('2026-11-20T10:00:00.000Z');
    await t.db.transaction((trx) =>
      recordEvents(trx, w.ws, [
        {
          type: 'response.created',
          resource: {
            kind: 'response',
            response: {
              id: 'rsp_1',
              formId: 'frm_1',
              formName: 'NPS',
              score: 9,
              version: 1,
              language: 'en',
              createdAt,
              answers: [{ question_id: 'q1', type: 'nps', title: 'How likely?', value: 9 }],
              sentiment: null,
              respondentEmail: 'a@example.com',
              emailId: 'em_1',
              rowId: 'row_1',
              tableData: { rowId: 'row_1', capturedAt: createdAt, columns: { plan: 'pro' } },
            },
          },
        },
        {
          type: 'email_event.created',
          resource: {
            kind: 'email_event',
            event: { id: 'ev_1', emailId: 'em_1', email: 'a@example.com', type: 'open', rowId: null, formId: 'frm_1', flowId: null, createdAt },
          },
        },
      ]),
    );
    const got = await r.waitFor(4);
    const at = (path: string, type: string) => json(got.find((g) => g.path === path && json(g).type === type)!).data;
    const answerA = { question_id: 'q1', title: 'How likely?', type: 'nps', value: 9 };
    const tableData = { plan: 'pro', row_id: 'row_1', _captured_at: '2026-11-20T10:00:00.000Z' };
    expect(at('/a', 'response.created')).toEqual({
      id: 'rsp_1',
      form_id: 'frm_1',
      score: 9,
      created_at: '2026-11-20T10:00:00.000Z',
      answers: [answerA],
      respondent_email: 'a@example.com',
      email_id: 'em_1',
      row_id: 'row_1',
      sentiment: null,
      table_data: tableData,
    });
    expect(at('/b', 'response.created')).toEqual({
      id: 'rsp_1',
      score: 9,
      version: 1,
      createdAt: '2026-11-20T10:00:00.000Z',
      form: { id: 'frm_1', name: 'NPS' },
      answers: [{ id: 'q1', title: 'How likely?', type: 'nps', value: 9 }],
      email_id: 'em_1',
      respondent_email: 'a@example.com',
      row_id: 'row_1',
      sentiment: null,
      table_data: tableData,
    });
    expect(at('/a', 'email_event.created')).toEqual({
      id: 'ev_1',
      email_id: 'em_1',
      email: 'a@example.com',
      type: 'open',
      row_id: null,
      form_id: 'frm_1',
      flow_id: null,
      created_at: '2026-11-20T10:00:00.000Z',
    });
    expect(at('/b', 'email_event.created')).toEqual({
      id: 'ev_1',
      email_id: 'em_1',
      email: 'a@example.com',
      event_type: 'open',
      row_id: '',
      form_id: 'frm_1',
      flow_id: '',
      createdAt: '2026-11-20T10:00:00.000Z',
    });
  });
});

describe('endpoint operations', () => {
  it('rotates the secret: the test event carries two signatures, each valid for one of the secrets', async () => {
    const r = await hook();
    const w = await workspace();
    const ep = await endpoint(w, `${r.url}/rot`, ['row.deleted']);
    const rotated = await t.http().post(`${w.api}/webhook-endpoints/${ep.id}/rotate-secret`).set('X-API-Key', w.key);
    expect(rotated.status).toBe(200);
    expect(rotated.body.data).toMatchObject({ id: ep.id, secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/) });
    expect(rotated.body.data.secret).not.toBe(ep.secret);

    const test = await t.http().post(`${w.api}/webhook-endpoints/${ep.id}/test`).set('X-API-Key', w.key);
    expect(test.status).toBe(202);
    expect(test.body.data).toMatchObject({ endpoint_id: ep.id, event_type: 'webhook.test', status: 'pending', attempts: 0, last_status_code: null });
    const [g] = await r.waitFor(1);
    const sigs = (g!.headers['webhook-signature'] as string).split(' ');
    expect(sigs).toHaveLength(2);
    expect(sigs.every((s) => s.startsWith('v1,'))).toBe(true);
    const headers = g!.headers as Record<string, string>;
    expect(new Webhook(rotated.body.data.secret).verify(g!.body, headers)).toMatchObject({ type: 'webhook.test', data: { endpoint_id: ep.id } });
    expect(new Webhook(ep.secret).verify(g!.body, headers)).toMatchObject({ type: 'webhook.test' });
    expect(json(g!).id).toBe(test.body.data.event_id);
    await eventually(
      () => deliveries(w, ep.id),
      (l) => l[0]?.status === 'succeeded',
    );
  });

  it('retries a failed delivery on request: 202 pending, then one more attempt', async () => {
    let fail = true;
    const r = await hook(() => ({ status: fail ? 500 : 200 }));
    const w = await workspace();
    const ep = await endpoint(w, `${r.url}/retry`, ['row.created']);
    await t
      .http()
      .post(`${w.api}/datatables/${w.table}/rows`)
      .set('X-API-Key', w.key)
      .send({ data: { plan: 'x' } });
    const [failed] = await eventually(
      () => deliveries(w, ep.id, '?status=failed'),
      (l) => l.length === 1,
    );
    expect(failed).toMatchObject({ status: 'failed', attempts: 4, last_status_code: 500 });
    expect(await deliveries(w, ep.id, '?status=pending')).toEqual([]);
    fail = false;
    const retry = await t.http().post(`${w.api}/webhook-endpoints/${ep.id}/deliveries/${failed!.id}/retry`).set('X-API-Key', w.key);
    expect(retry.status).toBe(202);
    expect(retry.body.data).toMatchObject({ id: failed!.id, status: 'pending', attempts: 4 });
    const [done] = await eventually(
      () => deliveries(w, ep.id),
      (l) => l[0]?.status === 'succeeded',
    );
    expect(done).toMatchObject({ status: 'succeeded', attempts: 5, last_status_code: 200, last_error: null });
    expect(r.received).toHaveLength(5);
  });

  it('disabling by PATCH ends pending deliveries as failed; writes while disabled are never delivered', async () => {
    const r = await hook(() => ({ status: 500, headers: { 'retry-after': '60' } }));
    const w = await workspace();
    const ep = await endpoint(w, `${r.url}/off`, ['row.created']);
    await t
      .http()
      .post(`${w.api}/datatables/${w.table}/rows`)
      .set('X-API-Key', w.key)
      .send({ data: { plan: 'x' } });
    const [pending] = await eventually(
      () => deliveries(w, ep.id),
      (l) => l[0]?.last_status_code === 500,
    );
    expect(pending).toMatchObject({ status: 'pending', attempts: 1 });
    expect(await queueDepth(t.db)).toBeGreaterThanOrEqual(1);

    const off = await t.http().patch(`${w.api}/webhook-endpoints/${ep.id}`).set('X-API-Key', w.key).send({ enabled: false });
    expect(off.body.data).toMatchObject({ enabled: false, disabled_reason: expect.any(String) });
    expect((await deliveries(w, ep.id))[0]).toMatchObject({ status: 'failed', next_attempt_at: null, last_error: 'The endpoint was disabled.' });
    await t
      .http()
      .post(`${w.api}/datatables/${w.table}/rows`)
      .set('X-API-Key', w.key)
      .send({ data: { plan: 'y' } });
    const on = await t.http().patch(`${w.api}/webhook-endpoints/${ep.id}`).set('X-API-Key', w.key).send({ enabled: true });
    expect(on.body.data).toMatchObject({ enabled: true, disabled_reason: null });
    await sleep(1000);
    expect(await deliveries(w, ep.id)).toHaveLength(1);
    expect(r.received).toHaveLength(1);
  });
});

describe('the queue on our connection', () => {
  it('queues again a committed delivery whose job was lost (the safety net of the outbox)', async () => {
    const r = await hook();
    const w = await workspace();
    const ep = await endpoint(w, `${r.url}/lost`, ['row.deleted']);
    await t.db.transaction(async (trx) => {
      await recordEvents(trx, w.ws, [{ type: 'row.deleted', resource: { kind: 'row_deleted', rowId: 'row_lost', datatableId: w.table } }]);
      await trx.raw(`DELETE FROM pgboss.job WHERE data->>'workspaceId' = ?`, [w.ws]);
      await trx('webhook_deliveries')
        .where('workspace_id', w.ws)
        .update({ next_attempt_at: trx.raw(`now() - interval '20 minutes'`) });
    });
    await sleep(800);
    expect(r.received).toHaveLength(0);
    expect(await requeueStuckDeliveries(t.db)).toBe(1);
    expect(await requeueStuckDeliveries(t.db)).toBe(0);
    const [got] = await r.waitFor(1);
    expect(json(got!).data).toEqual({ row_id: 'row_lost', datatable_id: w.table });
    const [d] = await eventually(
      () => deliveries(w, ep.id),
      (l) => l[0]?.status === 'succeeded',
    );
    expect(d).toMatchObject({ status: 'succeeded', attempts: 1 });
  });

  it('runs pg-boss maintenance (multi-statement scripts: expire, archive, drop) through the knex executor', async () => {
    const boss = new PgBoss({ db: knexExecutor(t.db), migrate: false, schedule: false, supervise: false } as never) as unknown as {
      maintain(): Promise<unknown>;
      getQueueSize(name: string): Promise<number>;
    };
    await expect(boss.maintain()).resolves.toEqual(expect.objectContaining({ ms: expect.any(Number) }));
    expect(typeof (await boss.getQueueSize('webhook-delivery'))).toBe('number');
  });
});

describe('recovering missed events on the worker (docs/webhooks.md, "Recovering missed events")', () => {
  it('a receiver down until its deliveries failed gets each missed event once, in log order, after POST …/recover', async () => {
    let down = true;
    const r = await hook(() => ({ status: down ? 503 : 200 }));
    const w = await workspace();
    const ep = await endpoint(w, `${r.url}/hook`, ['row.created']);
    const since = new Date(Date.now() - 60_000).toISOString();
    for (const id of ['c-1', 'c-2', 'c-3']) {
      const row = await t
        .http()
        .post(`${w.api}/datatables/${w.table}/rows`)
        .set('X-API-Key', w.key)
        .send({ data: { id, plan: 'pro' } });
      expect(row.status).toBe(201);
    }
    // 4 attempts each on the short schedule, then `failed`.
    await eventually(
      () => deliveries(w, ep.id, '?status=failed'),
      (l) => l.length === 3,
    );
    const missed = (await deliveries(w, ep.id)).map((d) => d.event_id).reverse();
    down = false;
    const before = r.received.length;

    const asked = await t.http().post(`${w.api}/webhook-endpoints/${ep.id}/recover`).set('X-API-Key', w.key).send({ since });
    expect(asked.status).toBe(202);
    const done = await eventually(
      async () => (await t.http().get(`${w.api}/webhook-endpoints/${ep.id}/recoveries/${asked.body.data.id}`).set('X-API-Key', w.key)).body.data,
      (d) => d.status === 'succeeded',
    );
    expect(done).toMatchObject({ total: 3, done: 3, redelivered: 3 });
    await r.waitFor(before + 3);
    await sleep(300);
    expect(r.received.slice(before).map((g) => g.headers['webhook-id'])).toEqual(missed);
    const marked = await deliveries(w, ep.id);
    expect(marked.filter((d) => d.recovery_id === asked.body.data.id).map((d) => d.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
  });
});
