/**
 * Webhook recovery by time (docs/webhooks.md, "Recovering missed events"; issue 31 item 3), on both databases:
 * a window in which the receiver was down sends each missed event once, in log order, through the one attempt of
 * every delivery (signed, in the endpoint's style), marked in the delivery log; events received are not sent again;
 * an endpoint created after an event does not get it; an erased person's event is never sent again; the same window
 * asked twice while queued answers the same recovery; a log pruned past the job ends it `failed`; bad windows are
 * 400s naming the field; both styles.
 * The deliveries and the recovery job are run here, one by one (makeAttempt, runRecoveryJob: what the worker calls),
 * so the file needs no pg-boss worker and runs on PGlite too; receivers are on 127.0.0.1.
 */
import { nanoid } from 'nanoid';
import { Webhook } from 'standardwebhooks';
import { positionToken } from '../../../src/core/events/event-log.store';
import { DEFAULT_RETRY_SCHEDULE } from '../../../src/core/webhooks/retry-schedule';
import { makeAttempt, type AttemptContext } from '../../../src/delivery/attempt';
import { runRecoveryJob } from '../../../src/delivery/recovery';
import { onEmbeddedDb } from '../../support/db';
import { formWorkspace, goodAnswers, type FormWorkspace } from '../../support/given';
import { eventsReadable, receiver, useWebhookApp, type Receiver } from './harness';

jest.setTimeout(60_000);

const t = useWebhookApp({ webhookAllowHttp: true, webhookAllowPrivate: true, webhookRetrySchedule: [] }, { own: !onEmbeddedDb() });
const receivers: Receiver[] = [];
afterAll(() => Promise.all(receivers.map((r) => r.close())));

/** A receiver that answers 503 while `down.value`, else 200. */
async function hook(down: { value: boolean }): Promise<Receiver> {
  const r = await receiver(() => ({ status: down.value ? 503 : 200 }));
  receivers.push(r);
  return r;
}

/** What the worker runs: one attempt each, the test's policy (loopback allowed), no retries after the first. */
const ctx = (): AttemptContext => ({
  db: t.db,
  policy: { allowHttp: true, allowPrivate: true },
  resolve: async () => [{ address: '127.0.0.1', family: 4 }],
  timeoutMs: 2000,
  schedule: t.config.webhookRetrySchedule ?? DEFAULT_RETRY_SCHEDULE,
});

const api = (w: { ws: string }) => `/api/v1/workspaces/${w.ws}`;
const send = (w: { ws: string; key: string }, method: 'post' | 'get', path: string, style: 'A' | 'B' = 'A') =>
  t
    .http()
    [method](`${api(w)}${path}`)
    .set('X-API-Key', w.key)
    .set('X-API-Style', style)
    .set('Idempotency-Key', nanoid());

/** Makes the first attempt of every pending delivery of the workspace, oldest first (as the worker would). */
async function attemptPending(ws: string): Promise<void> {
  const pending = (await t.db('webhook_deliveries').where({ workspace_id: ws, status: 'pending' }).orderBy(['created_at', 'id'])) as Array<{
    id: string;
    attempt_token: string;
  }>;
  for (const d of pending) await makeAttempt(ctx(), { workspaceId: ws, deliveryId: d.id, token: d.attempt_token });
}

const readable = (ws: string) => eventsReadable(t.db, ws);

async function addRow(w: FormWorkspace, id: string): Promise<void> {
  const res = await send(w, 'post', `/datatables/${w.table}/rows`).send({ data: { id, plan: 'pro' } });
  expect(res.status).toBe(201);
}

async function createEndpoint(w: FormWorkspace, url: string, events: string[], style: 'A' | 'B' = 'A') {
  const res = await send(w, 'post', '/webhook-endpoints').send({ url, events, style });
  expect(res.status).toBe(201);
  return res.body.data as { id: string; secret: string };
}

/** Asks for a recovery and runs its job to the end, as the worker does; returns the finished recovery (Style A). */
async function recover(w: FormWorkspace, endpointId: string, body: object, style: 'A' | 'B' = 'A') {
  await readable(w.ws);
  const asked = await send(w, 'post', `/webhook-endpoints/${endpointId}/recover`, style).send(body);
  expect(asked.status).toBe(202);
  await runRecoveryJob(ctx(), { workspaceId: w.ws, recoveryId: asked.body.data.id as string });
  const got = await send(w, 'get', `/webhook-endpoints/${endpointId}/recoveries/${asked.body.data.id}`);
  expect(got.status).toBe(200);
  return { asked: asked.body.data as Record<string, unknown>, done: got.body.data as Record<string, unknown> };
}

const loggedIds = async (w: FormWorkspace, type: string) => {
  await readable(w.ws);
  return ((await send(w, 'get', `/events?type=${type}&limit=100`)).body.data as Array<{ id: string }>).map((e) => e.id);
};

describe('POST {ws}/webhook-endpoints/{id}/recover', () => {
  it('sends each event missed while the receiver was down exactly once, in log order, and not the ones received', async () => {
    const w = await formWorkspace(t.db);
    const down = { value: true };
    const r = await hook(down);
    const since = new Date(Date.now() - 60_000).toISOString();
    const ep = await createEndpoint(w, `${r.url}/hook`, ['row.created']);
    for (const id of ['c-1', 'c-2', 'c-3']) await addRow(w, id);
    await attemptPending(w.ws);
    expect(r.received).toHaveLength(3);
    down.value = false;
    await addRow(w, 'c-4');
    await attemptPending(w.ws);
    expect(r.received).toHaveLength(4);
    const [e1, e2, e3, e4] = await loggedIds(w, 'row.created');
    expect(r.received.map((g) => g.headers['webhook-id'])).toEqual([e1, e2, e3, e4]);

    const { asked, done } = await recover(w, ep.id, { since });
    expect(asked).toMatchObject({ id: expect.stringMatching(/^wrc_/), endpoint_id: ep.id, status: 'queued', since, until: null, total: 4, done: 0 });
    expect(done).toMatchObject({ status: 'succeeded', total: 4, done: 4, redelivered: 3, error: null, finished_at: expect.any(String) });

    const again = r.received.slice(4);
    expect(again.map((g) => g.headers['webhook-id'])).toEqual([e1, e2, e3]);
    for (const g of again) expect(new Webhook(ep.secret).verify(g.body, g.headers as Record<string, string>)).toMatchObject({ type: 'row.created' });
    expect(again.map((g) => JSON.stringify(JSON.parse(g.body).data))).toEqual(['c-1', 'c-2', 'c-3'].map((id) => expect.stringContaining(`"${id}"`)));

    // The delivery log shows each redelivery, marked with the recovery; the first deliveries stay as they were.
    const log = (await send(w, 'get', `/webhook-endpoints/${ep.id}/deliveries?limit=100`)).body.data as Array<Record<string, unknown>>;
    const marked = log.filter((d) => d.recovery_id === asked.id);
    expect(marked.map((d) => d.event_id).sort()).toEqual([e1, e2, e3].sort());
    expect(marked.every((d) => d.status === 'succeeded' && d.attempts === 1)).toBe(true);
    expect(
      log
        .filter((d) => d.recovery_id === null)
        .map((d) => d.status)
        .sort(),
    ).toEqual(['failed', 'failed', 'failed', 'succeeded']);

    // Everything was received now: the same window again (the first one finished) sends nothing.
    const second = await recover(w, ep.id, { since });
    expect(second.asked.id).not.toBe(asked.id);
    expect(second.done).toMatchObject({ status: 'succeeded', done: 4, redelivered: 0 });
    expect(r.received).toHaveLength(7);
  });

  it('answers the same recovery for the same window while it is queued, in both styles', async () => {
    const w = await formWorkspace(t.db);
    const down = { value: true };
    const r = await hook(down);
    const ep = await createEndpoint(w, r.url, ['row.created'], 'B');
    await addRow(w, 'c-1');
    await attemptPending(w.ws);
    down.value = false;
    await readable(w.ws);
    const since = new Date(Date.now() - 60_000).toISOString();
    const until = Date.now() + 1000;
    const path = `/webhook-endpoints/${ep.id}/recover`;
    const body = { since, until: new Date(until).toISOString() };
    const [a, a2] = await Promise.all([send(w, 'post', path).send(body), send(w, 'post', path).send(body)]);
    expect([a.status, a2.status]).toEqual([202, 202]);
    expect(a2.body.data.id).toBe(a.body.data.id);
    // Style B reads `until` inclusive: the instant before Style A's exclusive end is the same window.
    const b = await send(w, 'post', path, 'B').send({ since, until: new Date(until - 1).toISOString() });
    expect(b.status).toBe(202);
    expect(b.body.data.id).toBe(a.body.data.id);
    expect(b.body.data).toMatchObject({ endpointId: ep.id, status: 'queued', windowEnd: expect.any(String), finishedAt: null });
    expect(a.body.data).toMatchObject({ endpoint_id: ep.id, window_end: expect.any(String), finished_at: null });
    // Another window is another recovery.
    const other = await send(w, 'post', path).send({ since });
    expect(other.body.data.id).not.toBe(a.body.data.id);

    await runRecoveryJob(ctx(), { workspaceId: w.ws, recoveryId: a.body.data.id as string });
    const got = await send(w, 'get', `/webhook-endpoints/${ep.id}/recoveries/${a.body.data.id}`, 'B');
    expect(got.body.data).toMatchObject({ id: a.body.data.id, status: 'succeeded', total: 1, done: 1, redelivered: 1, finishedAt: expect.any(String) });
    // The payload is the one the write's delivery sent (the endpoint's style, B here): same id, time and data.
    expect(r.received).toHaveLength(2);
    expect(r.received[1]!.body).toBe(r.received[0]!.body);
    expect((await send(w, 'get', `/webhook-endpoints/${ep.id}/recoveries/wrc_none`)).status).toBe(404);
  });

  it('does not send an endpoint the events from before it was created', async () => {
    const w = await formWorkspace(t.db);
    const since = new Date(Date.now() - 60_000).toISOString();
    await addRow(w, 'c-1');
    await new Promise((res) => setTimeout(res, 20));
    const r = await hook({ value: false });
    const ep = await createEndpoint(w, r.url, ['row.created']);
    const { done } = await recover(w, ep.id, { since });
    expect(done).toMatchObject({ status: 'succeeded', total: 0, done: 0, redelivered: 0 });
    expect(r.received).toHaveLength(0);
  });

  it("never sends an erased person's event again", async () => {
    const w = await formWorkspace(t.db);
    const down = { value: true };
    const r = await hook(down);
    const since = new Date(Date.now() - 60_000).toISOString();
    const ep = await createEndpoint(w, r.url, ['response.created']);
    const submit = (email: string) =>
      send(w, 'post', '/responses').send({ form_id: w.form, answers: goodAnswers(), respondent_email: email, email_id: 'em_1' });
    expect((await submit('erase.me@example.com')).status).toBe(201);
    const kept = await submit('stays@example.com');
    await attemptPending(w.ws);
    expect(r.received).toHaveLength(2);
    expect((await send(w, 'post', '/erasure-requests').send({ email: 'erase.me@example.com' })).status).toBe(201);
    down.value = false;

    const { done } = await recover(w, ep.id, { since });
    expect(done).toMatchObject({ status: 'succeeded', total: 1, redelivered: 1 });
    expect(r.received).toHaveLength(3);
    expect(r.received[2]!.body).not.toContain('erase.me@example.com');
    expect(JSON.parse(r.received[2]!.body).data).toMatchObject({ id: kept.body.data.id });
  });

  it('ends failed with the position_expired reason when the log was pruned past its position meanwhile', async () => {
    const w = await formWorkspace(t.db);
    const r = await hook({ value: false });
    const ep = await createEndpoint(w, r.url, ['row.created']);
    await readable(w.ws);
    const asked = await send(w, 'post', `/webhook-endpoints/${ep.id}/recover`).send({ since: new Date(Date.now() - 60_000).toISOString() });
    expect(asked.status).toBe(202);
    // As if a first batch had handled up to position 1 and the retention then pruned through position 2.
    await t
      .db('webhook_recoveries')
      .where({ workspace_id: w.ws, id: asked.body.data.id })
      .update({ status: 'running', position: positionToken('1', 1) });
    await t.db('event_log_pruned').insert({ workspace_id: w.ws, xid: '1', seq: 2 });
    await runRecoveryJob(ctx(), { workspaceId: w.ws, recoveryId: asked.body.data.id as string });
    const got = await send(w, 'get', `/webhook-endpoints/${ep.id}/recoveries/${asked.body.data.id}`);
    expect(got.body.data).toMatchObject({ status: 'failed', error: expect.stringContaining('no longer kept'), finished_at: expect.any(String) });
  });

  it('refuses bad windows with a 400 naming the field, and a disabled endpoint with a 409', async () => {
    const w = await formWorkspace(t.db);
    const r = await hook({ value: false });
    const ep = await createEndpoint(w, r.url, ['row.created']);
    const path = `/webhook-endpoints/${ep.id}/recover`;
    const now = Date.now();
    const iso = (ms: number) => new Date(ms).toISOString();
    const cases: Array<[object, 'A' | 'B', string]> = [
      [{}, 'A', 'since'],
      [{ since: 'yesterday' }, 'A', 'since'],
      [{ since: 'yesterday' }, 'B', 'since'],
      [{ since: iso(now + 3600_000) }, 'A', 'since'],
      [{ since: iso(now - 31 * 86_400_000) }, 'A', 'since'],
      [{ since: iso(now - 31 * 86_400_000) }, 'B', 'since'],
      [{ since: iso(now - 3600_000), until: iso(now - 3600_000) }, 'A', 'until'],
      [{ since: iso(now - 3600_000), until: iso(now - 7200_000) }, 'B', 'until'],
      [{ since: iso(now - 3600_000), until: '2026-13-01' }, 'B', 'until'],
    ];
    for (const [body, style, field] of cases) {
      const res = await send(w, 'post', path, style).send(body);
      expect([JSON.stringify(body), res.status, res.body.error?.code, res.body.error?.details?.[0]?.field]).toEqual([
        JSON.stringify(body),
        400,
        'validation_error',
        field,
      ]);
    }
    expect((await send(w, 'post', '/webhook-endpoints/we_none/recover').send({ since: iso(now - 60_000) })).status).toBe(404);
    await t
      .http()
      .patch(`${api(w)}/webhook-endpoints/${ep.id}`)
      .set('X-API-Key', w.key)
      .send({ enabled: false });
    expect((await send(w, 'post', path).send({ since: iso(now - 60_000) })).status).toBe(409);
  });
});
