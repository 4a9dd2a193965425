/**
 * Webhook endpoint API and address rules (docs/webhooks.md, "Endpoints"; docs/webhooks.md, "Address rules") with the default settings: https
 * only, no private addresses. Host names resolve through a stub. No worker runs on this database,
 * so queued deliveries stay `pending` unless a test makes the attempt itself.
 */
import { Webhook } from 'standardwebhooks';
import { generateWebhookSecret } from '../../../src/core/api-keys/secrets';
import { importFixture } from '../../../src/core/import/importer';
import type { Resolve } from '../../../src/core/webhooks/address-policy';
import { makeAttempt } from '../../../src/delivery/attempt';
import { keyFor, uid, workspaceWithKey } from '../../support/given';
import { receiver, useWebhookApp } from './harness';

const names: Record<string, string> = { localhost: '127.0.0.1', 'internal.test': '10.1.2.3', 'public.test': '93.184.215.14', 'rebind.test': '127.0.0.1' };
const stub: Resolve = async (host) => {
  const address = names[host];
  if (!address) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return [{ address, family: 4 }];
};

const t = useWebhookApp({}, { resolveHost: stub });

async function setup() {
  const { ws, key } = await workspaceWithKey(t.db);
  return { ws, key, api: `/api/v1/workspaces/${ws}` };
}
const create = (w: { key: string; api: string }, body: Record<string, unknown>) =>
  t.http().post(`${w.api}/webhook-endpoints`).set('X-API-Key', w.key).send(body);

describe('address rules at creation and PATCH', () => {
  it.each([
    ['http', 'http://public.test/hook'],
    ['IPv6 loopback', 'https://[::1]/hook'],
    ['IPv4-mapped loopback', 'https://[::ffff:127.0.0.1]/hook'],
    ['unspecified', 'https://0.0.0.0/hook'],
    ['decimal loopback', 'https://2130706433/hook'],
    ['short loopback', 'https://127.1/hook'],
    ['hex loopback', 'https://0x7f000001/hook'],
    ['private 10/8', 'https://10.0.0.5/hook'],
    ['private 172.16/12', 'https://172.16.0.1/hook'],
    ['private 192.168/16', 'https://192.168.1.1/hook'],
    ['metadata', 'https://169.254.169.254/latest/meta-data'],
    ['shared 100.64/10', 'https://100.64.0.1/hook'],
    ['multicast', 'https://224.0.0.1/hook'],
    ['broadcast', 'https://255.255.255.255/hook'],
    ['IPv6 link-local', 'https://[fe80::1]/hook'],
    ['IPv6 unique local', 'https://[fd00::1]/hook'],
    ['IPv4-compatible loopback', 'https://[::127.0.0.1]/hook'],
    ['IPv4-compatible metadata', 'https://[::169.254.169.254]/latest/meta-data'],
    ['IPv4-compatible private', 'https://[::10.0.0.1]/hook'],
    ['IPv4-mapped metadata', 'https://[::ffff:169.254.169.254]/hook'],
    ['NAT64 loopback', 'https://[64:ff9b::127.0.0.1]/hook'],
    ['6to4 private', 'https://[2002:a00:1::1]/hook'],
    ['Teredo', 'https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/hook'],
    ['IPv6 documentation', 'https://[2001:db8::1]/hook'],
    ['IPv6 multicast', 'https://[ff02::1]/hook'],
    ['IPv6 unspecified', 'https://[::]/hook'],
    ['a name of loopback', 'https://localhost/hook'],
    ['a name resolving to a private address', 'https://internal.test/hook'],
  ])('refuses %s: 400 naming url', async (_what, url) => {
    const w = await setup();
    const res = await create(w, { url, events: ['row.created'] });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.details).toEqual([expect.objectContaining({ location: 'body', field: 'url' })]);
  });

  it('says which address a name resolves to', async () => {
    const res = await create(await setup(), { url: 'https://internal.test/hook', events: ['row.created'] });
    expect(res.body.error.message).toBe('`url` must point to a public address; "internal.test" resolves to 10.1.2.3, a private address.');
  });

  it('accepts a public address, and a name that does not resolve yet', async () => {
    const w = await setup();
    for (const url of ['https://public.test/hook', 'https://93.184.215.14/hook', 'https://not-yet.test/hook']) {
      const res = await create(w, { url, events: ['row.created'] });
      expect([url, res.status]).toEqual([url, 201]);
      expect(res.body.data).toMatchObject({ url, enabled: true, style: 'A', disabled_reason: null });
      expect(res.body.data.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(Buffer.from(res.body.data.secret.slice(6), 'base64')).toHaveLength(32);
    }
  });

  it('checks a PATCHed url the same way, and changes the other members', async () => {
    const w = await setup();
    const ep = (await create(w, { url: 'https://public.test/a', events: ['row.created'] })).body.data;
    const bad = await t.http().patch(`${w.api}/webhook-endpoints/${ep.id}`).set('X-API-Key', w.key).send({ url: 'https://[::ffff:127.0.0.1]/' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].field).toBe('url');
    const ok = await t
      .http()
      .patch(`${w.api}/webhook-endpoints/${ep.id}`)
      .set('X-API-Key', w.key)
      .send({ url: 'https://public.test/b', events: ['row.deleted', 'response.created'], description: 'CRM', style: 'B' });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({
      data: {
        id: ep.id,
        url: 'https://public.test/b',
        events: ['row.deleted', 'response.created'],
        description: 'CRM',
        style: 'B',
        enabled: true,
        disabled_reason: null,
      },
    });
    expect(ok.body.data).not.toHaveProperty('secret');
    const read = await t.http().get(`${w.api}/webhook-endpoints/${ep.id}`).set('X-API-Key', w.key);
    expect(read.body.data).toEqual(ok.body.data);
  });

  it.each([
    ['an unknown event type', { events: ['row.exploded'] }, /^events/],
    ['no events', { events: [] }, /^events/],
    ['a missing events member', { events: undefined }, /^events/],
    ['an unknown style', { style: 'C' }, /^style$/],
  ])('refuses %s with a 400 naming it', async (_what, body, field) => {
    const res = await create(await setup(), { url: 'https://public.test/x', events: ['row.created'], ...body });
    expect(res.status).toBe(400);
    expect(res.body.error.details[0].field).toMatch(field);
  });
});

describe('test events and the delivery log', () => {
  it('queues a webhook.test delivery (202) and lists deliveries newest first with cursor pages and a status filter', async () => {
    const w = await setup();
    const ep = (await create(w, { url: 'https://public.test/hook', events: ['row.created'] })).body.data;
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await t.http().post(`${w.api}/webhook-endpoints/${ep.id}/test`).set('X-API-Key', w.key);
      expect(res.status).toBe(202);
      expect(res.body).toMatchObject({
        data: { endpoint_id: ep.id, event_type: 'webhook.test', status: 'pending', attempts: 0, last_status_code: null, last_error: null },
        meta: {},
        links: {},
      });
      expect(res.body.data.event_id).toMatch(/^evt_/);
      expect(res.body.data.next_attempt_at).toEqual(expect.any(String));
      ids.push(res.body.data.id);
    }
    const first = await t.http().get(`${w.api}/webhook-endpoints/${ep.id}/deliveries?limit=2`).set('X-API-Key', w.key);
    expect(first.status).toBe(200);
    expect(first.body.meta).toEqual({ limit: 2, has_more: true });
    expect(first.body.data.map((d: { id: string }) => d.id)).toEqual([ids[2], ids[1]]);
    const next = await t
      .http()
      .get(new URL(first.body.links.next).pathname + new URL(first.body.links.next).search)
      .set('X-API-Key', w.key);
    expect(next.body.data.map((d: { id: string }) => d.id)).toEqual([ids[0]]);
    expect(next.body.links.next).toBeNull();
    const pending = await t.http().get(`${w.api}/webhook-endpoints/${ep.id}/deliveries?status=pending`).set('X-API-Key', w.key);
    expect(pending.body.data).toHaveLength(3);
    const none = await t.http().get(`${w.api}/webhook-endpoints/${ep.id}/deliveries?status=succeeded`).set('X-API-Key', w.key);
    expect(none.body.data).toEqual([]);
  });

  it('refuses an unknown status with a 400 naming it', async () => {
    const w = await setup();
    const ep = (await create(w, { url: 'https://public.test/hook', events: ['row.created'] })).body.data;
    const res = await t.http().get(`${w.api}/webhook-endpoints/${ep.id}/deliveries?status=lost`).set('X-API-Key', w.key);
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([expect.objectContaining({ location: 'query', field: 'status' })]);
  });

  it('answers 404 for endpoints and deliveries of another workspace or endpoint, 409 for a disabled endpoint', async () => {
    const w = await setup();
    const other = await setup();
    const mine = (await create(w, { url: 'https://public.test/a', events: ['row.created'] })).body.data;
    const second = (await create(w, { url: 'https://public.test/b', events: ['row.created'] })).body.data;
    const theirs = (await create(other, { url: 'https://public.test/c', events: ['row.created'] })).body.data;
    const d = (await t.http().post(`${w.api}/webhook-endpoints/${mine.id}/test`).set('X-API-Key', w.key)).body.data;
    const get = (path: string) => t.http().get(`${w.api}${path}`).set('X-API-Key', w.key);
    expect((await get(`/webhook-endpoints/${theirs.id}/deliveries`)).status).toBe(404);
    expect((await get(`/webhook-endpoints/${second.id}/deliveries/${d.id}`)).status).toBe(404);
    expect((await get(`/webhook-endpoints/${mine.id}/deliveries/${d.id}`)).status).toBe(200);
    expect((await t.http().post(`${w.api}/webhook-endpoints/${theirs.id}/rotate-secret`).set('X-API-Key', w.key)).status).toBe(404);
    expect((await t.http().patch(`${w.api}/webhook-endpoints/${theirs.id}`).set('X-API-Key', w.key).send({ enabled: false })).status).toBe(404);
    expect((await t.http().post(`${w.api}/webhook-endpoints/${second.id}/deliveries/${d.id}/retry`).set('X-API-Key', w.key)).status).toBe(404);

    await t.http().patch(`${w.api}/webhook-endpoints/${mine.id}`).set('X-API-Key', w.key).send({ enabled: false });
    const test = await t.http().post(`${w.api}/webhook-endpoints/${mine.id}/test`).set('X-API-Key', w.key);
    expect(test.status).toBe(409);
    expect(test.body.error.code).toBe('conflict');
    const retry = await t.http().post(`${w.api}/webhook-endpoints/${mine.id}/deliveries/${d.id}/retry`).set('X-API-Key', w.key);
    expect(retry.status).toBe(409);
  });

  it('requires webhooks:read and webhooks:write', async () => {
    const w = await setup();
    const ep = (await create(w, { url: 'https://public.test/a', events: ['row.created'] })).body.data;
    const readOnly = await keyFor(t.db, [w.ws], { scopes: ['webhooks:read'] });
    const none = await keyFor(t.db, [w.ws], { scopes: ['responses:read'] });
    expect((await t.http().get(`${w.api}/webhook-endpoints/${ep.id}/deliveries`).set('X-API-Key', readOnly)).status).toBe(200);
    const writes: Array<[string, string]> = [
      ['patch', `/webhook-endpoints/${ep.id}`],
      ['post', `/webhook-endpoints/${ep.id}/rotate-secret`],
      ['post', `/webhook-endpoints/${ep.id}/test`],
      ['post', `/webhook-endpoints/${ep.id}/deliveries/dlv_x/retry`],
    ];
    for (const [method, path] of writes) {
      const res = await (t.http() as unknown as Record<string, (p: string) => import('supertest').Test>)[method]!(`${w.api}${path}`)
        .set('X-API-Key', readOnly)
        .send({});
      expect([path, res.status, res.body.error?.message]).toEqual([path, 403, 'This API key lacks the scope "webhooks:write".']);
    }
    const read = await t.http().get(`${w.api}/webhook-endpoints/${ep.id}/deliveries`).set('X-API-Key', none);
    expect(read.body.error).toMatchObject({ code: 'insufficient_scope', message: 'This API key lacks the scope "webhooks:read".' });
  });
});

describe('the address check at each attempt', () => {
  it('refuses a name that now resolves to loopback, and connects to the checked address with the Host kept', async () => {
    const r = await receiver();
    try {
      const ws = (await setup()).ws;
      const id = uid('we');
      // Imported: the name did not resolve (or resolved elsewhere) when it was registered.
      await importFixture(t.db, { webhook_endpoints: [{ id, workspace_id: ws, url: `http://rebind.test:${r.port}/hook`, events: ['row.created'] }] });
      const w = { ws, key: await keyFor(t.db, [ws]), api: `/api/v1/workspaces/${ws}` };
      const queued = (await t.http().post(`${w.api}/webhook-endpoints/${id}/test`).set('X-API-Key', w.key)).body.data;
      const job = async () => ({
        workspaceId: ws,
        deliveryId: queued.id as string,
        token: ((await t.db('webhook_deliveries').where({ workspace_id: ws, id: queued.id }).first('attempt_token')) as { attempt_token: string })
          .attempt_token,
      });
      const ctx = { db: t.db, resolve: stub, timeoutMs: 1000, schedule: [0.2] };

      const refused = await makeAttempt({ ...ctx, policy: { allowHttp: true, allowPrivate: false } }, await job());
      expect(refused).toBe('retried');
      const after = (await t.http().get(`${w.api}/webhook-endpoints/${id}/deliveries/${queued.id}`).set('X-API-Key', w.key)).body.data;
      expect(after).toMatchObject({ status: 'pending', attempts: 1, last_status_code: null });
      expect(after.last_error).toBe('The URL must point to a public address; "rebind.test" resolves to 127.0.0.1, a loopback address.');
      expect(r.received).toHaveLength(0);

      const allowed = await makeAttempt({ ...ctx, policy: { allowHttp: true, allowPrivate: true } }, await job());
      expect(allowed).toBe('succeeded');
      expect(r.received).toHaveLength(1);
      expect(r.received[0]!.headers.host).toBe(`rebind.test:${r.port}`);
      // The job of the first attempt was superseded: making it again does nothing.
      expect(await makeAttempt({ ...ctx, policy: { allowHttp: true, allowPrivate: true } }, await job())).toBeUndefined();
    } finally {
      await r.close();
    }
  });
});

describe('rotate-secret', () => {
  it('with immediate: true, the next attempt is signed by the new secret only (no 24 h overlap)', async () => {
    const r = await receiver();
    try {
      const ws = (await setup()).ws;
      const id = uid('we');
      const first = generateWebhookSecret();
      await importFixture(t.db, {
        webhook_endpoints: [{ id, workspace_id: ws, url: `http://rebind.test:${r.port}/hook`, events: ['row.created'], secret: first }],
      });
      const w = { ws, key: await keyFor(t.db, [ws]), api: `/api/v1/workspaces/${ws}` };
      const rotate = (body?: object) => {
        const req = t.http().post(`${w.api}/webhook-endpoints/${id}/rotate-secret`).set('X-API-Key', w.key);
        return body ? req.send(body) : req;
      };
      const attempt = async () => {
        const queued = (await t.http().post(`${w.api}/webhook-endpoints/${id}/test`).set('X-API-Key', w.key)).body.data;
        const { attempt_token: token } = (await t.db('webhook_deliveries').where({ workspace_id: ws, id: queued.id }).first('attempt_token')) as {
          attempt_token: string;
        };
        // Loopback receiver: the policy allows it here, as WEBHOOK_ALLOW_PRIVATE would.
        const ctx = { db: t.db, resolve: stub, timeoutMs: 1000, schedule: [0.2], policy: { allowHttp: true, allowPrivate: true } };
        expect(await makeAttempt(ctx, { workspaceId: ws, deliveryId: queued.id as string, token })).toBe('succeeded');
        const got = r.received[r.received.length - 1]!;
        return { body: got.body, headers: got.headers as Record<string, string> };
      };
      const verifies = (secret: string, d: { body: string; headers: Record<string, string> }) => {
        try {
          new Webhook(secret).verify(d.body, d.headers);
          return true;
        } catch {
          return false;
        }
      };

      const second = await rotate();
      expect(second.status).toBe(200);
      const overlap = await attempt();
      expect(overlap.headers['webhook-signature']!.split(' ')).toHaveLength(2);
      expect([verifies(second.body.data.secret, overlap), verifies(first, overlap)]).toEqual([true, true]);

      const third = await rotate({ immediate: true });
      expect(third.status).toBe(200);
      expect(third.body.data).toMatchObject({ id, secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/) });
      const after = await attempt();
      expect(after.headers['webhook-signature']!.split(' ')).toHaveLength(1);
      expect([verifies(third.body.data.secret, after), verifies(second.body.data.secret, after), verifies(first, after)]).toEqual([true, false, false]);
      const stored = await t.db('webhook_endpoints').where({ workspace_id: ws, id }).first('previous_secret', 'previous_secret_until');
      expect(stored).toEqual({ previous_secret: null, previous_secret_until: null });

      // No body, or immediate: false, keeps the 24 h overlap.
      const fourth = await rotate({ immediate: false });
      expect((await attempt()).headers['webhook-signature']!.split(' ')).toHaveLength(2);
      expect(fourth.status).toBe(200);
    } finally {
      await r.close();
    }
  });

  it('refuses an immediate that is not a boolean: 400 naming it', async () => {
    const w = await setup();
    const ep = (await create(w, { url: 'https://public.test/a', events: ['row.created'] })).body.data;
    const res = await t.http().post(`${w.api}/webhook-endpoints/${ep.id}/rotate-secret`).set('X-API-Key', w.key).send({ immediate: 'yes' });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([expect.objectContaining({ location: 'body', field: 'immediate' })]);
  });
});
