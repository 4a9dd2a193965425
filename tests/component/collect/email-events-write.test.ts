/**
 * Provider email events, POST {ws}/email-events (docs/collecting.md, "Provider events"): one or many, one transaction,
 * idempotent on `id`, 201 / 200, request order, visible in both styles' lists.
 */
import { nanoid } from 'nanoid';
import { useTestApp } from '../../support/app';
import { workspaceWithKey } from '../../support/given';

const t = useTestApp();

const post = (ws: string, key: string, body: unknown) =>
  t
    .http()
    .post(`/api/v1/workspaces/${ws}/email-events`)
    .set('X-API-Key', key)
    .send(body as object);
const count = async (ws: string) => Number((await t.db('email_events').where('workspace_id', ws).count({ n: '*' }).first())!.n);

describe('POST {ws}/email-events', () => {
  it('stores one event (201, an object), and answers the stored one with 200 when the provider retries', async () => {
    const { ws, key } = await workspaceWithKey(t.db);
    const id = `prov_${nanoid(8)}`;
    const event = { id, email_id: 'em_1', email: 'a@example.com', type: 'delivery', created_at: '2026-01-05T10:00:00+01:00', form_id: 'frm_x' };
    const res = await post(ws, key, { data: event });
    expect(res.status).toBe(201);
    expect(res.headers['x-api-style']).toBe('A');
    expect(res.body).toEqual({
      data: {
        id,
        email_id: 'em_1',
        email: 'a@example.com',
        type: 'delivery',
        row_id: null,
        form_id: 'frm_x',
        flow_id: null,
        created_at: '2026-01-05T09:00:00.000Z',
      },
      meta: {},
      links: {},
      request_id: res.headers['x-request-id'],
    });
    const retry = await post(ws, key, { data: { ...event, type: 'open' } });
    expect(retry.status).toBe(200);
    expect(retry.body.data).toEqual(res.body.data);
    expect(await count(ws)).toBe(1);
  });

  it('stores a list in request order, generating missing ids; 201 when any is new, 200 when none is', async () => {
    const { ws, key } = await workspaceWithKey(t.db);
    const known = await post(ws, key, { data: { id: 'p_1', email_id: 'em_2', email: 'b@example.com', type: 'send' } });
    expect(known.status).toBe(201);
    const res = await post(ws, key, {
      data: [
        { id: 'p_2', email_id: 'em_2', email: 'b@example.com', type: 'open', row_id: 'row_9', flow_id: 'fl_1' },
        { id: 'p_1', email_id: 'em_2', email: 'b@example.com', type: 'bounce' },
        { email_id: 'em_2', email: 'b@example.com', type: 'click' },
        { id: 'p_2', email_id: 'em_2', email: 'b@example.com', type: 'complaint' },
      ],
    });
    expect(res.status).toBe(201);
    expect(res.body.data.map((e: { id: string; type: string }) => [e.id, e.type])).toEqual([
      ['p_2', 'open'],
      ['p_1', 'send'],
      [expect.stringMatching(/^ev_/), 'click'],
      ['p_2', 'open'],
    ]);
    expect(await count(ws)).toBe(3);
    const again = await post(ws, key, { data: [{ id: 'p_1', email_id: 'em_2', email: 'b@example.com', type: 'send' }] });
    expect(again.status).toBe(200);
    expect(Array.isArray(again.body.data)).toBe(true);

    const listA = await t.http().get(`/api/v1/workspaces/${ws}/email-events?sort=created_at`).set('X-API-Key', key);
    expect(listA.body.data.map((e: { id: string }) => e.id).sort()).toEqual(['p_1', 'p_2', res.body.data[2].id].sort());
    const listB = await t.http().get(`/api/v1/workspaces/${ws}/emails/events`).set('X-API-Key', key);
    expect(listB.body.meta.total).toBe(3);
    expect(listB.body.data.find((e: { id: string }) => e.id === 'p_2')).toMatchObject({ event_type: 'open', row_id: 'row_9', form_id: '', flow_id: 'fl_1' });
  });

  it('stores nothing when one item among many is bad, naming it', async () => {
    const { ws, key } = await workspaceWithKey(t.db);
    const good = { email_id: 'em_3', email: 'c@example.com', type: 'send' };
    const res = await post(ws, key, { data: [good, good, { ...good, type: 'exploded' }, good] });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    // The oneOf of `data` (object or array) adds branch notes; the item's own problem is named exactly.
    expect(res.body.error.details).toContainEqual({
      location: 'body',
      field: 'data[2].type',
      message: '`data[2].type` must be one of send, delivery, open, click, bounce, complaint, unsubscribe; got "exploded".',
    });
    const badDate = await post(ws, key, { data: [good, { ...good, created_at: '2026-01-05T10:00:00' }] });
    expect(badDate.status).toBe(400);
    expect(badDate.body.error.details).toEqual([{ location: 'body', field: 'data[1].created_at', message: expect.stringMatching(/offset/) }]);
    const tooMany = await post(ws, key, { data: Array.from({ length: 1001 }, () => good) });
    expect(tooMany.status).toBe(400);
    expect(await count(ws)).toBe(0);
  });

  it('needs email_events:write', async () => {
    const { ws, key } = await workspaceWithKey(t.db, { scopes: ['email_events:read'] });
    const res = await post(ws, key, { data: { email_id: 'em_4', email: 'd@example.com', type: 'send' } });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('insufficient_scope');
  });
});
