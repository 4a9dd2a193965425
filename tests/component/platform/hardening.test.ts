/**
 * Issue 13 (docs/api-rules.md, "Order of checks"; docs/writes-keys-limits.md, "Limits, bad bytes and secrets"), on both databases: invalid Unicode, the 431 envelope through a
 * real socket, no secret in the log, no body coercion, the scope of form responses, DELETE answers
 * of unknown ids, and 405 with `Allow`.
 */
import net from 'node:net';
import { Writable } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { nanoid } from 'nanoid';
import { buildApp } from '../../../src/app';
import { createHttpServer } from '../../../src/platform/http-server';
import { createLogger } from '../../../src/platform/logger';
import { createRateLimiter } from '../../../src/platform/rate-limit';
import supertest from 'supertest';
import { testConfig, useTestApp } from '../../support/app';
import { keyFor, scenario, type Scenario, workspaceWithKey } from '../../support/given';
import { workspaceState } from '../../support/state';

const t = useTestApp();
let s: Scenario;
beforeAll(async () => {
  s = await scenario(t.db, { responseCount: 3 });
});

const LONE = '\ud800';
const base = () => `/api/v1/workspaces/${s.ws}`;

describe('invalid Unicode (a lone surrogate) is a 400 naming the field, nothing written', () => {
  const cases: Array<[string, 'post' | 'patch', () => string, () => object, string]> = [
    ['Style A rows POST', 'post', () => `${base()}/datatables/${s.table}/rows`, () => ({ data: { plan: `x${LONE}` } }), 'data.plan'],
    ['Style A rows POST (array)', 'post', () => `${base()}/datatables/${s.table}/rows`, () => ({ data: [{ plan: 'ok' }, { plan: LONE }] }), 'data[1].plan'],
    ['Style A row PATCH', 'patch', () => `${base()}/datatables/${s.table}/rows/${s.rows[0]}`, () => ({ data: { plan: LONE } }), 'data.plan'],
    ['Style B entries POST', 'post', () => `${base()}/tables/${s.table}/entries`, () => ({ data: { id: 'e1', plan: LONE } }), 'data.plan'],
    ['Style B entry PATCH', 'patch', () => `${base()}/tables/${s.table}/entries/${s.rows[1]}`, () => ({ data: { plan: LONE } }), 'data.plan'],
    [
      'Style B bulk-entries',
      'post',
      () => `${base()}/tables/${s.table}/bulk-entries`,
      () => ({ data: [{ id: 'b1', seats: 1 }, { id: `b${LONE}` }] }),
      'data[1].id',
    ],
    ['a key (not a value)', 'post', () => `${base()}/datatables/${s.table}/rows`, () => ({ data: { [`pl${LONE}an`]: 'x' } }), 'data.pl\ufffdan'],
    [
      'webhook endpoint',
      'post',
      () => `${base()}/webhook-endpoints`,
      () => ({ url: 'https://hooks.example.com/x', events: ['row.created'], description: LONE }),
      'description',
    ],
    ['API key', 'post', () => `${base()}/api-keys`, () => ({ name: `key ${LONE}` }), 'name'],
  ];
  it.each(cases)('%s', async (_name, method, path, body, field) => {
    const before = await workspaceState(t.db, s.ws);
    const res = await t.http()[method](path()).set('X-API-Key', s.key).set('Content-Type', 'application/json').send(JSON.stringify(body()));
    expect([res.status, res.body.error?.code]).toEqual([400, 'validation_error']);
    expect(res.body.error.details).toEqual([expect.objectContaining({ location: 'body', field })]);
    expect(res.body.request_id).toMatch(/^req_/);
    expect(await workspaceState(t.db, s.ws)).toEqual(before);
  });

  it('checks after the auth checks (401 and 403 first)', async () => {
    const body = JSON.stringify({ data: { plan: LONE } });
    const anon = await t.http().post(`${base()}/datatables/${s.table}/rows`).set('Content-Type', 'application/json').send(body);
    expect(anon.status).toBe(401);
    const readOnly = await keyFor(t.db, [s.ws], { scopes: ['datatables:read'] });
    const denied = await t.http().post(`${base()}/datatables/${s.table}/rows`).set('X-API-Key', readOnly).set('Content-Type', 'application/json').send(body);
    expect([denied.status, denied.body.error.code]).toEqual([403, 'insufficient_scope']);
  });
});

describe('request line or headers over 16 KiB: 431 headers_too_large in the envelope (real socket)', () => {
  it('answers from the server client-error handler with a request_id', async () => {
    const server = createHttpServer(t.app, createLogger('silent'), testConfig());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const raw = await new Promise<string>((resolve, reject) => {
        const socket = net.connect(port, '127.0.0.1');
        let data = '';
        socket.on('data', (c: Buffer) => (data += c.toString('utf8')));
        socket.on('end', () => resolve(data));
        socket.on('error', (e) => (data ? resolve(data) : reject(e)));
        socket.write(`GET ${base()}/responses?q=${'a'.repeat(100_000)} HTTP/1.1\r\nHost: localhost\r\nX-API-Key: ${s.key}\r\n\r\n`);
      });
      const [head, body] = raw.split('\r\n\r\n');
      expect(head).toMatch(/^HTTP\/1\.1 431 /);
      expect(head).toMatch(/content-type: application\/json/i);
      const parsed = JSON.parse(body!);
      expect(parsed).toEqual({
        error: { code: 'headers_too_large', message: expect.stringContaining('16384'), status: 431 },
        request_id: expect.stringMatching(/^req_/),
      });
      expect(head).toContain(`X-Request-Id: ${parsed.request_id}`);
      expect(head).toContain('X-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\n');
      // A request just under the limit still works.
      const ok = await fetch(`http://127.0.0.1:${port}${base()}/responses?limit=1&x-pad=${'a'.repeat(100)}`, { headers: { 'X-API-Key': s.key } });
      expect(ok.status).toBe(400); // x-pad is an unknown parameter: an ordinary answer, not 431
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('logs never hold a secret (LOG_LEVEL=debug)', () => {
  it('redacts secret query values and /e/{token}.gif; a key in the query string is a 400, never authenticates', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    });
    const logger = createLogger('debug', sink);
    const app = buildApp(testConfig({ logLevel: 'debug' }), {
      db: t.db,
      logger,
      redis: t.redis,
      limiter: createRateLimiter({ redis: t.redis, logger, prefix: `fs-log-${nanoid(8)}` }),
    });
    const http = () => supertest(app);
    const secrets = [`${s.key}`, 'tok_SECRET_e1', 'tok_SECRET_t1', 'SECRET_secret', 'SECRET_key', 'SECRET_token'];
    const viaQuery = await http().get(`${base()}/forms?api_key=${s.key}`);
    expect([viaQuery.status, viaQuery.body.error.code, viaQuery.body.error.details[0].field]).toEqual([400, 'validation_error', 'api_key']);
    const alsoHeader = await http().get(`/api/v1/workspaces?API_KEY=${s.key}&key=SECRET_key`).set('X-API-Key', s.key);
    expect([alsoHeader.status, alsoHeader.body.error.details[0].field]).toEqual([400, 'API_KEY']);
    await http().get(`${base()}/forms?token=SECRET_token&secret=SECRET_secret&t=tok_SECRET_t1&limit=2`).set('X-API-Key', s.key);
    await http().get('/e/tok_SECRET_e1.gif');
    const created = await http()
      .post(`${base()}/webhook-endpoints`)
      .set('X-API-Key', s.key)
      .send({ url: 'https://hooks.example.com/l', events: ['row.created'] });
    expect(created.status).toBe(201);
    secrets.push(created.body.data.secret);
    const log = lines.join('');
    expect(lines.length).toBeGreaterThanOrEqual(5);
    for (const secret of secrets) expect(log).not.toContain(secret);
    expect(log).toContain('api_key=[redacted]');
    expect(log).toContain('token=[redacted]&secret=[redacted]&t=[redacted]&limit=2');
    expect(log).toContain('/e/[redacted].gif');
  });
});

describe('body values are never coerced (docs/writes-keys-limits.md, "Limits, bad bytes and secrets")', () => {
  it('answers 400 for "name": 12345 and writes no key; query strings are still typed', async () => {
    const before = await workspaceState(t.db, s.ws);
    const res = await t.http().post(`${base()}/api-keys`).set('X-API-Key', s.key).send({ name: 12345 });
    expect([res.status, res.body.error.code]).toEqual([400, 'validation_error']);
    expect(res.body.error.details[0]).toMatchObject({ location: 'body', field: 'name' });
    const limit = await t.http().post(`${base()}/api-keys`).set('X-API-Key', s.key).send({ name: 'n', rate_limit_per_minute: '120' });
    expect([limit.status, limit.body.error.details[0].field]).toEqual([400, 'rate_limit_per_minute']);
    expect(await workspaceState(t.db, s.ws)).toEqual(before);
    const listed = await t.http().get(`${base()}/responses?limit=2`).set('X-API-Key', s.key);
    expect([listed.status, listed.body.data.length]).toEqual([200, 2]);
  });
});

describe('scopes (docs/writes-keys-limits.md, "API keys and scopes")', () => {
  it('GET {ws}/forms/{form_id}/responses needs responses:read, not forms:read', async () => {
    const formsOnly = await keyFor(t.db, [s.ws], { scopes: ['forms:read'] });
    const denied = await t.http().get(`${base()}/forms/${s.nps}/responses`).set('X-API-Key', formsOnly);
    expect([denied.status, denied.body.error.code]).toEqual([403, 'insufficient_scope']);
    expect(denied.body.error.message).toContain('responses:read');
    const responsesOnly = await keyFor(t.db, [s.ws], { scopes: ['responses:read'] });
    const ok = await t.http().get(`${base()}/forms/${s.nps}/responses`).set('X-API-Key', responsesOnly);
    expect(ok.status).toBe(200);
  });
});

describe('DELETE of an unknown or foreign id is a 404 on both databases', () => {
  it('webhook endpoints, Style A rows and Style B entries', async () => {
    const other = await workspaceWithKey(t.db);
    const foreign = await t
      .http()
      .post(`/api/v1/workspaces/${other.ws}/webhook-endpoints`)
      .set('X-API-Key', other.key)
      .send({ url: 'https://hooks.example.com/f', events: ['row.created'] });
    expect(foreign.status).toBe(201);
    const paths = [
      `${base()}/webhook-endpoints/whe_unknown`,
      `${base()}/webhook-endpoints/${foreign.body.data.id}`,
      `${base()}/datatables/${s.table}/rows/row_unknown`,
      `${base()}/tables/${s.table}/entries/row_unknown`,
    ];
    for (const path of paths) {
      const res = await t.http().delete(path).set('X-API-Key', s.key);
      expect([path, res.status, res.body.error?.code]).toEqual([path, 404, 'resource_not_found']);
    }
    const own = await t
      .http()
      .post(`${base()}/datatables/${s.table}/rows`)
      .set('X-API-Key', s.key)
      .send({ data: { plan: 'gone' } });
    const rowPath = `${base()}/datatables/${s.table}/rows/${own.body.data.row_id ?? own.body.data.id}`;
    expect((await t.http().delete(rowPath).set('X-API-Key', s.key)).status).toBe(204);
    expect((await t.http().delete(rowPath).set('X-API-Key', s.key)).status).toBe(404);
    const kept = await t.http().get(`/api/v1/workspaces/${other.ws}/webhook-endpoints/${foreign.body.data.id}`).set('X-API-Key', other.key);
    expect(kept.status).toBe(200);
  });
});

describe('405 names the allowed methods', () => {
  it('sends Allow and lists the methods in the message', async () => {
    const res = await t.http().put(`${base()}/datatables/${s.table}/rows`).set('X-API-Key', s.key).send({});
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD, POST');
    expect(res.body).toEqual({
      error: { code: 'method_not_allowed', message: 'PUT is not allowed here; use GET, HEAD, POST.', status: 405 },
      request_id: expect.stringMatching(/^req_/),
    });
    const del = await t.http().delete(`${base()}/forms`).set('X-API-Key', s.key);
    expect([del.status, del.headers.allow]).toEqual([405, 'GET, HEAD']);
    const unknown = await t.http().get(`${base()}/nothing-here`).set('X-API-Key', s.key);
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'resource_not_found']);
  });
});
