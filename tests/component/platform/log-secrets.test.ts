/**
 * No secret in a log line (issue 25 item 8; docs/writes-keys-limits.md, "Limits, bad bytes and secrets"), on both
 * databases: every URL form that carries a token or a key is requested (dashboard links and their downloads, the
 * open-tracking image with and without a trailing slash, email links on the form pages, API keys in the query
 * string in every spelling) and the captured log holds none of them. An API key in the query string of an `/api/`
 * path is a 400 telling to use the `X-API-Key` header.
 */
import { Writable } from 'node:stream';
import { nanoid } from 'nanoid';
import supertest from 'supertest';
import { buildApp } from '../../../src/app';
import { createLogger } from '../../../src/platform/logger';
import { createRateLimiter } from '../../../src/platform/rate-limit';
import { testConfig, useTestApp } from '../../support/app';
import { formWorkspace, surveyForm, type FormWorkspace } from '../../support/given';

const PUBLIC_URL = 'https://feedback.example.com';
const t = useTestApp();
let w: FormWorkspace;
const lines: string[] = [];
let http: () => supertest.Agent;
beforeAll(async () => {
  w = await formWorkspace(t.db, { form: surveyForm });
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  const logger = createLogger('debug', sink);
  const app = buildApp(testConfig({ logLevel: 'debug', publicUrl: PUBLIC_URL, authFailuresPerMinute: 1000 }), {
    db: t.db,
    logger,
    redis: t.redis,
    limiter: createRateLimiter({ redis: t.redis, logger, prefix: `fs-logsec-${nanoid(8)}` }),
  });
  http = () => supertest.agent(app);
});

const local = (url: string) => url.slice(PUBLIC_URL.length);
/** Both halves of a `claims.signature` token: a log holding either one leaks part of it. */
const parts = (token: string) => token.split('.').filter((p) => p.length >= 8);
const API_KEY_PARAMS = ['apiKey', 'x-api-key', 'X-API-Key', 'api_key', 'API_KEY', 'ApiKey', 'x_api_key', 'api%5Fkey', 'X-Api-Key'];

describe('the request log holds no address (docs/data-rights.md, "Logs")', () => {
  it('redacts an address in any query value: the person export, response filters, email event recipients', async () => {
    const address = `canary-${nanoid(6)
      .toLowerCase()
      .replace(/[^a-z0-9]/g, 'x')}@example.com`;
    const ws = `/api/v1/workspaces/${w.ws}`;
    const requests: Array<[string, number]> = [
      [`${ws}/respondents/export?email=${encodeURIComponent(address)}`, 200],
      [`${ws}/respondents/export?email=${address}`, 200],
      [`${ws}/responses?respondent_email=${encodeURIComponent(address)}`, 200],
      [`${ws}/responses?filter=${encodeURIComponent(`respondent_email = "${address}"`)}`, 200],
      [`${ws}/email-events?recipient=${encodeURIComponent(address)}`, 200],
    ];
    const before = lines.length;
    for (const [path, status] of requests) {
      const res = await http().get(path).set('X-API-Key', w.key).buffer(true);
      expect([path, res.status, res.status === 200 ? '' : res.text]).toEqual([path, status, '']);
    }
    const log = lines.slice(before).join('');
    expect(log.match(/"request completed"/g)?.length).toBe(requests.length);
    expect(log.toLowerCase()).not.toContain(address);
    expect(log.toLowerCase()).not.toContain(encodeURIComponent(address).toLowerCase());
    expect(log).toContain('respondents/export?email=[redacted]');
  });
});

describe('the request log holds no token or key', () => {
  it('redacts every tokened URL form: /d/{token}, /d/{token}/…, /e/{token}.gif(/), ?t= on form pages, keys and tokens in queries', async () => {
    const minted = await http().post(`/api/v1/workspaces/${w.ws}/forms/${w.form}/links`).set('X-API-Key', w.key).send({ email: 'log@example.com' });
    expect(minted.status).toBe(201);
    const link = minted.body.data as { url: string; open_url: string };
    const token = new URL(link.url).searchParams.get('t')!;
    const dash = await http().post(`/api/v1/workspaces/${w.ws}/forms/${w.form}/dashboard-links`).set('X-API-Key', w.key).send({});
    expect(dash.status).toBe(201);
    const dashPath = local(dash.body.data.url as string);
    const dashToken = dashPath.slice('/d/'.length);
    const page = await http().get(dashPath);
    expect(page.status).toBe(200);
    const download = /href="(\/d\/[^"]+\/export\?format=csv&amp;t=[^"]+)"/.exec(page.text)![1]!.replace(/&amp;/g, '&');
    const downloadToken = new URL(download, PUBLIC_URL).searchParams.get('t')!;

    const requests: Array<[string, number]> = [
      [dashPath, 200],
      [`${dashPath}/`, 200],
      [`${dashPath}?lang=de&interval=week`, 200],
      [`/D/${dashToken}`, 200],
      [download, 200],
      [`${dashPath}/export?format=ndjson&t=${downloadToken}`, 200],
      [local(link.open_url), 200],
      [`${local(link.open_url)}/`, 200],
      [`/E/${token}.GIF`, 200],
      [`/e/${token}`, 401],
      [local(link.url), 200],
      [`${local(link.url)}&lang=de`, 200],
      [`/f/${w.form}?T=${token}`, 200],
      [`/f/${w.form}?_t=${token}`, 200],
      [`/f/${w.form}/thanks?t=${token}`, 200],
      [`/api/v1/workspaces/${w.ws}/forms?token=${token}&secret=${dashToken}&access_token=${downloadToken}`, 400],
    ];
    for (const [path, status] of requests) {
      const res = path.startsWith('/api/') ? await http().get(path).set('X-API-Key', w.key) : await http().get(path);
      expect([path, res.status]).toEqual([path, status]);
    }
    for (const name of API_KEY_PARAMS) {
      const alone = await http().get(`/api/v1/workspaces/${w.ws}/forms?${name}=${w.key}`);
      expect([name, alone.status]).toEqual([name, 400]);
      const withHeader = await http().get(`/api/v1/workspaces?${name}=${w.key}`).set('X-API-Key', w.key);
      expect([name, withHeader.status]).toEqual([name, 400]);
    }

    const log = lines.join('');
    const completed = lines.filter((l) => l.includes('"request completed"'));
    expect(completed.length).toBeGreaterThanOrEqual(requests.length + API_KEY_PARAMS.length * 2);
    for (const secret of [w.key, ...parts(token), ...parts(dashToken), downloadToken]) expect(log).not.toContain(secret);
    expect(log).toContain('"/d/[redacted]/export?format=csv&t=[redacted]"');
    expect(log).toContain('"/e/[redacted].gif/"');
    expect(log).toContain('"/D/[redacted]"');
    expect(log).toContain(`"/f/${w.form}?T=[redacted]"`);
    expect(log).toContain('X-API-Key=[redacted]');
  });
});

describe('an API key in the query string', () => {
  it('is a 400 validation_error naming the parameter and telling to use the X-API-Key header, with or without the header', async () => {
    for (const name of API_KEY_PARAMS) {
      const res = await t.http().get(`/api/v1/workspaces?${name}=${w.key}`).set('X-API-Key', w.key);
      const field = decodeURIComponent(name);
      expect(res.body).toEqual({
        error: {
          code: 'validation_error',
          status: 400,
          message: `\`${field}\`: an API key is never accepted in the query string; send it in the \`X-API-Key\` header (and revoke a key that was sent in a URL).`,
          details: [
            {
              location: 'query',
              field,
              message: `\`${field}\`: an API key is never accepted in the query string; send it in the \`X-API-Key\` header (and revoke a key that was sent in a URL).`,
            },
          ],
        },
        request_id: res.headers['x-request-id'],
      });
    }
    const publicPath = await t.http().post(`/api/v1/forms/${w.form}/submissions?apiKey=${w.key}`).send({ answers: [] });
    expect([publicPath.status, publicPath.body.error.details[0].field]).toEqual([400, 'apiKey']);
    // Other parameters and the pages are not affected.
    expect((await t.http().get(`/api/v1/workspaces`).set('X-API-Key', w.key)).status).toBe(200);
    expect((await t.http().get(`/api/v1/workspaces/${w.ws}/forms?limit=5`).set('X-API-Key', w.key)).status).toBe(200);
    expect((await t.http().get(`/f/${w.form}?apiKey=x`)).status).toBe(200);
  });
});
