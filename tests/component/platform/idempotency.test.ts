import { createHash } from 'node:crypto';
import { buildApp } from '../../../src/app';
import { openBody, sealBody } from '../../../src/platform/idempotency';
import { createLogger } from '../../../src/platform/logger';
import { canonicalJson } from '../../../src/core/canonical-json';
import { scenario, type Scenario } from '../../support/given';
import { testConfig, useTestApp } from '../../support/app';
import supertest from 'supertest';

const t = useTestApp();
let s: Scenario;
beforeAll(async () => {
  s = await scenario(t.db, { responseCount: 0 });
});

const rows = () => `/api/v1/workspaces/${s.ws}/datatables/${s.table}/rows`;
const countExternal = async (id: string) =>
  (await t.db.raw('SELECT count(*)::int AS n FROM datatable_rows WHERE workspace_id = ? AND external_id = ?', [s.ws, id])).rows[0].n as number;
const uniq = (p: string) => `${p}-${Math.random().toString(36).slice(2, 12)}`;

describe('Idempotency-Key', () => {
  it('replays the stored status, headers and body byte for byte with Idempotent-Replayed: true', async () => {
    const key = uniq('idem');
    const body = { data: { plan: 'once' } };
    const first = await t.http().post(rows()).set('X-API-Key', s.key).set('Idempotency-Key', key).send(body);
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const second = await t
      .http()
      .post(rows())
      .set('X-API-Key', s.key)
      .set('Idempotency-Key', key)
      .send({ data: { plan: 'once' } });
    expect(second.status).toBe(201);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.text).toBe(first.text);
    expect(second.headers['content-type']).toBe(first.headers['content-type']);
    expect(second.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
    expect(second.body.request_id).toBe(first.body.request_id);
    expect(Number(second.headers['x-ratelimit-remaining'])).toBe(Number(first.headers['x-ratelimit-remaining']) - 1);
    const listed = await t
      .http()
      .get(`${rows()}?filter=${encodeURIComponent('plan = once')}`)
      .set('X-API-Key', s.key);
    expect(listed.body.data).toHaveLength(1);
  });

  it('treats the body canonically (key order does not matter)', async () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { f: 1, e: 0 }], c: null } })).toBe('{"a":{"c":null,"d":[2,{"e":0,"f":1}]},"b":1}');
    const key = uniq('idem');
    const id = uniq('c');
    await t
      .http()
      .post(rows())
      .set('X-API-Key', s.key)
      .set('Idempotency-Key', key)
      .send(`{"data":{"id":"${id}","seats":1}}`)
      .set('Content-Type', 'application/json');
    const again = await t
      .http()
      .post(rows())
      .set('X-API-Key', s.key)
      .set('Idempotency-Key', key)
      .send(`{"data":{"seats":1,"id":"${id}"}}`)
      .set('Content-Type', 'application/json');
    expect(again.headers['idempotent-replayed']).toBe('true');
  });

  it('answers 409 idempotency_replay for the same key with another body, path or method', async () => {
    const key = uniq('idem');
    await t
      .http()
      .post(rows())
      .set('X-API-Key', s.key)
      .set('Idempotency-Key', key)
      .send({ data: { plan: 'a' } });
    const otherBody = await t
      .http()
      .post(rows())
      .set('X-API-Key', s.key)
      .set('Idempotency-Key', key)
      .send({ data: { plan: 'b' } });
    expect(otherBody.status).toBe(409);
    expect(otherBody.body.error.code).toBe('idempotency_replay');
    const otherPath = await t
      .http()
      .post(`/api/v1/workspaces/${s.ws}/tables/${s.table}/entries`)
      .set('X-API-Key', s.key)
      .set('Idempotency-Key', key)
      .send({ data: { id: uniq('c') } });
    expect(otherPath.status).toBe(409);
    expect(otherPath.body.error.code).toBe('idempotency_replay');
  });

  it('runs the write once for 20 parallel requests with one key; the others replay or get 409 conflict (in progress)', async () => {
    const key = uniq('idem');
    const id = uniq('par');
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        t
          .http()
          .post(rows())
          .set('X-API-Key', s.key)
          .set('Idempotency-Key', key)
          .send({ data: { id, seats: 1 } }),
      ),
    );
    const original = results.filter((r) => r.status === 201 && r.headers['idempotent-replayed'] === undefined);
    expect(original).toHaveLength(1);
    for (const r of results) {
      if (r === original[0]) continue;
      if (r.status === 409) {
        expect(r.body.error.code).toBe('conflict');
        expect(JSON.stringify(r.body.error.details)).toMatch(/in progress/);
      } else {
        expect(r.headers['idempotent-replayed']).toBe('true');
        expect(r.text).toBe(original[0]!.text);
      }
    }
    expect(await countExternal(id)).toBe(1);
  });

  it('is scoped to the API key: another key with the same Idempotency-Key runs on its own', async () => {
    const other = await scenario(t.db, { responseCount: 0 });
    const key = uniq('idem');
    const a = await t
      .http()
      .post(rows())
      .set('X-API-Key', s.key)
      .set('Idempotency-Key', key)
      .send({ data: { plan: 'x' } });
    const b = await t
      .http()
      .post(`/api/v1/workspaces/${other.ws}/datatables/${other.table}/rows`)
      .set('X-API-Key', other.key)
      .set('Idempotency-Key', key)
      .send({ data: { plan: 'x' } });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.headers['idempotent-replayed']).toBeUndefined();
  });

  it('stores 4xx answers and replays DELETE 204', async () => {
    const key = uniq('idem');
    const bad1 = await t
      .http()
      .post(rows())
      .set('X-API-Key', s.key)
      .set('Idempotency-Key', key)
      .send({ data: { nope: 1 } });
    const bad2 = await t
      .http()
      .post(rows())
      .set('X-API-Key', s.key)
      .set('Idempotency-Key', key)
      .send({ data: { nope: 1 } });
    expect([bad1.status, bad2.status]).toEqual([400, 400]);
    expect(bad2.headers['idempotent-replayed']).toBe('true');
    const created = await t
      .http()
      .post(rows())
      .set('X-API-Key', s.key)
      .send({ data: { plan: 'del' } });
    const dk = uniq('idem');
    const d1 = await t.http().delete(`${rows()}/${created.body.data.row_id}`).set('X-API-Key', s.key).set('Idempotency-Key', dk);
    const d2 = await t.http().delete(`${rows()}/${created.body.data.row_id}`).set('X-API-Key', s.key).set('Idempotency-Key', dk);
    expect([d1.status, d2.status]).toEqual([204, 204]);
    expect(d2.headers['idempotent-replayed']).toBe('true');
  });

  it('rejects a malformed Idempotency-Key with 400 naming the header', async () => {
    const res = await t.http().post(rows()).set('X-API-Key', s.key).set('Idempotency-Key', 'x'.repeat(256)).send({ data: {} });
    expect(res.status).toBe(400);
    expect(res.body.error.details[0]).toMatchObject({ location: 'header' });
    expect(res.body.error.details[0].field.toLowerCase()).toBe('idempotency-key');
    const ctl = await t.http().post(rows()).set('X-API-Key', s.key).set('Idempotency-Key', 'caf\u00e9').send({ data: {} });
    expect(ctl.status).toBe(400);
    expect(ctl.body.error.details[0]).toMatchObject({ location: 'header', field: 'Idempotency-Key' });
  });

  it('ignores the header on GET', async () => {
    const res = await t.http().get(rows()).set('X-API-Key', s.key).set('Idempotency-Key', uniq('idem'));
    expect(res.status).toBe(200);
    expect(res.headers['idempotent-replayed']).toBeUndefined();
  });

  it('works the same with the in-process store when there is no Redis', async () => {
    const app = buildApp(testConfig(), { db: t.db, logger: createLogger('silent') });
    const key = uniq('idem');
    const id = uniq('mem');
    const results = await Promise.all(
      Array.from({ length: 10 }, () => supertest(app).post(rows()).set('X-API-Key', s.key).set('Idempotency-Key', key).send({ data: { id } })),
    );
    expect(results.filter((r) => r.status === 201 && r.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
    expect(await countExternal(id)).toBe(1);
    const replay = await supertest(app).post(rows()).set('X-API-Key', s.key).set('Idempotency-Key', key).send({ data: { id } });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    const other = await supertest(app)
      .post(rows())
      .set('X-API-Key', s.key)
      .set('Idempotency-Key', key)
      .send({ data: { id, seats: 2 } });
    expect(other.body.error.code).toBe('idempotency_replay');
  });
});

describe('Redis holds no usable secret (issue 25 item 8; docs/writes-keys-limits.md, "Idempotency")', () => {
  const sha256 = (v: string) => createHash('sha256').update(v, 'utf8').digest('hex');
  /** Every stored value under this Idempotency-Key, whatever its scope. */
  const storedFor = async (idemKey: string): Promise<string> => {
    const keys = await t.redis.keys(`fs:idem:*:${sha256(idemKey)}`);
    expect(keys).toHaveLength(1);
    return (await t.redis.get(keys[0]!))!;
  };
  /** The secret in every spelling a store could hold it: as is, in base64 of the body, in base64 of itself. */
  const expectAbsent = (stored: string, secret: string, body: string) => {
    expect(stored).not.toContain(secret);
    expect(stored).not.toContain(Buffer.from(secret).toString('base64').slice(0, 24));
    expect(stored).not.toContain(Buffer.from(body).toString('base64').slice(0, 40));
    expect(Buffer.from(stored).toString('latin1')).not.toContain(secret);
  };
  const replayTwice = async (send: () => supertest.Test) => {
    const first = await send();
    const again = await send();
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.status).toBe(first.status);
    expect(again.text).toBe(first.text);
    return first;
  };

  it('POST {ws}/api-keys: the new key is not readable from Redis, and a replay answers it byte for byte', async () => {
    const idemKey = uniq('idem-key');
    const send = () =>
      t
        .http()
        .post(`/api/v1/workspaces/${s.ws}/api-keys`)
        .set('X-API-Key', s.key)
        .set('Idempotency-Key', idemKey)
        .send({ name: 'ci', scopes: ['forms:read'] });
    const first = await replayTwice(send);
    expect(first.status).toBe(201);
    const secret = first.body.data.secret as string;
    expect(secret).toMatch(/^fa_/);
    const stored = await storedFor(idemKey);
    expect(JSON.parse(stored)).toEqual({
      state: 'done',
      fingerprint: expect.any(String),
      status: 201,
      headers: expect.any(Object),
      sealed: expect.any(String),
    });
    expectAbsent(stored, secret, first.text);
    // The replayed key is the key that was made: it works.
    expect((await t.http().get(`/api/v1/workspaces/${s.ws}/forms`).set('X-API-Key', secret)).status).toBe(200);
  });

  it('POST webhook endpoint and rotate-secret: the signing secret is not readable from Redis, and a replay answers it', async () => {
    const createKey = uniq('idem-hook');
    const created = await replayTwice(() =>
      t
        .http()
        .post(`/api/v1/workspaces/${s.ws}/webhook-endpoints`)
        .set('X-API-Key', s.key)
        .set('Idempotency-Key', createKey)
        .send({ url: 'https://hooks.example.com/idem', events: ['row.created'] }),
    );
    expect(created.status).toBe(201);
    expectAbsent(await storedFor(createKey), created.body.data.secret as string, created.text);

    const rotateKey = uniq('idem-rotate');
    const rotated = await replayTwice(() =>
      t
        .http()
        .post(`/api/v1/workspaces/${s.ws}/webhook-endpoints/${created.body.data.id}/rotate-secret`)
        .set('X-API-Key', s.key)
        .set('Idempotency-Key', rotateKey),
    );
    expect(rotated.status).toBe(200);
    expect(rotated.body.data.secret).not.toBe(created.body.data.secret);
    expectAbsent(await storedFor(rotateKey), rotated.body.data.secret as string, rotated.text);
  });

  it('a stored answer does not open under another record key (sealed to its record)', () => {
    const key = Buffer.alloc(32, 7);
    const sealed = sealBody(key, 'fs:idem:a:1', Buffer.from('{"secret":"whsec_x"}'));
    expect(openBody(key, 'fs:idem:a:1', sealed).toString()).toBe('{"secret":"whsec_x"}');
    expect(() => openBody(key, 'fs:idem:b:1', sealed)).toThrow();
    expect(() => openBody(Buffer.alloc(32, 8), 'fs:idem:a:1', sealed)).toThrow();
  });
});
