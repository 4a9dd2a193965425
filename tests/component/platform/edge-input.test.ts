/**
 * Issue 17 items 4 and 5, on both databases: a JSON body nested deeper than 32 levels is a 400 naming
 * the member, after the auth checks, nothing written (docs/writes-keys-limits.md, "Limits, bad bytes and secrets");
 * dates at the edge of the calendar either work or are a 400 naming the parameter or field, in both
 * styles (docs/decisions.md, "Dates at the edge of the calendar").
 */
import supertest from 'supertest';
import { useTestApp } from '../../support/app';
import { ImportError } from '../../../src/core/import/problems';
import { importFixture } from '../../../src/core/import/importer';
import { keyFor, scenario, uid, type Scenario } from '../../support/given';
import { workspaceState } from '../../support/state';

const t = useTestApp();
let s: Scenario;
beforeAll(async () => {
  s = await scenario(t.db, { responseCount: 6 });
});

const base = () => `/api/v1/workspaces/${s.ws}`;
const DEEP = 10_000;
const deepArrays = `${'['.repeat(DEEP)}${']'.repeat(DEEP)}`;
const deepObjects = `${'{"a":'.repeat(DEEP)}1${'}'.repeat(DEEP)}`;
/** The member named for `deepObjects` under `data.plan`: level 33 is reached through 30 `a` keys. */
const deepObjectsField = `data.plan${'.a'.repeat(30)}`;

const send = (method: 'post' | 'patch', path: string, body: string, key: string | undefined = s.key) => {
  const r = t.http()[method](path).set('Content-Type', 'application/json');
  return (key ? r.set('X-API-Key', key) : r).send(body);
};

describe('a body nested deeper than 32 levels: 400 validation_error naming the member, nothing written', () => {
  const cases: Array<[string, 'post' | 'patch', () => string, () => string, string]> = [
    [
      'public submission',
      'post',
      () => `/api/v1/forms/${s.nps}/submissions`,
      () => `{"answers":[{"question_id":"q_score","value":${deepArrays}}]}`,
      'answers[0].value',
    ],
    [
      'Style B entries POST (objects)',
      'post',
      () => `${base()}/tables/${s.table}/entries`,
      () => `{"data":{"id":"deep-1","plan":${deepObjects}}}`,
      deepObjectsField,
    ],
    ['Style B entry PATCH', 'patch', () => `${base()}/tables/${s.table}/entries/${s.rows[1]}`, () => `{"data":{"plan":${deepArrays}}}`, 'data.plan'],
    ['Style A rows POST (the body itself)', 'post', () => `${base()}/datatables/${s.table}/rows`, () => deepArrays, 'body'],
    ['API key', 'post', () => `${base()}/api-keys`, () => `{"name":"deep","scopes":${deepArrays}}`, 'scopes'],
    [
      'email events',
      'post',
      () => `${base()}/email-events`,
      () => `{"data":[{"email_id":"em_1","email":"a@example.com","type":"open","form_id":${deepObjects}}]}`,
      `data[0].form_id${'.a'.repeat(29)}`,
    ],
  ];
  it.each(cases)('%s', async (_name, method, path, body, field) => {
    const before = await workspaceState(t.db, s.ws);
    const res = await send(method, path(), body());
    expect([res.status, res.body.error?.code]).toEqual([400, 'validation_error']);
    const where = field === 'body' ? 'The request body' : `\`${field}\``;
    expect(res.body.error.details).toEqual([{ location: 'body', field, message: `${where} nests arrays and objects deeper than 32 levels; send at most 32.` }]);
    expect(res.body.request_id).toBe(res.headers['x-request-id']);
    expect(await workspaceState(t.db, s.ws)).toEqual(before);
  });

  it('writes nothing: a following read finds the entry and the keys unchanged', async () => {
    const entry = () => t.http().get(`${base()}/tables/${s.table}/entries/${s.rows[2]}`).set('X-API-Key', s.key);
    const keys = () => t.http().get(`${base()}/api-keys`).set('X-API-Key', s.key);
    const [entryBefore, keysBefore] = [await entry(), await keys()];
    expect(entryBefore.status).toBe(200);
    expect((await send('patch', `${base()}/tables/${s.table}/entries/${s.rows[2]}`, `{"data":{"plan":"changed","seats":${deepArrays}}}`)).status).toBe(400);
    expect((await send('post', `${base()}/api-keys`, `{"name":${deepObjects}}`)).status).toBe(400);
    expect((await entry()).body.data).toEqual(entryBefore.body.data);
    expect((await keys()).body.data).toEqual(keysBefore.body.data);
  });

  it('checks after the auth checks (401 and 403 first)', async () => {
    const path = `${base()}/tables/${s.table}/entries`;
    const body = `{"data":{"id":"deep-2","plan":${deepArrays}}}`;
    const anon = await send('post', path, body, '');
    expect([anon.status, anon.body.error.code]).toEqual([401, 'invalid_api_key']);
    const readOnly = await keyFor(t.db, [s.ws], { scopes: ['datatables:read'] });
    const denied = await send('post', path, body, readOnly);
    expect([denied.status, denied.body.error.code]).toEqual([403, 'insufficient_scope']);
  });

  it('a JSON.parse that runs out of stack (some runtimes, on deep input) is the same 400 naming the body', async () => {
    const parse = JSON.parse;
    const spy = jest.spyOn(JSON, 'parse').mockImplementation((text: string, reviver?: Parameters<typeof JSON.parse>[1]) => {
      if (typeof text === 'string' && text.startsWith('{"overflow"')) throw new RangeError('Maximum call stack size exceeded');
      return parse(text, reviver);
    });
    try {
      const res = await send('post', `${base()}/tables/${s.table}/entries`, '{"overflow":[[[]]]}');
      expect([res.status, res.body.error.details]).toEqual([
        400,
        [{ location: 'body', field: 'body', message: 'The request body nests arrays and objects deeper than 32 levels; send at most 32.' }],
      ]);
    } finally {
      spy.mockRestore();
    }
  });

  it('hosted form pages cannot nest: bracketed names of a form post stay flat names', async () => {
    const before = await workspaceState(t.db, s.ws);
    const res = await supertest(t.app)
      .post(`/f/${s.nps}`)
      .type('form')
      .send(`${'q_score'}${'[a]'.repeat(DEEP)}=9`);
    // Not an answer to q_score (a flat, unknown name): the page shows the required question again.
    expect([res.status, res.headers['content-type']]).toEqual([400, 'text/html; charset=utf-8']);
    expect(await workspaceState(t.db, s.ws)).toEqual(before);
  });
});

describe('dates at the edge of the calendar: a correct answer or a 400 naming the parameter', () => {
  const LAST = encodeURIComponent('9999-12-31T23:59:59.999999999Z');
  const get = (path: string, style?: 'A' | 'B') => {
    const r = t.http().get(path).set('X-API-Key', s.key);
    return style ? r.set('X-API-Style', style) : r;
  };

  it('analytics: a lower bound at the last instant is in range and selects nothing (200)', async () => {
    const series = await get(`${base()}/forms/${s.nps}/analytics/timeseries?created_after=${LAST}`);
    expect([series.status, series.body.data]).toEqual([200, []]);
    const questions = await get(`${base()}/forms/${s.nps}/analytics/questions?start_date=${LAST}`);
    expect(questions.status).toBe(200);
    expect(questions.body.data.map((q: { answered: number }) => q.answered)).toEqual([0, 0]);
  });

  it('analytics: an upper bound at the last instant or day keeps everything (200)', async () => {
    const all = await get(`${base()}/forms/${s.nps}/analytics/questions`);
    for (const query of [`created_before=${LAST}`, 'end_date=9999-12-31', `end_date=${LAST}`]) {
      const res = await get(`${base()}/forms/${s.nps}/analytics/questions?${query}`);
      expect({ query, status: res.status, data: res.body.data }).toEqual({ query, status: 200, data: all.body.data });
    }
    const series = await get(`${base()}/forms/${s.nps}/analytics/timeseries?end_date=9999-12-31&interval=month`);
    expect(series.status).toBe(200);
    expect(series.body.data.reduce((n: number, p: { responses: number }) => n + p.responses, 0)).toBe(s.responses.filter((r) => r.form_id === s.nps).length);
  });

  it('lists of both styles: the same bounds work', async () => {
    const count = s.responses.length;
    const a = await get(`${base()}/responses?created_before=${LAST}&limit=100`, 'A');
    expect([a.status, a.body.data.length]).toEqual([200, count]);
    const aNone = await get(`${base()}/responses?created_after=${LAST}`, 'A');
    expect([aNone.status, aNone.body.data]).toEqual([200, []]);
    const b = await get(`${base()}/responses?end_date=9999-12-31&limit=100`, 'B');
    expect([b.status, b.body.data.length]).toEqual([200, count]);
    const bNone = await get(`${base()}/responses?start_date=${LAST}`, 'B');
    expect([bNone.status, bNone.body.data]).toEqual([200, []]);
  });

  const outside: Array<[string, string]> = [
    ['year 0000', '0000-01-01T00:00:00Z'],
    ['year 0000 (a date)', '0000-01-01'],
    ['a negative year', '-000001-01-01'],
    ['a six-digit year', '+275760-09-13T00:00:00Z'],
    ['a five-digit year', '10000-01-01'],
    ['an offset before the first instant', '0001-01-01T00:00:00+14:00'],
    ['an offset past the last instant', '9999-12-31T23:00:00-12:00'],
    ['February 30', '2026-02-30'],
    ['a leap second', '2016-12-31T23:59:60Z'],
    ['ten fractional digits', '2026-01-01T00:00:00.1234567890Z'],
    ['offset +24:00', '2026-01-01T00:00:00+24:00'],
  ];
  it.each(outside)('analytics and lists refuse %s with a 400 naming the parameter', async (_name, value) => {
    const v = encodeURIComponent(value);
    const cases: Array<[string, string, 'A' | 'B' | undefined]> = [
      [`${base()}/forms/${s.nps}/analytics/timeseries?created_after=${v}`, 'created_after', undefined],
      [`${base()}/forms/${s.nps}/analytics/questions?start_date=${v}`, 'start_date', undefined],
      [`${base()}/responses?created_before=${v}`, 'created_before', 'A'],
      [`${base()}/responses?end_date=${v}`, 'end_date', 'B'],
    ];
    for (const [path, field, style] of cases) {
      const res = await get(path, style);
      expect({ path, status: res.status, code: res.body.error?.code, fields: res.body.error?.details?.map((d: { field: string }) => d.field) }).toEqual({
        path,
        status: 400,
        code: 'validation_error',
        fields: [field],
      });
    }
  });

  it('1969-12-31T23:59:59Z (before the epoch) is an ordinary instant', async () => {
    const res = await get(`${base()}/forms/${s.nps}/analytics/timeseries?created_before=${encodeURIComponent('1969-12-31T23:59:59Z')}`);
    expect([res.status, res.body.data]).toEqual([200, []]);
  });

  it('body dates: backfilled created_at/createdAt, expires_at and email-event created_at name the field', async () => {
    const before = await workspaceState(t.db, s.ws);
    const answers = [{ question_id: 'q_score', value: 9 }];
    const cases: Array<[string, () => supertest.Test, string]> = [
      [
        'A created_at',
        () =>
          t
            .http()
            .post(`${base()}/responses`)
            .set('X-API-Key', s.key)
            .set('X-API-Style', 'A')
            .send({ form_id: s.nps, answers, created_at: '0000-01-01T00:00:00Z' }),
        'created_at',
      ],
      [
        'B createdAt',
        () =>
          t
            .http()
            .post(`${base()}/responses`)
            .set('X-API-Key', s.key)
            .set('X-API-Style', 'B')
            .send({ form_id: s.nps, answers: [{ id: 'q_score', value: 9 }], createdAt: '0001-01-01T00:00:00+01:00' }),
        'createdAt',
      ],
      [
        'expires_at',
        () => t.http().post(`${base()}/api-keys`).set('X-API-Key', s.key).send({ name: 'edge', expires_at: '9999-12-31T23:00:00-12:00' }),
        'expires_at',
      ],
      [
        'email event',
        () =>
          t
            .http()
            .post(`${base()}/email-events`)
            .set('X-API-Key', s.key)
            .send({ data: { email_id: 'em_1', email: 'a@example.com', type: 'open', created_at: '2016-12-31T23:59:60Z' } }),
        'data.created_at',
      ],
    ];
    for (const [name, request, field] of cases) {
      const res = await request();
      expect({ name, status: res.status, code: res.body.error?.code, fields: res.body.error?.details?.map((d: { field: string }) => d.field) }).toEqual({
        name,
        status: 400,
        code: 'validation_error',
        fields: [field],
      });
    }
    expect(await workspaceState(t.db, s.ws)).toEqual(before);
  });

  it('fixture date-times go through the same parser: a problem at their path, nothing imported', async () => {
    const before = await workspaceState(t.db, s.ws);
    const form = (id: string, created_at: string) => ({ id, workspace_id: s.ws, name: 'Edge', created_at, questions: [{ id: 'q', type: 'nps', title: 'Q?' }] });
    const doc = {
      forms: [form(uid('frm'), '0000-01-01T00:00:00Z'), form(uid('frm'), '2016-12-31T23:59:60Z'), form(uid('frm'), '9999-12-31T23:59:59.999999999Z')],
    };
    const problems = await importFixture(t.db, doc).then(
      () => [],
      (e: unknown) => (e instanceof ImportError ? e.problems.map((p) => p.path) : [String(e)]),
    );
    expect(problems).toEqual(['forms[0].created_at', 'forms[1].created_at']);
    expect(await workspaceState(t.db, s.ws)).toEqual(before);
  });

  it('expires_at at the last instant is stored to the millisecond', async () => {
    const res = await t.http().post(`${base()}/api-keys`).set('X-API-Key', s.key).send({ name: 'far', expires_at: '9999-12-31T23:59:59.999999999Z' });
    expect(res.status).toBe(201);
    expect(res.body.data.expires_at).toBe('9999-12-31T23:59:59.999Z');
  });
});
