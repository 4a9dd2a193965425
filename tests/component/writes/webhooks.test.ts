import { keyFor, workspaceWithKey } from '../../support/given';
import { useTestApp } from '../../support/app';

const t = useTestApp();

describe('Webhook endpoint writes', () => {
  it('creates an endpoint: 201 envelope with a whsec_ secret shown only at creation', async () => {
    const { ws, key } = await workspaceWithKey(t.db);
    const res = await t
      .http()
      .post(`/api/v1/workspaces/${ws}/webhook-endpoints`)
      .set('X-API-Key', key)
      .send({
        url: 'https://hooks.example.com/in',
        events: ['row.created', 'response.created'],
        description: 'CRM sync',
      });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      data: { url: 'https://hooks.example.com/in', events: ['row.created', 'response.created'], description: 'CRM sync', enabled: true },
      meta: {},
      links: {},
    });
    expect(res.body.data.id).toMatch(/^we_/);
    expect(res.body.data.secret).toMatch(/^whsec_/);
    const read = await t.http().get(`/api/v1/workspaces/${ws}/webhook-endpoints/${res.body.data.id}`).set('X-API-Key', key);
    expect(read.status).toBe(200);
    expect(read.body.data).not.toHaveProperty('secret');
    const list = await t.http().get(`/api/v1/workspaces/${ws}/webhook-endpoints`).set('X-API-Key', key);
    expect(JSON.stringify(list.body)).not.toContain('whsec_');
  });

  it.each([
    ['credentials', 'https://user:pass@hooks.example.com/'],
    ['another scheme', 'ftp://hooks.example.com/'],
  ])('rejects a url with %s (400 naming url)', async (_what, url) => {
    const { ws, key } = await workspaceWithKey(t.db);
    const res = await t
      .http()
      .post(`/api/v1/workspaces/${ws}/webhook-endpoints`)
      .set('X-API-Key', key)
      .send({ url, events: ['row.created'] });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.details[0].field).toBe('url');
  });

  it('rejects an unknown event type', async () => {
    const { ws, key } = await workspaceWithKey(t.db);
    const res = await t
      .http()
      .post(`/api/v1/workspaces/${ws}/webhook-endpoints`)
      .set('X-API-Key', key)
      .send({ url: 'https://x.example.com', events: ['row.exploded'] });
    expect(res.status).toBe(400);
    expect(res.body.error.details[0].field).toMatch(/^events/);
  });

  it('deletes: 204, then 404; an endpoint of another workspace is 404', async () => {
    const { ws, key } = await workspaceWithKey(t.db);
    const other = await workspaceWithKey(t.db);
    const foreign = await t
      .http()
      .post(`/api/v1/workspaces/${other.ws}/webhook-endpoints`)
      .set('X-API-Key', other.key)
      .send({ url: 'https://o.example.com', events: ['row.deleted'] });
    const created = await t
      .http()
      .post(`/api/v1/workspaces/${ws}/webhook-endpoints`)
      .set('X-API-Key', key)
      .send({ url: 'https://h.example.com', events: ['row.deleted'] });
    const del = await t.http().delete(`/api/v1/workspaces/${ws}/webhook-endpoints/${created.body.data.id}`).set('X-API-Key', key);
    expect(del.status).toBe(204);
    expect((await t.http().delete(`/api/v1/workspaces/${ws}/webhook-endpoints/${created.body.data.id}`).set('X-API-Key', key)).status).toBe(404);
    expect((await t.http().delete(`/api/v1/workspaces/${ws}/webhook-endpoints/${foreign.body.data.id}`).set('X-API-Key', key)).status).toBe(404);
  });
});

describe('Scopes on writes', () => {
  it('gives a read-only key 403 insufficient_scope on every write', async () => {
    const { ws } = await workspaceWithKey(t.db);
    const readOnly = await keyFor(t.db, [ws], { scopes: ['datatables:read', 'webhooks:read', 'api_keys:read'] });
    const writes: Array<[string, string, object | undefined]> = [
      ['post', `/api/v1/workspaces/${ws}/datatables/tbl_x/rows`, { data: {} }],
      ['patch', `/api/v1/workspaces/${ws}/datatables/tbl_x/rows/row_x`, { data: {} }],
      ['delete', `/api/v1/workspaces/${ws}/datatables/tbl_x/rows/row_x`, undefined],
      ['post', `/api/v1/workspaces/${ws}/tables/tbl_x/entries`, { data: { id: 'a' } }],
      ['post', `/api/v1/workspaces/${ws}/tables/tbl_x/bulk-entries`, { data: [{ id: 'a' }] }],
      ['patch', `/api/v1/workspaces/${ws}/tables/tbl_x/entries/row_x`, { data: {} }],
      ['delete', `/api/v1/workspaces/${ws}/tables/tbl_x/entries/row_x`, undefined],
      ['post', `/api/v1/workspaces/${ws}/webhook-endpoints`, { url: 'https://x.example.com', events: ['row.created'] }],
      ['delete', `/api/v1/workspaces/${ws}/webhook-endpoints/we_x`, undefined],
      ['post', `/api/v1/workspaces/${ws}/api-keys`, { name: 'x' }],
      ['delete', `/api/v1/workspaces/${ws}/api-keys/key_x`, undefined],
    ];
    for (const [method, path, body] of writes) {
      const req = (t.http() as unknown as Record<string, (p: string) => import('supertest').Test>)[method]!(path).set('X-API-Key', readOnly);
      const res = body ? await req.send(body) : await req;
      expect([method, path, res.status, res.body.error?.code]).toEqual([method, path, 403, 'insufficient_scope']);
    }
  });
});
