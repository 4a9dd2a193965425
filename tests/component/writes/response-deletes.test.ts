/**
 * Deleting responses (docs/api-rules.md, "Deleting responses"; docs/data-rights.md): one by id in both styles, bulk
 * deletes by the list's filters with a dry run, the job of a large one, the `response.deleted` event, and the
 * retention. After each, every derived number (the counter tables, the summary, the lists' totals) equals a fresh
 * count over `responses`.
 */
import type { Db } from '../../../src/db';
import { withTransaction } from '../../../src/db';
import { importFixture } from '../../../src/core/import/importer';
import { translateStyleB } from '../../../src/core/migration/translate';
import { runDeletionBatch } from '../../../src/core/responses/deletions';
import { setResponseRetention } from '../../../src/core/workspaces/workspaces.store';
import { runDeletionJob, pruneExpiredResponses } from '../../../src/delivery/deletions';
import { renderData } from '../../../src/adapters/presenters';
import { useTestApp } from '../../support/app';
import { keyFor, scenario, type Scenario } from '../../support/given';

const t = useTestApp({ responseDeleteInlineMax: 8 });

const base = (s: Scenario) => `/api/v1/workspaces/${s.ws}`;

/** Rows of a query as plain JSON-comparable values, sorted. */
async function rowsOf(db: Db, sql: string, ws: string): Promise<string[]> {
  const res = (await db.raw(sql, [ws])) as { rows: Array<Record<string, unknown>> };
  return res.rows.map((r) => JSON.stringify(Object.values(r).map((v) => (v === null ? null : String(v))))).sort();
}

/** Every counter table of the workspace equals a fresh aggregate over `responses` (zero rows left out). */
async function expectCountersFresh(db: Db, ws: string): Promise<void> {
  const pairs: Array<[string, string]> = [
    [
      'SELECT form_id, score::text, responses::text FROM response_counts WHERE workspace_id = ? AND responses <> 0',
      'SELECT form_id, score::text, count(*)::text FROM responses WHERE workspace_id = ? GROUP BY 1, 2',
    ],
    [
      "SELECT form_id, to_char(day, 'YYYY-MM-DD'), score::text, responses::text FROM response_day_counts WHERE workspace_id = ? AND responses <> 0",
      "SELECT form_id, to_char((created_at AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD'), score::text, count(*)::text FROM responses WHERE workspace_id = ? GROUP BY 1, 2, 3",
    ],
    [
      "SELECT form_id, to_char(day, 'YYYY-MM-DD'), responses::text, score_sum::float8::text FROM response_daily WHERE workspace_id = ? AND responses <> 0",
      "SELECT form_id, to_char((created_at AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD'), count(*)::text, sum(score::numeric)::float8::text FROM responses WHERE workspace_id = ? GROUP BY 1, 2",
    ],
    [
      "SELECT form_id, to_char(day, 'YYYY-MM-DD'), question_id, value_key, answers::text FROM answer_rollups WHERE workspace_id = ? AND answers <> 0",
      `SELECT r.form_id, to_char((r.created_at AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD'), k.question_id, k.value_key, count(*)::text
         FROM responses r CROSS JOIN LATERAL response_answer_keys(r.answers) k WHERE r.workspace_id = ? GROUP BY 1, 2, 3, 4`,
    ],
    [
      'SELECT type, events::text FROM email_event_counts WHERE workspace_id = ? AND events <> 0',
      'SELECT type, count(*)::text FROM email_events WHERE workspace_id = ? GROUP BY 1',
    ],
  ];
  for (const [kept, fresh] of pairs) expect(await rowsOf(db, kept, ws)).toEqual(await rowsOf(db, fresh, ws));
}

async function countResponses(db: Db, ws: string, where: Record<string, unknown> = {}): Promise<number> {
  const row = (await db('responses')
    .where({ workspace_id: ws, ...where })
    .count({ n: '*' })
    .first()) as { n: unknown };
  return Number(row.n);
}

/** The summary and the Style B list's totals equal a fresh count. */
async function expectTotalsFresh(s: Scenario): Promise<void> {
  const total = await countResponses(t.db, s.ws);
  const nps = await countResponses(t.db, s.ws, { form_id: s.nps });
  const list = await t
    .http()
    .get(`${base(s)}/responses?page=1&limit=5&form_id=${s.nps}`)
    .set('X-API-Key', s.key)
    .set('X-API-Style', 'B');
  expect(list.status).toBe(200);
  expect(list.body.meta).toMatchObject({ total, filtered_total: nps });
  const summary = await t
    .http()
    .get(`${base(s)}/forms/${s.nps}/analytics/summary`)
    .set('X-API-Key', s.key);
  expect(summary.body.data.total_responses).toBe(nps);
  await expectCountersFresh(t.db, s.ws);
}

describe('DELETE {ws}/responses/{response_id}', () => {
  it.each(['A', 'B'])('deletes one response in Style %s: 204, then 404, totals and counters equal a fresh count', async (style) => {
    const s = await scenario(t.db, { responseCount: 12 });
    const victim = s.responses.find((r) => r.form_id === s.nps)!;
    const del = await t
      .http()
      .delete(`${base(s)}/responses/${victim.id}`)
      .set('X-API-Key', s.key)
      .set('X-API-Style', style);
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    const again = await t
      .http()
      .delete(`${base(s)}/responses/${victim.id}`)
      .set('X-API-Key', s.key)
      .set('X-API-Style', style);
    expect(again.status).toBe(404);
    expect(again.body.error.code).toBe('resource_not_found');
    expect(
      (
        await t
          .http()
          .get(`${base(s)}/responses/${victim.id}`)
          .set('X-API-Key', s.key)
      ).status,
    ).toBe(404);
    expect(await countResponses(t.db, s.ws)).toBe(11);
    await expectTotalsFresh(s);
  });

  it("answers 404 for another workspace's response and leaves it", async () => {
    const mine = await scenario(t.db, { responseCount: 2 });
    const theirs = await scenario(t.db, { responseCount: 2 });
    const res = await t
      .http()
      .delete(`${base(mine)}/responses/${theirs.responses[0]!.id}`)
      .set('X-API-Key', mine.key);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('resource_not_found');
    expect(await countResponses(t.db, theirs.ws)).toBe(2);
  });

  it('answers 403 insufficient_scope to a key without responses:write', async () => {
    const s = await scenario(t.db, { responseCount: 2 });
    const reader = await keyFor(t.db, [s.ws], { scopes: ['responses:read'] });
    const one = await t
      .http()
      .delete(`${base(s)}/responses/${s.responses[0]!.id}`)
      .set('X-API-Key', reader);
    expect(one.status).toBe(403);
    expect(one.body.error.code).toBe('insufficient_scope');
    const bulk = await t
      .http()
      .post(`${base(s)}/response-deletions`)
      .set('X-API-Key', reader)
      .send({ form_id: s.nps });
    expect(bulk.status).toBe(403);
    expect(bulk.body.error.code).toBe('insufficient_scope');
    expect(await countResponses(t.db, s.ws)).toBe(2);
  });

  it('records a response.deleted event, rendered in each endpoint style', async () => {
    const s = await scenario(t.db, { responseCount: 3 });
    await importFixture(t.db, { webhook_endpoints: [{ workspace_id: s.ws, url: 'https://hooks.example.com/del', events: ['response.deleted'] }] });
    const victim = s.responses[0]!;
    expect(
      (
        await t
          .http()
          .delete(`${base(s)}/responses/${victim.id}`)
          .set('X-API-Key', s.key)
      ).status,
    ).toBe(204);
    const events = (await t.db('webhook_events').where({ workspace_id: s.ws, type: 'response.deleted' })) as Array<{ id: string; resource: unknown }>;
    expect(events).toHaveLength(1);
    const resource = (typeof events[0]!.resource === 'string' ? JSON.parse(events[0]!.resource) : events[0]!.resource) as never;
    expect(resource).toEqual({ kind: 'response_deleted', responseId: victim.id, formId: victim.form_id });
    expect(renderData(resource, 'A')).toEqual({ id: victim.id, form_id: victim.form_id });
    expect(renderData(resource, 'B')).toEqual({ id: victim.id, formId: victim.form_id });
    const deliveries = await t.db('webhook_deliveries').where({ workspace_id: s.ws, event_id: events[0]!.id });
    expect(deliveries).toHaveLength(1);
  });
});

describe('POST {ws}/response-deletions', () => {
  it('Style A: a dry run counts what the real run deletes, by form, score, answer and dates', async () => {
    const s = await scenario(t.db, { responseCount: 30 });
    const body = { form_id: s.nps, score_lte: 8, answer: ['q_plan:opt_pro'], created_after: '2026-01-10T14:00:00Z', created_before: '2026-01-11' };
    const expected = s.responses.filter(
      (r) =>
        r.form_id === s.nps &&
        r.score <= 8 &&
        (r.answers as Array<{ question_id: string; value: unknown }>).some((a) => a.question_id === 'q_plan' && (a.value as { id: string }).id === 'opt_pro') &&
        r.created_at >= '2026-01-10T14:00:00.000Z' &&
        r.created_at < '2026-01-11T00:00:00.000Z',
    );
    expect(expected.length).toBeGreaterThan(0);
    const dry = await t
      .http()
      .post(`${base(s)}/response-deletions`)
      .set('X-API-Key', s.key)
      .send({ ...body, dry_run: true });
    expect(dry.status).toBe(200);
    expect(dry.body.data).toMatchObject({ id: null, status: 'dry_run', dry_run: true, matched: expected.length, deleted: 0 });
    expect(await countResponses(t.db, s.ws)).toBe(30);

    const run = await t
      .http()
      .post(`${base(s)}/response-deletions`)
      .set('X-API-Key', s.key)
      .send(body);
    expect(run.status).toBe(200);
    expect(run.body.data).toMatchObject({ status: 'succeeded', dry_run: false, matched: expected.length, deleted: expected.length });
    expect(run.body.data.id).toMatch(/^rdl_/);
    expect(await countResponses(t.db, s.ws)).toBe(30 - expected.length);
    for (const r of expected)
      expect(
        (
          await t
            .http()
            .get(`${base(s)}/responses/${r.id}`)
            .set('X-API-Key', s.key)
        ).status,
      ).toBe(404);
    const shown = await t
      .http()
      .get(`${base(s)}/response-deletions/${run.body.data.id}`)
      .set('X-API-Key', s.key);
    expect(shown.status).toBe(200);
    expect(shown.body.data).toEqual(run.body.data);
    await expectTotalsFresh(s);
  });

  it('Style B: filter on answers, startDate/endDate and ids, camelCase answer', async () => {
    const s = await scenario(t.db, { responseCount: 20, key: { style: 'B' } });
    const pro = s.responses.filter(
      (r) => r.form_id === s.nps && (r.answers as Array<{ question_id: string; value: unknown }>).some((a) => (a.value as { id?: string }).id === 'opt_pro'),
    );
    const ids = pro.slice(0, 3).map((r) => r.id);
    const body = { formId: s.nps, filter: 'answers.q_plan = opt_pro', startDate: '2026-01-10', endDate: '2026-01-10', ids };
    const dry = await t
      .http()
      .post(`${base(s)}/response-deletions`)
      .set('X-API-Key', s.key)
      .send({ ...body, dryRun: true });
    expect(dry.status).toBe(200);
    expect(dry.body.data).toMatchObject({ id: null, status: 'dry_run', dryRun: true, matched: 3, deleted: 0 });
    const run = await t
      .http()
      .post(`${base(s)}/response-deletions`)
      .set('X-API-Key', s.key)
      .send(body);
    expect(run.status).toBe(200);
    expect(run.body.data).toMatchObject({ status: 'succeeded', dryRun: false, matched: 3, deleted: 3 });
    expect(typeof run.body.data.createdAt).toBe('string');
    expect(await countResponses(t.db, s.ws)).toBe(17);
    await expectTotalsFresh(s);
  });

  it("the translator's Style A body counts what the Style B filter counts", async () => {
    const s = await scenario(t.db, { responseCount: 20 });
    const some = s.responses.filter((r) => r.form_id === s.nps).map((r) => r.id);
    const bodyB = { dryRun: true, filter: `form_id = ${s.nps}, score = 7, answers.q_plan = opt_pro, id in [${some.join(', ')}]` };
    const translated = translateStyleB({ method: 'POST', path: `${base(s)}/response-deletions`, headers: { 'X-API-Style': 'B' }, body: bodyB });
    if (!translated.ok) throw new Error(translated.reason);
    const dry = (style: string, body: unknown) =>
      t
        .http()
        .post(`${base(s)}/response-deletions`)
        .set('X-API-Key', s.key)
        .set('X-API-Style', style)
        .send(body as object);
    const [b, a] = await Promise.all([dry('B', bodyB), dry('A', translated.request.body)]);
    expect([b.status, a.status]).toEqual([200, 200]);
    expect(a.body.data.matched).toBe(b.body.data.matched);
    const fresh = s.responses.filter(
      (r) => r.form_id === s.nps && r.score === 7 && (r.answers as Array<{ value: unknown }>).some((x) => (x.value as { id?: string }).id === 'opt_pro'),
    ).length;
    expect(fresh).toBeGreaterThan(0);
    expect(a.body.data.matched).toBe(fresh);
  });

  it.each([
    ['A', {}, 'form_id'],
    ['B', { dryRun: true }, 'formId'],
    ['A', { formId: 'frm_x' }, 'formId'],
    ['B', { form_id: 'frm_x' }, 'form_id'],
    ['A', { form_id: 'frm_x', created_after: 'yesterday' }, 'created_after'],
    ['B', { formId: 'frm_x', startDate: 'soon' }, 'startDate'],
    ['A', { answer: ['q_plan:opt_pro'] }, 'answer'],
    ['B', { filter: 'nope = 1' }, 'filter'],
    ['A', { ids: [] }, 'ids'],
    ['A', { form_id: 'frm_x', unknown: 1 }, 'unknown'],
  ])('Style %s: %j is a 400 naming %s', async (style, body, field) => {
    const s = await scenario(t.db, { responseCount: 2 });
    const res = await t
      .http()
      .post(`${base(s)}/response-deletions`)
      .set('X-API-Key', s.key)
      .set('X-API-Style', style)
      .send(body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
    expect(await countResponses(t.db, s.ws)).toBe(2);
  });

  it('a large one runs as a job: 202 queued, progress per batch, a retried job finishes', async () => {
    const s = await scenario(t.db, { responseCount: 30 });
    const matched = s.responses.filter((r) => r.form_id === s.nps).length;
    expect(matched).toBeGreaterThan(8);
    const res = await t
      .http()
      .post(`${base(s)}/response-deletions`)
      .set('X-API-Key', s.key)
      .send({ form_id: s.nps });
    expect(res.status).toBe(202);
    expect(res.body.data).toMatchObject({ status: 'queued', matched, deleted: 0, finished_at: null });
    const job = { workspaceId: s.ws, deletionId: res.body.data.id as string };
    const jobs = (await t.db.raw("SELECT data FROM pgboss.job WHERE name = 'response-deletion'")) as { rows: Array<{ data: unknown }> };
    expect(jobs.rows.map((r) => r.data)).toContainEqual(job);

    // One batch, as a worker that then dies would leave it: committed whole, progress and counters with it.
    expect(await withTransaction(t.db, (trx) => runDeletionBatch(trx, job, 4))).toBe('more');
    const mid = await t
      .http()
      .get(`${base(s)}/response-deletions/${job.deletionId}`)
      .set('X-API-Key', s.key)
      .set('X-API-Style', 'B');
    expect(mid.body.data).toMatchObject({ status: 'running', matched, deleted: 4, finishedAt: null });
    expect(await countResponses(t.db, s.ws, { form_id: s.nps })).toBe(matched - 4);
    await expectTotalsFresh(s);

    // The retried job goes on from what is left.
    await runDeletionJob(t.db, job, 4);
    const done = await t
      .http()
      .get(`${base(s)}/response-deletions/${job.deletionId}`)
      .set('X-API-Key', s.key);
    expect(done.body.data).toMatchObject({ status: 'succeeded', matched, deleted: matched });
    expect(typeof done.body.data.finished_at).toBe('string');
    expect(await countResponses(t.db, s.ws, { form_id: s.nps })).toBe(0);
    await runDeletionJob(t.db, job, 4);
    expect(
      (
        await t
          .http()
          .get(`${base(s)}/response-deletions/${job.deletionId}`)
          .set('X-API-Key', s.key)
      ).body.data.deleted,
    ).toBe(matched);
    await expectTotalsFresh(s);
  });

  it("an erasure of an address a queued bulk delete's filter names stops the job and leaves [erased] in its place", async () => {
    const s = await scenario(t.db, { responseCount: 30 });
    const ghost = 'Ghost-Person@Example.com';
    const res = await t
      .http()
      .post(`${base(s)}/response-deletions`)
      .set('X-API-Key', s.key)
      .set('X-API-Style', 'B')
      .send({ formId: s.nps, filter: `respondent_email != ${ghost}` });
    expect(res.status).toBe(202);
    const erased = await t
      .http()
      .post(`${base(s)}/erasure-requests`)
      .set('X-API-Key', s.key)
      .send({ email: ghost.toLowerCase() });
    expect(erased.status).toBe(201);
    const stored = (await t.db('response_deletions').where({ workspace_id: s.ws, id: res.body.data.id }).first()) as {
      status: string;
      filters: unknown;
      error: string;
    };
    expect(stored.status).toBe('failed');
    expect(stored.error).toContain('erasure');
    expect(JSON.stringify(stored.filters)).toContain('respondent_email != [erased]');
    expect(JSON.stringify(stored.filters).toLowerCase()).not.toContain('ghost');
    // The job, when it comes, finds its deletion finished and deletes nothing.
    await runDeletionJob(t.db, { workspaceId: s.ws, deletionId: res.body.data.id as string }, 4);
    expect(await countResponses(t.db, s.ws)).toBe(30);
  });

  it('two bulk deletes at once with overlapping filters delete each response once and keep the counts', async () => {
    const s = await scenario(t.db, { responseCount: 16 });
    const send = (body: object) =>
      t
        .http()
        .post(`${base(s)}/response-deletions`)
        .set('X-API-Key', s.key)
        .send(body);
    const [a, b] = await Promise.all([send({ form_id: s.nps, score_lte: 6 }), send({ form_id: s.nps, score_gte: 3 })]);
    expect([a.status, b.status]).toEqual([200, 200]);
    const left = await countResponses(t.db, s.ws, { form_id: s.nps });
    expect(left).toBe(0);
    const npsCount = s.responses.filter((r) => r.form_id === s.nps).length;
    expect(a.body.data.deleted + b.body.data.deleted).toBe(npsCount);
    await expectTotalsFresh(s);
  });

  it("answers 404 for another workspace's deletion", async () => {
    const mine = await scenario(t.db, { responseCount: 1 });
    const theirs = await scenario(t.db, { responseCount: 1 });
    const run = await t
      .http()
      .post(`${base(theirs)}/response-deletions`)
      .set('X-API-Key', theirs.key)
      .send({ form_id: theirs.nps });
    expect(run.status).toBe(200);
    const res = await t
      .http()
      .get(`${base(mine)}/response-deletions/${run.body.data.id}`)
      .set('X-API-Key', mine.key);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('resource_not_found');
  });
});

describe('retention', () => {
  it('deletes only responses and email events older than the workspace setting, and only where it is set', async () => {
    const s = await scenario(t.db, { responseCount: 30 });
    const other = await scenario(t.db, { responseCount: 30 });
    // 400 days: a worker of another test file pruning the shared database now (November 2026) finds nothing to delete.
    await setResponseRetention(t.db, s.ws, 400);
    // The responses span 2026-01-10T12:00Z + 0..14 h; 400 days after 20:00 that day the cutoff is 2026-01-10T20:00Z.
    const cutoff = '2026-01-10T20:00:00.000Z';
    const now = new Date(Date.parse(cutoff) + 400 * 86_400_000);
    const oldResponses = s.responses.filter((r) => r.created_at < cutoff).length;
    const oldEvents = s.events.filter((e) => e.created_at < cutoff).length;
    expect(oldResponses).toBeGreaterThan(0);
    expect(oldResponses).toBeLessThan(30);
    const result = await pruneExpiredResponses(t.db, now, { batchSize: 5, pauseMs: 0 });
    expect(result.responses).toBeGreaterThanOrEqual(oldResponses);
    expect(await countResponses(t.db, s.ws)).toBe(30 - oldResponses);
    const young = (await t.db('responses').where('workspace_id', s.ws).min({ m: 'created_at' }).first()) as { m: Date };
    expect(young.m.toISOString() >= cutoff).toBe(true);
    const events = (await t.db('email_events').where('workspace_id', s.ws).count({ n: '*' }).first()) as { n: unknown };
    expect(Number(events.n)).toBe(s.events.length - oldEvents);
    expect(await countResponses(t.db, other.ws)).toBe(30);
    await expectTotalsFresh(s);
    await expectCountersFresh(t.db, other.ws);
  });

  it('is off by default', async () => {
    const s = await scenario(t.db, { responseCount: 4 });
    await pruneExpiredResponses(t.db, new Date('2030-01-01T00:00:00Z'), { pauseMs: 0 });
    expect(await countResponses(t.db, s.ws)).toBe(4);
  });
});
