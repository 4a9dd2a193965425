import { createHash } from 'node:crypto';
import { addAllUsage } from '../../../src/core/api-keys/usage.store';
import { withTransaction } from '../../../src/db';
import { createApiKeyCache } from '../../../src/platform/auth/key-cache';
import { createLogger } from '../../../src/platform/logger';
import { importFixture } from '../../../src/core/import/importer';
import { ALL_SCOPES } from '../../../src/core/scopes';
import { keyFor, surveyForm, uid, workspaceWithKey } from '../../support/given';
import { useTestApp } from '../../support/app';

const t = useTestApp();
const create = (ws: string, key: string, body: object) => t.http().post(`/api/v1/workspaces/${ws}/api-keys`).set('X-API-Key', key).send(body);

describe('API key create', () => {
  it('returns the secret once (201 envelope); the list never shows it; only the hash is stored', async () => {
    const { ws, key } = await workspaceWithKey(t.db);
    const res = await create(ws, key, { name: 'CI', style: 'B', rate_limit_per_minute: 120 });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      data: { name: 'CI', workspace_ids: [ws], style: 'B', rate_limit_per_minute: 120, revoked_at: null, expires_at: null, last_used_at: null },
      meta: {},
      links: {},
    });
    const secret: string = res.body.data.secret;
    expect(secret).toMatch(/^fa_.{32,}$/);
    expect(res.body.data.prefix).toBe(secret.slice(0, 8));
    expect(res.body.data.id).toMatch(/^key_/);
    // absent scopes: the creator's (all of them)
    expect(res.body.data.scopes).toHaveLength(ALL_SCOPES.length);

    const list = await t.http().get(`/api/v1/workspaces/${ws}/api-keys`).set('X-API-Key', key);
    expect(list.status).toBe(200);
    expect(list.body.data.map((k: { id: string }) => k.id)).toContain(res.body.data.id);
    expect(JSON.stringify(list.body)).not.toContain(secret);
    for (const k of list.body.data) expect(k).not.toHaveProperty('secret');

    const row = await t.db('api_keys').where('id', res.body.data.id).first();
    expect(row.key_hash).toBe(createHash('sha256').update(secret).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(secret);

    const use = await t.http().get(`/api/v1/workspaces/${ws}`).set('X-API-Key', secret);
    expect(use.status).toBe(200);
  });

  it('gives [] scopes no scope at all', async () => {
    const { ws, key } = await workspaceWithKey(t.db);
    const res = await create(ws, key, { name: 'none', scopes: [] });
    expect(res.status).toBe(201);
    expect(res.body.data.scopes).toEqual([]);
    const use = await t.http().get(`/api/v1/workspaces/${ws}/forms`).set('X-API-Key', res.body.data.secret);
    expect(use.status).toBe(403);
  });

  it('refuses scopes the creator lacks (403 insufficient_scope) and workspaces it lacks (403 workspace_access_denied)', async () => {
    const { ws } = await workspaceWithKey(t.db);
    const other = await workspaceWithKey(t.db);
    const limited = await keyFor(t.db, [ws], { scopes: ['api_keys:write', 'forms:read'] });
    const sub = await create(ws, limited, { name: 'sub', scopes: ['forms:read'] });
    expect(sub.status).toBe(201);
    expect(sub.body.data.scopes).toEqual(['forms:read']);
    const inherit = await create(ws, limited, { name: 'inherit' });
    expect(inherit.body.data.scopes.sort()).toEqual(['api_keys:write', 'forms:read']);
    const more = await create(ws, limited, { name: 'more', scopes: ['responses:read'] });
    expect(more.status).toBe(403);
    expect(more.body.error.code).toBe('insufficient_scope');
    const elsewhere = await create(ws, limited, { name: 'x', scopes: [], workspace_ids: [ws, other.ws] });
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.body.error.code).toBe('workspace_access_denied');
  });

  it('rejects expires_at in the past with 400 naming it', async () => {
    const { ws, key } = await workspaceWithKey(t.db);
    const res = await create(ws, key, { name: 'old', expires_at: '2020-01-01T00:00:00Z' });
    expect(res.status).toBe(400);
    expect(res.body.error.details[0].field).toBe('expires_at');
    const ok = await create(ws, key, { name: 'later', expires_at: '2099-01-01T00:00:00Z' });
    expect(ok.status).toBe(201);
    expect(ok.body.data.expires_at).toBe('2099-01-01T00:00:00.000Z');
  });
});

describe('API key revoke', () => {
  it('revokes (204): the key gets 401 api_key_expired on its very next request and stays listed with revoked_at', async () => {
    const { ws, key } = await workspaceWithKey(t.db);
    const created = await create(ws, key, { name: 'to revoke' });
    const secret = created.body.data.secret;
    expect((await t.http().get(`/api/v1/workspaces/${ws}`).set('X-API-Key', secret)).status).toBe(200);
    const del = await t.http().delete(`/api/v1/workspaces/${ws}/api-keys/${created.body.data.id}`).set('X-API-Key', key);
    expect(del.status).toBe(204);
    const next = await t.http().get(`/api/v1/workspaces/${ws}`).set('X-API-Key', secret);
    expect(next.status).toBe(401);
    expect(next.body.error.code).toBe('api_key_expired');
    const list = await t.http().get(`/api/v1/workspaces/${ws}/api-keys`).set('X-API-Key', key);
    const listed = list.body.data.find((k: { id: string }) => k.id === created.body.data.id);
    expect(listed.revoked_at).toMatch(/Z$/);
  });

  it("refuses a key within 1 s of any change to it, also one made outside the API (an operator's SQL)", async () => {
    const { ws, key } = await workspaceWithKey(t.db);
    const created = await create(ws, key, { name: 'revoked by SQL' });
    const secret = created.body.data.secret;
    // Used once, so the key is in this instance's cache.
    expect((await t.http().get(`/api/v1/workspaces/${ws}`).set('X-API-Key', secret)).status).toBe(200);
    await t.db('api_keys').where('id', created.body.data.id).update({ revoked_at: t.db.fn.now() });
    const revokedAt = Date.now();
    let status = 200;
    while (status === 200 && Date.now() - revokedAt < 1_000) {
      status = (await t.http().get(`/api/v1/workspaces/${ws}`).set('X-API-Key', secret)).status;
    }
    expect(status).toBe(401);
    // Losing the workspace: the same.
    const other = await create(ws, key, { name: 'loses its workspace' });
    expect((await t.http().get(`/api/v1/workspaces/${ws}`).set('X-API-Key', other.body.data.secret)).status).toBe(200);
    await t.db('api_key_workspaces').where('api_key_id', other.body.data.id).delete();
    const removedAt = Date.now();
    status = 200;
    while (status === 200 && Date.now() - removedAt < 1_000) {
      status = (await t.http().get(`/api/v1/workspaces/${ws}`).set('X-API-Key', other.body.data.secret)).status;
    }
    expect(status).toBe(403);
  });

  it('answers 404 for a key of another workspace', async () => {
    const { ws, key } = await workspaceWithKey(t.db);
    const other = await workspaceWithKey(t.db);
    const foreign = await create(other.ws, other.key, { name: 'foreign' });
    const res = await t.http().delete(`/api/v1/workspaces/${ws}/api-keys/${foreign.body.data.id}`).set('X-API-Key', key);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('resource_not_found');
  });
});

describe('API key revoke: the revocation rule (docs/writes-keys-limits.md, "API keys and scopes")', () => {
  const keyId = async (secret: string) => (await t.db('api_keys').where('key_hash', createHash('sha256').update(secret).digest('hex')).first()).id as string;
  const revoke = (ws: string, key: string, id: string) => t.http().delete(`/api/v1/workspaces/${ws}/api-keys/${id}`).set('X-API-Key', key);

  it('refuses to revoke a key that also opens a workspace the caller lacks (403 workspace_access_denied)', async () => {
    const { ws, key } = await workspaceWithKey(t.db);
    const other = await workspaceWithKey(t.db);
    const wide = await keyFor(t.db, [ws, other.ws]);
    const res = await revoke(ws, key, await keyId(wide));
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('workspace_access_denied');
    expect((await t.http().get(`/api/v1/workspaces/${other.ws}`).set('X-API-Key', wide)).status).toBe(200);
  });

  it('refuses to revoke a key with a scope the caller lacks (403 insufficient_scope naming it)', async () => {
    const { ws } = await workspaceWithKey(t.db);
    const caller = await keyFor(t.db, [ws], { scopes: ['api_keys:read', 'api_keys:write'] });
    const target = await keyFor(t.db, [ws], { scopes: ['api_keys:write', 'responses:read'] });
    const res = await revoke(ws, caller, await keyId(target));
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('insufficient_scope');
    expect(res.body.error.message).toContain('responses:read');
    expect((await t.http().get(`/api/v1/workspaces/${ws}/api-keys`).set('X-API-Key', target)).status).toBe(403);
  });

  it('revokes a key whose workspaces and scopes are a subset of the caller (204)', async () => {
    const { ws, key } = await workspaceWithKey(t.db);
    const narrow = await keyFor(t.db, [ws], { scopes: ['responses:read'] });
    expect((await revoke(ws, key, await keyId(narrow))).status).toBe(204);
    const next = await t.http().get(`/api/v1/workspaces/${ws}/responses`).set('X-API-Key', narrow);
    expect(next.body.error.code).toBe('api_key_expired');
  });

  it('lets a key with api_keys:write revoke itself, even when it opens more than one workspace', async () => {
    const { ws } = await workspaceWithKey(t.db);
    const other = await workspaceWithKey(t.db);
    const self = await keyFor(t.db, [ws, other.ws], { scopes: ['api_keys:write'] });
    expect((await revoke(ws, self, await keyId(self))).status).toBe(204);
    expect((await revoke(ws, self, await keyId(self))).status).toBe(401);
  });

  it('answers 404 for a key none of whose workspaces is the path one, also when the caller could revoke it elsewhere', async () => {
    const { ws } = await workspaceWithKey(t.db);
    const other = await workspaceWithKey(t.db);
    const caller = await keyFor(t.db, [ws, other.ws]);
    const target = await keyFor(t.db, [other.ws], { scopes: ['forms:read'] });
    const res = await revoke(ws, caller, await keyId(target));
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('resource_not_found');
    expect((await revoke(ws, caller, 'key_unknown')).status).toBe(404);
    expect((await revoke(other.ws, caller, await keyId(target))).status).toBe(204);
  });
});

describe('API key cache (issue 11): change notices, not only the 1 s TTL', () => {
  it('drops a cached key when the database notifies a change, long before its TTL', async () => {
    const cache = createApiKeyCache({ db: t.db, logger: createLogger('silent'), ttlMs: 60_000 });
    try {
      const { ws, key } = await workspaceWithKey(t.db);
      const created = await create(ws, key, { name: 'cached' });
      const secret = created.body.data.secret;
      expect((await cache.find(secret))?.revokedAt).toBeNull();
      // Give the LISTEN connection a moment to be up (it starts with the cache).
      await new Promise((r) => setTimeout(r, 300));
      expect((await cache.find(secret))?.revokedAt).toBeNull();
      await t.db('api_keys').where('id', created.body.data.id).update({ revoked_at: t.db.fn.now() });
      const deadline = Date.now() + 500;
      let revokedAt: Date | null | undefined = null;
      while (revokedAt === null && Date.now() < deadline) {
        revokedAt = (await cache.find(secret))?.revokedAt;
        if (revokedAt === null) await new Promise((r) => setTimeout(r, 10));
      }
      expect(revokedAt).toBeInstanceOf(Date);
      // Recording use does not notify (it would empty every instance's cache once a minute per key).
      await t.db('api_keys').where('id', created.body.data.id).update({ last_used_at: t.db.fn.now() });
    } finally {
      await cache.stop();
    }
  });
});

describe('key lineage (issue 25 item 2; docs/writes-keys-limits.md, "Key lineage")', () => {
  const keyId = async (secret: string) => (await t.db('api_keys').where('key_hash', createHash('sha256').update(secret).digest('hex')).first()).id as string;
  const get = (ws: string, key: string) => t.http().get(`/api/v1/workspaces/${ws}`).set('X-API-Key', key);

  it("refuses a created key a rate limit above the creator's and an expiry later than its own or never (400 naming the field)", async () => {
    const { ws } = await workspaceWithKey(t.db);
    const expiresAt = new Date(Date.now() + 10 * 60_000).toISOString();
    const creator = await keyFor(t.db, [ws], { scopes: ['api_keys:write', 'forms:read'], rateLimitPerMinute: 5, expiresAt });
    const faster = await create(ws, creator, { name: 'faster', rate_limit_per_minute: 100_000 });
    expect(faster.status).toBe(400);
    expect(faster.body.error.details).toEqual([
      { location: 'body', field: 'rate_limit_per_minute', message: expect.stringContaining('at most the creating key') },
    ]);
    const forever = await create(ws, creator, { name: 'forever', expires_at: null });
    expect(forever.status).toBe(400);
    expect(forever.body.error.details[0]).toMatchObject({ location: 'body', field: 'expires_at' });
    const later = await create(ws, creator, { name: 'later', expires_at: '2099-01-01T00:00:00Z' });
    expect(later.status).toBe(400);
    expect(later.body.error.details[0]).toMatchObject({ location: 'body', field: 'expires_at' });
    // Absent: the creator's limit and expiry; at or below them: as asked.
    const inherit = await create(ws, creator, { name: 'inherit' });
    expect(inherit.status).toBe(201);
    expect(inherit.body.data).toMatchObject({ rate_limit_per_minute: 5, expires_at: new Date(expiresAt).toISOString(), created_by: await keyId(creator) });
    const slower = await create(ws, creator, { name: 'slower', rate_limit_per_minute: 2, expires_at: new Date(Date.now() + 60_000).toISOString() });
    expect(slower.status).toBe(201);
    expect(slower.body.data.rate_limit_per_minute).toBe(2);
  });

  it("caps a root key's child at the service default limit when the root has none of its own", async () => {
    const { ws, key } = await workspaceWithKey(t.db);
    const over = await create(ws, key, { name: 'over', rate_limit_per_minute: 10_001 });
    expect(over.status).toBe(400);
    expect(over.body.error.details[0]).toMatchObject({ field: 'rate_limit_per_minute' });
    const inherit = await create(ws, key, { name: 'inherit' });
    expect(inherit.body.data).toMatchObject({ rate_limit_per_minute: null, expires_at: null, created_by: await keyId(key) });
  });

  it('revokes every key and dashboard link below a revoked key, transitively; the list shows created_by', async () => {
    const { ws, key: root } = await workspaceWithKey(t.db);
    const form = uid('frm');
    await importFixture(t.db, { forms: [surveyForm(ws, form)] });
    const child = (await create(ws, root, { name: 'child' })).body.data as { id: string; secret: string };
    const grandchild = (await create(ws, child.secret, { name: 'grandchild' })).body.data as { id: string; secret: string };
    const links = `/api/v1/workspaces/${ws}/forms/${form}/dashboard-links`;
    const childLink = (
      await t
        .http()
        .post(links)
        .set('X-API-Key', child.secret)
        .send({ expires_at: new Date(Date.now() + 90 * 86_400_000 - 60_000).toISOString() })
    ).body.data;
    const grandLink = (await t.http().post(links).set('X-API-Key', grandchild.secret).send({})).body.data;
    const rootLink = (await t.http().post(links).set('X-API-Key', root).send({})).body.data;
    const page = (url: string) => t.http().get(new URL(url).pathname);
    for (const l of [childLink, grandLink, rootLink]) expect((await page(l.url)).status).toBe(200);
    // Each key is used once, so it sits in the key cache.
    for (const k of [child.secret, grandchild.secret]) expect((await get(ws, k)).status).toBe(200);
    const list = await t.http().get(`/api/v1/workspaces/${ws}/api-keys`).set('X-API-Key', root);
    const createdBy = Object.fromEntries(list.body.data.map((k: { id: string; created_by: string | null }) => [k.id, k.created_by]));
    expect(createdBy).toEqual({ [await keyId(root)]: null, [child.id]: await keyId(root), [grandchild.id]: child.id });

    expect((await t.http().delete(`/api/v1/workspaces/${ws}/api-keys/${child.id}`).set('X-API-Key', root)).status).toBe(204);
    for (const k of [child.secret, grandchild.secret]) {
      const res = await get(ws, k);
      expect({ status: res.status, code: res.body.error?.code }).toEqual({ status: 401, code: 'api_key_expired' });
    }
    expect((await page(childLink.url)).status).toBe(404);
    expect((await page(grandLink.url)).status).toBe(404);
    expect((await page(rootLink.url)).status).toBe(200);
    expect((await get(ws, root)).status).toBe(200);
    const after = await t.http().get(`/api/v1/workspaces/${ws}/api-keys`).set('X-API-Key', root);
    const revoked = after.body.data.filter((k: { revoked_at: string | null }) => k.revoked_at !== null).map((k: { id: string }) => k.id);
    expect(revoked.sort()).toEqual([child.id, grandchild.id].sort());
  });

  it("reaches what a key made when an operator's SQL revokes it or moves its expiry earlier; every instance's cache learns it", async () => {
    const { ws, key: root } = await workspaceWithKey(t.db);
    const parent = (await create(ws, root, { name: 'parent' })).body.data as { id: string; secret: string };
    const child = (await create(ws, parent.secret, { name: 'child' })).body.data as { id: string; secret: string };
    const cache = createApiKeyCache({ db: t.db, logger: createLogger('silent'), ttlMs: 60_000 });
    try {
      await new Promise((r) => setTimeout(r, 300));
      expect((await cache.find(child.secret))?.revokedAt).toBeNull();
      await t.db('api_keys').where('id', parent.id).update({ revoked_at: t.db.fn.now() });
      const deadline = Date.now() + 1_000;
      let revokedAt: Date | null | undefined = null;
      while (revokedAt === null && Date.now() < deadline) {
        revokedAt = (await cache.find(child.secret))?.revokedAt;
        if (revokedAt === null) await new Promise((r) => setTimeout(r, 10));
      }
      expect(revokedAt).toBeInstanceOf(Date);
    } finally {
      await cache.stop();
    }
    // An earlier expiry: the child's is moved with it, and a new child cannot be inserted past it.
    const other = (await create(ws, root, { name: 'other' })).body.data as { id: string; secret: string };
    const otherChild = (await create(ws, other.secret, { name: 'other child' })).body.data as { id: string; secret: string };
    const past = new Date(Date.now() - 1000);
    await t.db('api_keys').where('id', other.id).update({ expires_at: past });
    const row = await t.db('api_keys').first('expires_at').where('id', otherChild.id);
    expect(row.expires_at.toISOString()).toBe(past.toISOString());
    const res = await get(ws, otherChild.secret);
    expect({ status: res.status, code: res.body.error?.code }).toEqual({ status: 401, code: 'api_key_expired' });
  });

  it('revokes what a key made when the key revokes itself', async () => {
    const { ws, key: root } = await workspaceWithKey(t.db);
    const self = (await create(ws, root, { name: 'self' })).body.data as { id: string; secret: string };
    const made = (await create(ws, self.secret, { name: 'made' })).body.data as { id: string; secret: string };
    expect((await t.http().delete(`/api/v1/workspaces/${ws}/api-keys/${self.id}`).set('X-API-Key', self.secret)).status).toBe(204);
    expect((await get(ws, made.secret)).status).toBe(401);
    expect((await get(ws, root)).status).toBe(200);
  });
});

describe('what a key sees of a key that also opens other workspaces', () => {
  const idOf = async (secret: string) =>
    ((await t.db('api_keys').where('key_hash', createHash('sha256').update(secret).digest('hex')).first('id')) as { id: string }).id;

  it.each(['A', 'B'] as const)(
    'a Style %s key of W1: the list shows the W1+W2 key with workspace_ids [W1]; its usage and migration report are 403',
    async (style) => {
      const { ws: w1, key: narrow } = await workspaceWithKey(t.db, { style });
      const { ws: w2 } = await workspaceWithKey(t.db);
      const wide = await keyFor(t.db, [w1, w2]);
      const wideId = await idOf(wide);
      const now = new Date();
      const today = now.toISOString().slice(0, 10);
      // 7 Style B list requests of the wide key, wherever they were made (usage is kept per key).
      await withTransaction(t.db, (trx) =>
        addAllUsage(trx, [{ keyId: wideId, date: today, style: 'B', operation: 'listResponses', attention: '', requests: 7, firstSeen: now, lastSeen: now }]),
      );

      const list = await t.http().get(`/api/v1/workspaces/${w1}/api-keys`).set('X-API-Key', narrow);
      expect(list.status).toBe(200);
      expect(list.body.data.find((k: { id: string }) => k.id === wideId).workspace_ids).toEqual([w1]);
      expect(JSON.stringify(list.body)).not.toContain(w2);

      const message = `API key "${wideId}" also opens workspaces this API key has no access to; only a key with access to all of them may read its usage.`;
      for (const path of ['usage', 'migration-report']) {
        const res = await t.http().get(`/api/v1/workspaces/${w1}/api-keys/${wideId}/${path}`).set('X-API-Key', narrow);
        expect([path, res.status, res.body.error]).toEqual([path, 403, { code: 'workspace_access_denied', status: 403, message }]);
      }

      // The wide key itself, and a key that opens both workspaces, see it all.
      const both = await keyFor(t.db, [w2, w1]);
      for (const reader of [wide, both]) {
        const keys = await t.http().get(`/api/v1/workspaces/${w1}/api-keys`).set('X-API-Key', reader);
        expect(keys.body.data.find((k: { id: string }) => k.id === wideId).workspace_ids).toEqual([w1, w2].sort());
        const usage = await t.http().get(`/api/v1/workspaces/${w1}/api-keys/${wideId}/usage`).set('X-API-Key', reader);
        // Style B only: the readers' own (Style A) requests may be flushed meanwhile.
        expect([usage.status, usage.body.data.filter((u: { style: string }) => u.style === 'B')]).toEqual([200, [{ date: today, style: 'B', requests: 7 }]]);
        const report = await t.http().get(`/api/v1/workspaces/${w1}/api-keys/${wideId}/migration-report`).set('X-API-Key', reader);
        expect([report.status, report.body.data.operations.map((o: { operation: string; requests: number }) => [o.operation, o.requests])]).toEqual([
          200,
          [['listResponses', 7]],
        ]);
      }
    },
  );
});
