/**
 * Topics (docs/analytics.md, "Topics"; docs/api-rules.md, "Filtering by topic"): CRUD in both styles with its audit
 * records and scopes, bad input as 400/409 naming the field; tags written with a new response (server to server, the
 * import) and by the tagging job for the responses that existed (batch by batch, resumable), removed with the topic,
 * a new query or the response; the filter `topic` in both styles returns exactly what a plain scan of the text finds,
 * with an exact `filtered_total`; an unknown topic is a 400 naming the parameter.
 */
import supertest from 'supertest';
import { buildApp } from '../../../src/app';
import { importFixture } from '../../../src/core/import/importer';
import { seedDemoTopics } from '../../../src/core/seed/demo';
import { startTopicTagging, topicTaggingMetrics } from '../../../src/delivery/topic-tagging';
import { createLogger } from '../../../src/platform/logger';
import type { Metrics } from '../../../src/platform/metrics';
import type { TopicTaggingBatch } from '../../../src/core/topics/topics.store';
import { testConfig } from '../../support/app';
import { translatedResponseIds } from '../../support/translate';
import { tagPendingTopicBatch, topicSearchText } from '../../../src/core/topics/topics.store';
import { useTestApp } from '../../support/app';
import { formWorkspace, keyFor, uid, type FormWorkspace } from '../../support/given';

const t = useTestApp();

type Style = 'A' | 'B';
const call = (w: { ws: string; key: string }, method: 'get' | 'post' | 'patch' | 'delete', path: string, style: Style = 'A', body?: object) => {
  const req = t.http()[method](`/api/v1/workspaces/${w.ws}${path}`).set('X-API-Key', w.key).set('X-API-Style', style);
  return body === undefined ? req : req.send(body);
};
const answers = (text: string) => [
  { question_id: 'q_nps', value: 8 },
  { question_id: 'q_plan', value: { id: 'opt_pro' } },
  { question_id: 'q_text', value: text },
];
/** The plain scan: the texts that mention price, prices, expensive or cost(s) as words. */
const PRICING = /\b(price|prices|expensive|cost|costs)\b/i;
const TEXTS = [
  'The price is too high',
  'Support answered quickly',
  'Way too expensive for a small team',
  'The app is slow',
  'Costs went up again and support was slow',
  'Great product',
  'Prices are fair',
  'nothing to add',
];

/** Runs tagging batches (of 2 responses) until the topic's pass is done; answers the batches it took. */
async function tagUntilDone(ws: string, topicId: string): Promise<number> {
  for (let n = 1; n <= 200; n++) {
    await t.db.transaction((trx) => tagPendingTopicBatch(trx, 2));
    const row = (await t.db('topics').where({ workspace_id: ws, id: topicId }).first('tagging_pending')) as { tagging_pending: boolean };
    if (!row.tagging_pending) return n;
  }
  throw new Error('the tagging pass did not finish');
}
const tagsOf = async (ws: string, topicId: string) =>
  ((await t.db('response_topics').where({ workspace_id: ws, topic_id: topicId }).select('response_id')) as Array<{ response_id: string }>)
    .map((r) => r.response_id)
    .sort();

describe('topics CRUD in both styles', () => {
  let w: FormWorkspace;
  beforeAll(async () => {
    w = await formWorkspace(t.db);
  });

  it.each<[Style, string, string]>([
    ['A', 'created_at', 'updated_at'],
    ['B', 'createdAt', 'updatedAt'],
  ])('Style %s: create, list, get, patch and delete, each write audited', async (style, created, updated) => {
    const name = `Pricing ${style}`;
    const res = await call(w, 'post', '/topics', style, { name, query: 'price | expensive | cost' });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      id: expect.stringMatching(/^top_[0-9A-Za-z]{16}$/),
      name,
      query: 'price | expensive | cost',
      tagging: 'pending',
      [created]: expect.any(String),
      [updated]: expect.any(String),
    });
    const id = res.body.data.id as string;
    const list = await call(w, 'get', '/topics', style);
    expect(list.status).toBe(200);
    expect((list.body.data as Array<{ id: string }>).map((x) => x.id)).toContain(id);
    expect((await call(w, 'get', `/topics/${id}`, style)).body.data.name).toBe(name);
    const patched = await call(w, 'patch', `/topics/${id}`, style, { name: `${name} 2`, query: 'price or teuer' });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ id, name: `${name} 2`, query: 'price or teuer', tagging: 'pending' });
    expect((await call(w, 'delete', `/topics/${id}`, style)).status).toBe(204);
    const gone = await call(w, 'get', `/topics/${id}`, style);
    expect({ status: gone.status, code: gone.body.error.code }).toEqual({ status: 404, code: 'resource_not_found' });
    // In the order written (`append_no`): the seal may still be gathering, so `seq` may not be set yet.
    const audit = (await t.db('audit_events').where({ workspace_id: w.ws, target_id: id }).orderBy('append_no').select('action', 'changes')) as Array<{
      action: string;
      changes: unknown;
    }>;
    expect(audit).toEqual([
      { action: 'topic.created', changes: { name, query: 'price | expensive | cost' } },
      { action: 'topic.updated', changes: { name: `${name} 2`, query: 'price or teuer' } },
      { action: 'topic.deleted', changes: {} },
    ]);
  });

  it.each<[string, object, number, string]>([
    ['an empty name', { name: '  ', query: 'price' }, 400, 'name'],
    ['a name over 100 characters', { name: 'x'.repeat(101), query: 'price' }, 400, 'name'],
    ['a name like an id', { name: 'top_pricing', query: 'price' }, 400, 'name'],
    ['an empty query', { name: 'a', query: '' }, 400, 'query'],
    ['a query of only syntax', { name: 'b', query: '&|!():*' }, 400, 'query'],
    ['a query over 500 characters', { name: 'c', query: 'word '.repeat(101) }, 400, 'query'],
    ['a missing query', { name: 'd' }, 400, 'query'],
  ])('refuses %s (%j) with %d naming `%s`', async (_what, body, status, field) => {
    const res = await call(w, 'post', '/topics', 'A', body);
    expect({ status: res.status, code: res.body.error?.code, fields: (res.body.error?.details as Array<{ field: string }>).map((d) => d.field) }).toEqual({
      status,
      code: 'validation_error',
      fields: [field],
    });
  });

  it('refuses a name another topic has, in any case, with 409 naming `name` (create and patch)', async () => {
    const first = await call(w, 'post', '/topics', 'B', { name: 'Speed', query: 'slow or fast' });
    expect(first.status).toBe(201);
    const dup = await call(w, 'post', '/topics', 'A', { name: 'sPEED', query: 'slow' });
    expect({ status: dup.status, code: dup.body.error.code, field: dup.body.error.details[0].field }).toEqual({ status: 409, code: 'conflict', field: 'name' });
    const other = await call(w, 'post', '/topics', 'A', { name: 'Other', query: 'slow' });
    const rename = await call(w, 'patch', `/topics/${other.body.data.id}`, 'A', { name: 'speed' });
    expect({ status: rename.status, field: rename.body.error.details[0].field }).toEqual({ status: 409, field: 'name' });
    const empty = await call(w, 'patch', `/topics/${other.body.data.id}`, 'B', {});
    expect(empty.status).toBe(400);
  });

  it('answers 404 for a topic of another workspace', async () => {
    const other = await formWorkspace(t.db);
    const mine = await call(w, 'post', '/topics', 'A', { name: uid('t'), query: 'price' });
    for (const method of ['get', 'patch', 'delete'] as const) {
      const res = await call(other, method, `/topics/${mine.body.data.id}`, 'A', method === 'patch' ? { name: 'x' } : undefined);
      expect(res.status).toBe(404);
    }
  });

  it('reads with forms:read, writes with forms:write; refuses a key without them (403 insufficient_scope)', async () => {
    const reader = { ws: w.ws, key: await keyFor(t.db, [w.ws], { scopes: ['forms:read'] }) };
    expect((await call(reader, 'get', '/topics', 'B')).status).toBe(200);
    const write = await call(reader, 'post', '/topics', 'B', { name: uid('t'), query: 'price' });
    expect({ status: write.status, code: write.body.error.code }).toEqual({ status: 403, code: 'insufficient_scope' });
    const none = { ws: w.ws, key: await keyFor(t.db, [w.ws], { scopes: ['responses:read'] }) };
    expect((await call(none, 'get', '/topics', 'A')).status).toBe(403);
  });
});

describe('tagging and the filter `topic`', () => {
  let w: FormWorkspace;
  let topicId: string;
  const expected = new Set<string>();
  const all: string[] = [];

  beforeAll(async () => {
    w = await formWorkspace(t.db);
    // Responses before the topic exists: the job tags them.
    const before = TEXTS.slice(0, 5).map((text, i) => ({
      id: uid('rsp'),
      form_id: w.form,
      score: 0,
      answers: answers(text),
      created_at: `2026-01-0${i + 1}T10:00:00Z`,
    }));
    await importFixture(t.db, { responses: before });
    before.forEach((r, i) => {
      all.push(r.id);
      if (PRICING.test(TEXTS[i]!)) expected.add(r.id);
    });
    const res = await call(w, 'post', '/topics', 'A', { name: 'pricing', query: 'price | expensive | cost' });
    topicId = res.body.data.id as string;
  });

  it('the job tags the existing responses batch by batch, keeping its key on the topic, and reports done', async () => {
    expect(await tagsOf(w.ws, topicId)).toEqual([]);
    const batches = await tagUntilDone(w.ws, topicId);
    expect(batches).toBeGreaterThanOrEqual(3);
    expect(await tagsOf(w.ws, topicId)).toEqual([...expected].sort());
    expect((await call(w, 'get', `/topics/${topicId}`, 'B')).body.data.tagging).toBe('done');
  });

  it('tags a new response in its write (server to server in both styles, and the import)', async () => {
    for (const [i, text] of TEXTS.slice(5).entries()) {
      const style: Style = i % 2 === 0 ? 'A' : 'B';
      const body =
        style === 'A'
          ? { form_id: w.form, answers: answers(text) }
          : { form_id: w.form, answers: answers(text).map(({ question_id, value }) => ({ id: question_id, value })) };
      const res = await call(w, 'post', '/responses', style, body);
      expect({ status: res.status, error: res.body.error }).toEqual({ status: 201, error: undefined });
      all.push(res.body.data.id as string);
      if (PRICING.test(text)) expected.add(res.body.data.id as string);
    }
    const imported = uid('rsp');
    await importFixture(t.db, { responses: [{ id: imported, form_id: w.form, score: 0, answers: answers('Cheaper price please') }] });
    all.push(imported);
    expected.add(imported);
    expect(await tagsOf(w.ws, topicId)).toEqual([...expected].sort());
  });

  it('filters in both styles by name or id exactly as the plain scan, with an exact filtered_total', async () => {
    const want = [...expected].sort();
    for (const value of ['pricing', 'PRICING', topicId]) {
      const a = await call(w, 'get', `/responses?limit=100&topic=${encodeURIComponent(value)}`, 'A');
      expect(a.status).toBe(200);
      expect((a.body.data as Array<{ id: string }>).map((r) => r.id).sort()).toEqual(want);
      const b = await call(w, 'get', `/responses?limit=100&filter=${encodeURIComponent(`topic = ${value}`)}`, 'B');
      expect(b.status).toBe(200);
      expect((b.body.data as Array<{ id: string }>).map((r) => r.id).sort()).toEqual(want);
      expect(b.body.meta.filtered_total).toBe(want.length);
    }
    const rest = all.filter((id) => !expected.has(id)).sort();
    const ne = await call(w, 'get', `/responses?limit=100&filter=${encodeURIComponent('topic != pricing')}`, 'B');
    expect((ne.body.data as Array<{ id: string }>).map((r) => r.id).sort()).toEqual(rest);
    expect(ne.body.meta.filtered_total).toBe(rest.length);
    const none = await call(w, 'get', '/responses?limit=100&topic_present=false', 'A');
    expect((none.body.data as Array<{ id: string }>).map((r) => r.id).sort()).toEqual(rest);
    const inList = await call(w, 'get', `/responses?limit=100&filter=${encodeURIComponent('topic in [pricing]')}&page=1`, 'B');
    expect(inList.body.meta.filtered_total).toBe(want.length);
  });

  it('translates each Style B topic condition to a Style A request that returns the same rows', async () => {
    for (const filter of ['topic = pricing', `topic != ${topicId}`, 'topic in [pricing]', 'topic = null']) {
      const a = await translatedResponseIds(t.http, w, filter);
      const b = await call(w, 'get', `/responses?limit=100&filter=${encodeURIComponent(filter)}`, 'B');
      expect({ filter, ids: a.sort() }).toEqual({
        filter,
        ids: (b.body.data as Array<{ id: string }>).map((r) => r.id).sort(),
      });
    }
  });

  it('counts the form responses per topic over time (analytics/topics), by day and by month', async () => {
    const res = await call(w, 'get', `/forms/${w.form}/analytics/topics?interval=month`, 'A');
    expect(res.status).toBe(200);
    const mine = (res.body.data as Array<{ topic_id: string; responses: number; periods: Array<{ responses: number }> }>).find((x) => x.topic_id === topicId)!;
    expect(mine.responses).toBe(expected.size);
    expect(mine.periods.reduce((n, p) => n + p.responses, 0)).toBe(expected.size);
    // The imported January responses by day, in a range of either style's parameters.
    const jan = await call(w, 'get', `/forms/${w.form}/analytics/topics?start_date=2026-01-01&end_date=2026-01-31`, 'A');
    const janMine = (jan.body.data as Array<{ topic_id: string; periods: Array<{ period_start: string; responses: number }> }>).find(
      (x) => x.topic_id === topicId,
    )!;
    expect(janMine.periods).toEqual([
      { period_start: '2026-01-01', responses: 1 },
      { period_start: '2026-01-03', responses: 1 },
      { period_start: '2026-01-05', responses: 1 },
    ]);
    const unknown = await call(w, 'get', `/forms/frm_nope/analytics/topics`, 'A');
    expect(unknown.status).toBe(404);
  });

  it('answers 400 naming the parameter for an unknown topic or an operator the field does not take', async () => {
    const a = await call(w, 'get', '/responses?topic=nope', 'A');
    expect({ status: a.status, field: a.body.error.details[0].field }).toEqual({ status: 400, field: 'topic' });
    const b = await call(w, 'get', `/responses?filter=${encodeURIComponent('topic = nope')}`, 'B');
    expect({ status: b.status, field: b.body.error.details[0].field }).toEqual({ status: 400, field: 'filter' });
    const contains = await call(w, 'get', `/responses?filter=${encodeURIComponent('topic ~ pri')}`, 'B');
    expect({ status: contains.status, field: contains.body.error.details[0].field }).toEqual({ status: 400, field: 'filter' });
  });

  it('a new query drops the tags and tags again; a deleted response and a deleted topic take their tags along', async () => {
    const patched = await call(w, 'patch', `/topics/${topicId}`, 'A', { query: 'slow' });
    expect(patched.body.data.tagging).toBe('pending');
    expect(await tagsOf(w.ws, topicId)).toEqual([]);
    await tagUntilDone(w.ws, topicId);
    const slow = (await tagsOf(w.ws, topicId)).length;
    expect(slow).toBe(2);
    const [victim] = await tagsOf(w.ws, topicId);
    expect((await call(w, 'delete', `/responses/${victim}`, 'A')).status).toBe(204);
    expect((await tagsOf(w.ws, topicId)).length).toBe(1);
    expect((await call(w, 'delete', `/topics/${topicId}`, 'B')).status).toBe(204);
    expect(await tagsOf(w.ws, topicId)).toEqual([]);
  });
});

describe('an erasure removes the tags of the responses it deletes', () => {
  it('tags a response that mentions the address, then the erasure deletes it and its tags', async () => {
    const w = await formWorkspace(t.db);
    const created = await call(w, 'post', '/topics', 'B', { name: 'pricing', query: 'price' });
    const res = await call(w, 'post', '/responses', 'A', { form_id: w.form, answers: answers('price question from gone@example.com') });
    expect(res.status).toBe(201);
    expect(await tagsOf(w.ws, created.body.data.id as string)).toEqual([res.body.data.id]);
    const erasure = await t.http().post(`/api/v1/workspaces/${w.ws}/erasure-requests`).set('X-API-Key', w.key).send({ email: 'gone@example.com' });
    expect(erasure.status).toBe(201);
    expect(await tagsOf(w.ws, created.body.data.id as string)).toEqual([]);
  });
});

describe('the tagging job in the worker and the demo topics', () => {
  it('runs batch after batch until the pass is done, and /metrics shows topic_tagging_pending and topic_tagging_tagged', async () => {
    const w = await formWorkspace(t.db);
    await importFixture(t.db, { responses: [1, 2, 3].map((i) => ({ id: uid('rsp'), form_id: w.form, score: 0, answers: answers(`slow day ${i}`) })) });
    const created = await call(w, 'post', '/topics', 'A', { name: 'speed', query: 'slow' });
    const id = created.body.data.id as string;
    const batches: TopicTaggingBatch[] = [];
    const done = new Promise<void>((resolve) => {
      const loop = startTopicTagging({
        db: t.db,
        logger: createLogger('silent'),
        batchSize: 1,
        pauseMs: 1,
        idleMs: 10,
        startDelayMs: 0,
        onBatch: (b) => {
          batches.push(b);
          if (b.topicId === id && b.finished) void loop.stop().then(resolve);
        },
      });
    });
    await done;
    expect(batches.filter((b) => b.topicId === id).map((b) => b.looked)).toEqual([1, 1, 1, 0]);
    expect((await tagsOf(w.ws, id)).length).toBe(3);
    const app = buildApp(testConfig(), { db: t.db, logger: createLogger('silent') });
    (app.locals as { metrics: Metrics }).metrics.setTopicTaggingSource(() => topicTaggingMetrics(t.db));
    const text = (await supertest(app).get('/metrics').expect(200)).text;
    expect(text).toMatch(/^# TYPE topic_tagging_pending gauge$/m);
    expect(Number(/^topic_tagging_tagged (\S+)$/m.exec(text)?.[1])).toBeGreaterThanOrEqual(3);
  });

  it('seedDemoTopics creates pricing, support and speed, whose queries find English and German answers', async () => {
    const w = await formWorkspace(t.db);
    const texts: Array<[string, string, string | null]> = [
      ['en', 'Way too expensive', 'pricing'],
      ['de', 'Der Preis ist zu hoch', 'pricing'],
      ['de', 'Die App ist sehr langsam', 'speed'],
      ['en', 'The support team helped a lot', 'support'],
      ['de', 'Alles gut', null],
    ];
    const rows = texts.map(([language, text]) => ({ id: uid('rsp'), form_id: w.form, score: 0, language, answers: answers(text) }));
    await importFixture(t.db, { responses: rows });
    await t.db.transaction((trx) => seedDemoTopics(trx, [w.ws]));
    const list = await call(w, 'get', '/topics', 'B');
    expect((list.body.data as Array<{ name: string }>).map((x) => x.name)).toEqual(['pricing', 'speed', 'support']);
    for (const name of ['pricing', 'speed', 'support']) {
      const res = await call(w, 'get', `/responses?limit=100&topic=${name}`, 'A');
      const want = rows
        .filter((_, i) => texts[i]![2] === name)
        .map((r) => r.id)
        .sort();
      expect({ name, ids: (res.body.data as Array<{ id: string }>).map((r) => r.id).sort() }).toEqual({ name, ids: want });
    }
  });
});

describe('topicSearchText', () => {
  it('reads | as or outside quotes, dropping empty alternatives', () => {
    expect(topicSearchText('price | expensive|cost')).toBe('price or expensive or cost');
    expect(topicSearchText('"a|b" | c')).toBe('"a|b" or c');
    expect(topicSearchText('price | | &|')).toBe('price');
    expect(topicSearchText('&|!():*')).toBe('');
  });
});
