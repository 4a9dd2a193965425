/**
 * Public JSON submissions (docs/collecting.md, "Public JSON"; docs/collecting.md, "Email links"): no key, a receipt as the
 * answer, the budget per client address and form with its headers, TRUST_PROXY, Idempotency-Key scoped to
 * address + form, and email-link tokens (one response per link unless minted with more).
 */
import { nanoid } from 'nanoid';
import Redis from 'ioredis';
import supertest from 'supertest';
import { buildApp } from '../../../src/app';
import { claimLinkUse, pruneLinkUses } from '../../../src/core/links/link-uses.store';
import { mintLink } from '../../../src/core/links/links';
import { withTransaction } from '../../../src/db';
import type { Db } from '../../../src/db/connection';
import { createLogger } from '../../../src/platform/logger';
import { createRateLimiter } from '../../../src/platform/rate-limit';
import { testConfig } from '../../support/app';
import { openTestDb } from '../../support/db';
import { formWorkspace, goodAnswers, type FormWorkspace } from '../../support/given';

let db: Db;
let redis: Redis;
const silent = createLogger('silent');
const appWith = (trustProxy?: string) =>
  buildApp(testConfig({ submissionsPerMinute: 3, trustProxy, publicUrl: 'https://feedback.example.com' }), {
    db,
    logger: silent,
    redis,
    limiter: createRateLimiter({ redis, logger: silent, prefix: `fs-pub-${nanoid(8)}` }),
  });
let direct: ReturnType<typeof buildApp>;
let proxied: ReturnType<typeof buildApp>;
let w: FormWorkspace;
beforeAll(async () => {
  db = await openTestDb();
  redis = new Redis(process.env.TEST_REDIS_URL!, { enableOfflineQueue: true, maxRetriesPerRequest: 1 });
  direct = appWith();
  proxied = appWith('loopback');
  w = await formWorkspace(db);
});
afterAll(async () => {
  await db.destroy();
  redis.disconnect();
});

/** A fresh form id per test keeps budgets apart (the budget is per address and form). */
const freshForm = async (): Promise<string> => {
  const other = await formWorkspace(db);
  return other.form;
};
const submit = (formId: string, body: unknown, app = direct) =>
  supertest(app)
    .post(`/api/v1/forms/${formId}/submissions`)
    .send(body as object);
const storedFor = async (formId: string) => Number((await db('responses').where('form_id', formId).count({ n: '*' }).first())!.n);

describe('POST /api/v1/forms/{form_id}/submissions', () => {
  it('stores a response without a key: 201 with a receipt {id, created_at} and the budget headers', async () => {
    const form = await freshForm();
    const res = await submit(form, { answers: goodAnswers(), language: 'de' });
    expect(res.status).toBe(201);
    expect(res.headers['x-ratelimit-limit']).toBe('3');
    expect(res.headers['x-ratelimit-remaining']).toBe('2');
    expect(Number(res.headers['x-ratelimit-reset'])).toBeGreaterThan(Date.now() / 1000);
    expect(res.body).toEqual({
      data: { id: expect.stringMatching(/^rsp_/), created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) },
      meta: {},
      links: {},
      request_id: res.headers['x-request-id'],
    });
    const stored = await db('responses').where({ form_id: form, id: res.body.data.id }).first();
    expect(stored).toMatchObject({ score: 9, language: 'de', respondent_email: null, email_id: null, row_id: null });
    expect(new Date(stored.created_at).toISOString()).toBe(res.body.data.created_at);
    expect(await storedFor(form)).toBe(1);
  });

  it('answers 404 for an unknown form and 400 for bad answers or unknown members, storing nothing', async () => {
    const missing = await submit(`frm_${nanoid(12)}`, { answers: goodAnswers() });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('resource_not_found');

    const form = await freshForm();
    const bad = await submit(form, {
      answers: [
        { question_id: 'q_nps', value: 12 },
        { question_id: 'q_plan', value: 'opt_pro' },
      ],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details).toEqual([
      { location: 'body', field: 'answers[0].value', message: '`answers[0].value` must be an integer from 0 to 10; got 12' },
    ]);
    const unknown = await submit(form, { answers: goodAnswers(), form_id: form });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details[0].field).toBe('form_id');
    const language = await submit(form, { answers: goodAnswers(), language: 'xx' });
    expect(language.status).toBe(400);
    expect(language.body.error.details[0].field).toBe('language');
    expect(await storedFor(form)).toBe(0);
  });

  it('counts a path that does not percent-decode against the budget: its 400 carries the X-RateLimit-* headers', async () => {
    // The router fails to decode `%ED%A0%80` (a lone surrogate); the budget runs before routing, so the 400
    // still has the headers the document declares for it.
    for (const remaining of ['2', '1']) {
      const res = await submit('%ED%A0%80', { answers: goodAnswers() });
      expect(res.status).toBe(400);
      expect(res.body.error.details).toEqual([{ location: 'path', field: 'path', message: 'The path holds a malformed percent-encoding.' }]);
      expect(res.headers['x-ratelimit-limit']).toBe('3');
      expect(res.headers['x-ratelimit-remaining']).toBe(remaining);
    }
  });

  it('refuses past the budget per address and form with 429 and Retry-After; another form has its own budget', async () => {
    const form = await freshForm();
    for (let i = 0; i < 3; i++) expect((await submit(form, { answers: goodAnswers() })).status).toBe(201);
    const refused = await submit(form, { answers: goodAnswers() });
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('rate_limit_exceeded');
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(await storedFor(form)).toBe(3);
    const other = await freshForm();
    expect((await submit(other, { answers: goodAnswers() })).status).toBe(201);
  });

  it('ignores a forged X-Forwarded-For without TRUST_PROXY', async () => {
    const form = await freshForm();
    for (let i = 0; i < 3; i++) {
      const res = await submit(form, { answers: goodAnswers() }).set('X-Forwarded-For', `203.0.113.${i + 1}`);
      expect(res.status).toBe(201);
    }
    const forged = await submit(form, { answers: goodAnswers() }).set('X-Forwarded-For', '198.51.100.77');
    expect(forged.status).toBe(429);
  });

  it('with TRUST_PROXY=loopback counts each forwarded client on its own', async () => {
    const form = await freshForm();
    for (let i = 0; i < 3; i++) {
      expect((await submit(form, { answers: goodAnswers() }, proxied).set('X-Forwarded-For', '203.0.113.10')).status).toBe(201);
    }
    expect((await submit(form, { answers: goodAnswers() }, proxied).set('X-Forwarded-For', '203.0.113.10')).status).toBe(429);
    const another = await submit(form, { answers: goodAnswers() }, proxied).set('X-Forwarded-For', '203.0.113.11');
    expect(another.status).toBe(201);
    expect(another.headers['x-ratelimit-remaining']).toBe('2');
  });

  it('replays an Idempotency-Key for the same address and form; another form runs on its own', async () => {
    const form = await freshForm();
    const key = `pub-${nanoid(8)}`;
    const first = await submit(form, { answers: goodAnswers() }).set('Idempotency-Key', key);
    const again = await submit(form, { answers: goodAnswers() }).set('Idempotency-Key', key);
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.text).toBe(first.text);
    expect(await storedFor(form)).toBe(1);
    const changed = await submit(form, { answers: goodAnswers().slice(0, 2) }).set('Idempotency-Key', key);
    expect(changed.status).toBe(409);
    expect(changed.body.error.code).toBe('idempotency_replay');

    const other = await freshForm();
    const elsewhere = await submit(other, { answers: goodAnswers() }).set('Idempotency-Key', key);
    expect(elsewhere.status).toBe(201);
    expect(elsewhere.headers['idempotent-replayed']).toBeUndefined();
  });

  it('links the response to an email link t (email, email_id, row, the row data at that moment) and answers only a receipt', async () => {
    const link = await mintLink(db, w.ws, { formId: w.form, email: 'c@example.com', rowId: w.row }, 'https://feedback.example.com');
    const res = await submit(w.form, { answers: goodAnswers(), t: link.token });
    expect(res.status).toBe(201);
    // Whoever holds the link reads nothing back: not the address, not the row (issue 25 item 7).
    expect(Object.keys(res.body.data)).toEqual(['id', 'created_at']);
    expect(res.text).not.toContain('c@example.com');
    expect(res.text).not.toContain(w.row);
    expect(res.text).not.toContain('pro');
    const stored = await db('responses').where({ workspace_id: w.ws, id: res.body.data.id }).first();
    expect(stored).toMatchObject({ respondent_email: 'c@example.com', email_id: link.emailId, row_id: w.row });
    expect(stored.table_data).toEqual({ id: `c-${w.row}`, plan: 'pro' });
  });

  it('takes one response per email link: the second is 409 link_already_used and stores nothing', async () => {
    const ww = await formWorkspace(db);
    const link = await mintLink(db, ww.ws, { formId: ww.form, email: 'once@example.com' }, 'https://feedback.example.com');
    expect((await submit(ww.form, { answers: goodAnswers(), t: link.token })).status).toBe(201);
    const again = await submit(ww.form, { answers: goodAnswers(), t: link.token });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({
      error: { code: 'link_already_used', status: 409, message: 'This email link has already been used to respond; a link takes one response.' },
      request_id: again.headers['x-request-id'],
    });
    expect(await storedFor(ww.form)).toBe(1);
    // Without the link the form still takes responses.
    expect((await submit(ww.form, { answers: goodAnswers() })).status).toBe(201);
  });

  it('takes max_responses responses through a link minted with more, then 409; an Idempotency-Key retry replays and uses none', async () => {
    const ww = await formWorkspace(db);
    const link = await mintLink(db, ww.ws, { formId: ww.form, email: 'team@example.com', maxResponses: 2 }, 'https://feedback.example.com');
    const key = `pub-${nanoid(8)}`;
    const first = await submit(ww.form, { answers: goodAnswers(), t: link.token }).set('Idempotency-Key', key);
    const replay = await submit(ww.form, { answers: goodAnswers(), t: link.token }).set('Idempotency-Key', key);
    expect([first.status, replay.status, replay.headers['idempotent-replayed']]).toEqual([201, 201, 'true']);
    expect((await submit(ww.form, { answers: goodAnswers(), t: link.token })).status).toBe(201);
    // The budget is 3 per address and form: the third use comes from another address.
    const third = await submit(ww.form, { answers: goodAnswers(), t: link.token }, proxied).set('X-Forwarded-For', '203.0.113.99');
    expect([third.status, third.body.error.code, third.body.error.message]).toEqual([
      409,
      'link_already_used',
      'This email link has already been used to respond 2 times, as many as it takes.',
    ]);
    expect(await storedFor(ww.form)).toBe(2);
  });

  it('stores one response for two concurrent submissions through a one-response link', async () => {
    const ww = await formWorkspace(db);
    const link = await mintLink(db, ww.ws, { formId: ww.form, email: 'race@example.com' }, 'https://feedback.example.com');
    const both = await Promise.all([submit(ww.form, { answers: goodAnswers(), t: link.token }), submit(ww.form, { answers: goodAnswers(), t: link.token })]);
    expect(both.map((r) => r.status).sort()).toEqual([201, 409]);
    expect(await storedFor(ww.form)).toBe(1);
  });

  it('prunes the uses of links expired more than a day ago and keeps the others', async () => {
    const ww = await formWorkspace(db);
    const old = await mintLink(
      db,
      ww.ws,
      { formId: ww.form, email: 'old@example.com', expiresInDays: 1 },
      'https://feedback.example.com',
      new Date(Date.now() - 3 * 86_400_000),
    );
    const live = await mintLink(db, ww.ws, { formId: ww.form, email: 'live@example.com' }, 'https://feedback.example.com');
    await withTransaction(db, async (trx) => {
      await claimLinkUse(trx, old, old.token);
      await claimLinkUse(trx, live, live.token);
    });
    expect(await pruneLinkUses(db, new Date(), { batchSize: 1, pauseMs: 1 })).toBeGreaterThanOrEqual(1);
    const left: Array<{ email_id: string; uses: number }> = await db('email_link_uses').where({ workspace_id: ww.ws }).select('email_id', 'uses');
    expect(left).toEqual([{ email_id: live.emailId, uses: 1 }]);
  });

  it('answers 400 naming t for a tampered or foreign token and 410 for an expired one, storing nothing', async () => {
    const form = await freshForm();
    const before = await storedFor(w.form);
    const link = await mintLink(db, w.ws, { formId: w.form, email: 'd@example.com' }, 'https://feedback.example.com');
    const tampered = await submit(w.form, { answers: goodAnswers(), t: `${link.token.slice(0, -2)}xx` });
    expect(tampered.status).toBe(400);
    expect(tampered.body.error.details).toEqual([{ location: 'body', field: 't', message: expect.any(String) }]);
    const foreign = await submit(form, { answers: goodAnswers(), t: link.token });
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.details[0].field).toBe('t');
    const old = await mintLink(
      db,
      w.ws,
      { formId: w.form, email: 'e@example.com', expiresInDays: 1 },
      'https://feedback.example.com',
      new Date(Date.now() - 3 * 86_400_000),
    );
    const expired = await submit(w.form, { answers: goodAnswers(), t: old.token });
    expect(expired.status).toBe(410);
    expect(expired.body.error.code).toBe('link_expired');
    expect(await storedFor(w.form)).toBe(before);
    expect(await storedFor(form)).toBe(0);
  });
});
