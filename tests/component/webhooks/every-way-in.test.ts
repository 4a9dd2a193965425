/**
 * `response.created` and `email_event.created` fire for every way in (docs/collecting.md, "Collecting responses"; docs/webhooks.md, "Events and payloads"):
 * server-to-server in both styles, public JSON, the hosted page, provider events and email-link
 * clicks and opens. Each signed delivery carries the resource as the endpoint's style renders it.
 */
import { Webhook } from 'standardwebhooks';
import { createDeliveryWorker, type DeliveryWorker } from '../../../src/delivery/worker';
import { createLogger } from '../../../src/platform/logger';
import { formWorkspace, goodAnswers } from '../../support/given';
import { receiver, useWebhookApp, type Receiver } from './harness';

jest.setTimeout(30_000);

// Declared before the app's own hooks: afterAll hooks run in declaration order, so the worker stops
// (after its attempts in flight and pg-boss's loops, up to ~16 s) before the database is dropped.
afterAll(async () => {
  await worker?.stop();
  await hook?.close();
}, 60_000);
const t = useWebhookApp({ webhookAllowHttp: true, webhookAllowPrivate: true, webhookRetrySchedule: [0.2] }, { own: true });
let worker: DeliveryWorker;
let hook: Receiver;

beforeAll(async () => {
  worker = createDeliveryWorker({ db: t.db, config: t.config, logger: createLogger('silent'), timeoutMs: 2000, pollingIntervalSeconds: 0.5 });
  await worker.start();
  hook = await receiver(() => ({ status: 204 }));
});

type Delivered = { id: string; type: string; workspace_id: string; data: Record<string, unknown> };

/** A workspace with an endpoint of `style` subscribed to `events`; returns what its receiver gets. */
async function setup(style: 'A' | 'B', events: string[]) {
  const w = await formWorkspace(t.db);
  const api = `/api/v1/workspaces/${w.ws}`;
  const path = `/${w.ws}`;
  const ep = await t
    .http()
    .post(`${api}/webhook-endpoints`)
    .set('X-API-Key', w.key)
    .send({ url: `${hook.url}${path}`, events, style });
  expect(ep.status).toBe(201);
  const wh = new Webhook(ep.body.data.secret as string);
  const received = async (n: number): Promise<Delivered[]> => {
    const until = Date.now() + 15_000;
    for (;;) {
      const mine = hook.received.filter((r) => r.path === path);
      if (mine.length >= n || Date.now() > until) {
        return mine.map((r) => wh.verify(r.body, r.headers as Record<string, string>) as Delivered);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  return { ...w, api, received };
}

describe('events for every way in', () => {
  it('sends response.created for POST {ws}/responses in Style A, with the response as the API answered it', async () => {
    const w = await setup('A', ['response.created']);
    const res = await t.http().post(`${w.api}/responses`).set('X-API-Key', w.key).send({ form_id: w.form, answers: goodAnswers() });
    expect(res.status).toBe(201);
    const [evt] = await w.received(1);
    expect(evt).toMatchObject({ type: 'response.created', workspace_id: w.ws, data: { id: res.body.data.id, form_id: w.form, score: 9 } });
    expect(evt!.data.answers).toEqual(res.body.data.answers);
  });

  it('renders the response in Style B for a Style B endpoint (form {id, name}, createdAt, answers with id)', async () => {
    const w = await setup('B', ['response.created']);
    const res = await t
      .http()
      .post(`${w.api}/responses`)
      .set('X-API-Key', w.key)
      .set('X-API-Style', 'B')
      .send({ form_id: w.form, answers: goodAnswers().map((a) => ({ id: a.question_id, value: a.value })) });
    expect(res.status).toBe(201);
    const [evt] = await w.received(1);
    expect(evt!.data).toMatchObject({ id: res.body.data.id, createdAt: res.body.data.createdAt, form: { id: w.form, name: expect.any(String) } });
    expect((evt!.data.answers as Array<Record<string, unknown>>)[0]).toMatchObject({ id: 'q_nps', value: 9 });
  });

  it('sends response.created for a public JSON submission and a hosted-page submission', async () => {
    const w = await setup('A', ['response.created']);
    const json = await t.http().post(`/api/v1/forms/${w.form}/submissions`).send({ answers: goodAnswers() });
    expect(json.status).toBe(201);
    const page = await t.http().post(`/f/${w.form}`).type('form').send({ 'q.q_nps': '7', 'q.q_plan': 'opt_basic' });
    expect(page.status).toBe(303);
    const events = await w.received(2);
    expect(events.map((e) => e.type)).toEqual(['response.created', 'response.created']);
    expect(events.map((e) => e.data.score).sort()).toEqual([7, 9]);
    expect(events.map((e) => e.data.id)).toContain(json.body.data.id);
  });

  it('sends email_event.created for provider events and for email-link clicks and opens', async () => {
    const w = await setup('A', ['email_event.created']);
    const provider = await t
      .http()
      .post(`${w.api}/email-events`)
      .set('X-API-Key', w.key)
      .send({ data: { id: `ev_${w.ws}`, email_id: 'em_1', email: 'a@example.com', type: 'delivery' } });
    expect(provider.status).toBe(201);
    const link = await t.http().post(`${w.api}/forms/${w.form}/links`).set('X-API-Key', w.key).send({ email: 'b@example.com' });
    expect(link.status).toBe(201);
    const { url, open_url: openUrl } = link.body.data as { url: string; open_url: string };
    expect((await t.http().get(new URL(url).pathname + new URL(url).search)).status).toBe(200);
    expect((await t.http().get(new URL(openUrl).pathname)).status).toBe(200);
    const events = await w.received(3);
    expect(events.map((e) => e.data.type).sort()).toEqual(['click', 'delivery', 'open']);
    expect(events.every((e) => e.type === 'email_event.created')).toBe(true);
  });
});
