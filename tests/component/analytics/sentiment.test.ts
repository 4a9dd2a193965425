/**
 * Sentiment of text answers (docs/analytics.md, "Sentiment"; docs/api-rules.md, "Sentiment"): set on every new response
 * by each way in (server to server in both styles, the public JSON submission, the import), per text answer and overall,
 * with negation; null for German text (a language the library does not read); the backfill job fills responses stored
 * without it, batch by batch, and a restart continues after the stored key without recomputing; the filters and the
 * sort agree in both styles and translated; a label that does not exist is a 400 naming the field.
 */
import supertest from 'supertest';
import { importFixture } from '../../../src/core/import/importer';
import type { FixtureResponse } from '../../../src/core/import/fixture-schema';
import { backfillSentimentBatch } from '../../../src/core/responses/sentiment-backfill';
import { readSentimentProgress } from '../../../src/core/responses/responses.store';
import { setSentimentEnabled } from '../../../src/core/responses/sentiment';
import { sentimentBackfillState, startSentimentBackfill } from '../../../src/delivery/sentiment-backfill';
import { buildApp } from '../../../src/app';
import type { Metrics } from '../../../src/platform/metrics';
import { testConfig } from '../../support/app';
import { createLogger } from '../../../src/platform/logger';
import { useTestApp } from '../../support/app';
import { translatedResponseIds } from '../../support/translate';
import { everyTypeForm, formWorkspace, uid, workspaceWithKey, type FormWorkspace } from '../../support/given';

const t = useTestApp();

/** everyTypeForm with a second text question. */
const twoTextForm = (ws: string, id: string) => {
  const base = everyTypeForm(ws, id);
  return { ...base, questions: [...(base.questions ?? []), { id: 'q_more', type: 'text' as const, title: 'Anything else?' }] };
};
const answers = (why: string, more?: string) => [
  { question_id: 'q_nps', value: 9 },
  { question_id: 'q_plan', value: { id: 'opt_pro' } },
  { question_id: 'q_text', value: why },
  ...(more === undefined ? [] : [{ question_id: 'q_more', value: more }]),
];
const get = (w: { ws: string; key: string }, path: string, style: 'A' | 'B' = 'A') =>
  t.http().get(`/api/v1/workspaces/${w.ws}${path}`).set('X-API-Key', w.key).set('X-API-Style', style);

const POSITIVE = { score: 0.6, label: 'positive' };
const NEGATIVE = { score: -0.776, label: 'negative' };

describe('sentiment is computed when a response is written', () => {
  let w: FormWorkspace;
  beforeAll(async () => {
    w = await formWorkspace(t.db, { form: twoTextForm });
  });

  const expectScored = async (id: string) => {
    const a = await get(w, `/responses/${id}`, 'A');
    expect(a.status).toBe(200);
    expect(a.body.data.sentiment).toEqual({ score: -0.088, label: 'negative' });
    const textsA = (a.body.data.answers as Array<{ type: string }>).filter((x) => x.type === 'text');
    expect(textsA).toEqual([
      { question_id: 'q_text', title: 'Why?', type: 'text', value: 'not bad at all', sentiment: POSITIVE },
      { question_id: 'q_more', title: 'Anything else?', type: 'text', value: 'not good', sentiment: NEGATIVE },
    ]);
    // The other answers carry none.
    expect(a.body.data.answers.slice(0, 2)).toEqual([
      { question_id: 'q_nps', title: 'How likely?', type: 'nps', value: 9 },
      { question_id: 'q_plan', title: 'Plan?', type: 'single_choice', value: { id: 'opt_pro', value: 'Pro' } },
    ]);
    const b = await get(w, `/responses/${id}`, 'B');
    expect(b.status).toBe(200);
    expect(b.body.data.sentiment).toEqual({ score: -0.088, label: 'negative' });
    expect(b.body.data.answers.slice(2)).toEqual([
      { id: 'q_text', title: 'Why?', type: 'text', value: 'not bad at all', sentiment: POSITIVE },
      { id: 'q_more', title: 'Anything else?', type: 'text', value: 'not good', sentiment: NEGATIVE },
    ]);
    const row = (await t.db('responses').where({ workspace_id: w.ws, id }).first()) as Record<string, unknown>;
    expect({ score: row.sentiment_score, label: row.sentiment_label, pending: row.sentiment_pending }).toEqual({
      score: -0.088,
      label: 'negative',
      pending: false,
    });
  };

  it('server to server, Style A: per answer and overall in the 201 and in every read', async () => {
    const res = await t
      .http()
      .post(`/api/v1/workspaces/${w.ws}/responses`)
      .set('X-API-Key', w.key)
      .send({ form_id: w.form, answers: answers('not bad at all', 'not good') });
    expect(res.status).toBe(201);
    expect(res.body.data.sentiment).toEqual({ score: -0.088, label: 'negative' });
    await expectScored(res.body.data.id as string);
  });

  it('server to server, Style B', async () => {
    const res = await t
      .http()
      .post(`/api/v1/workspaces/${w.ws}/responses`)
      .set('X-API-Key', w.key)
      .set('X-API-Style', 'B')
      .send({ form_id: w.form, answers: answers('not bad at all', 'not good').map(({ question_id, value }) => ({ id: question_id, value })) });
    expect(res.status).toBe(201);
    expect(res.body.data.sentiment).toEqual({ score: -0.088, label: 'negative' });
    await expectScored(res.body.data.id as string);
  });

  it('the public JSON submission (the hosted page runs the same use case)', async () => {
    const res = await supertest(t.app)
      .post(`/api/v1/forms/${w.form}/submissions`)
      .send({ answers: answers('not bad at all', 'not good') });
    expect({ status: res.status, error: res.body.error }).toEqual({ status: 201, error: undefined });
    await expectScored((res.body.data?.id ?? res.body.id) as string);
  });

  it('the import', async () => {
    const id = uid('rsp');
    await importFixture(t.db, { responses: [{ id, form_id: w.form, score: 0, answers: answers('not bad at all', 'not good') }] });
    await expectScored(id);
  });

  it('German text: the text answer has sentiment null and the response none (English only is scored)', async () => {
    const res = await t
      .http()
      .post(`/api/v1/workspaces/${w.ws}/responses`)
      .set('X-API-Key', w.key)
      .send({ form_id: w.form, language: 'de', answers: answers('Der Support war sehr gut, nicht schlecht') });
    expect(res.status).toBe(201);
    expect(res.body.data.sentiment).toBeNull();
    expect(res.body.data.answers[2]).toEqual({
      question_id: 'q_text',
      title: 'Why?',
      type: 'text',
      value: 'Der Support war sehr gut, nicht schlecht',
      sentiment: null,
    });
  });

  it('a response without text answers has no overall sentiment', async () => {
    const res = await t
      .http()
      .post(`/api/v1/workspaces/${w.ws}/responses`)
      .set('X-API-Key', w.key)
      .send({ form_id: w.form, answers: answers('x').slice(0, 2) });
    expect(res.status).toBe(201);
    expect(res.body.data.sentiment).toBeNull();
    expect(res.body.data.answers).toEqual([
      { question_id: 'q_nps', title: 'How likely?', type: 'nps', value: 9 },
      { question_id: 'q_plan', title: 'Plan?', type: 'single_choice', value: { id: 'opt_pro', value: 'Pro' } },
    ]);
  });
});

describe('filters and sort by sentiment', () => {
  const w = { ws: '', key: '', form: '' };
  /** id → overall score (null: no scored text). */
  const scores = new Map<string, number | null>();
  const labelOf = (s: number | null) => (s === null ? null : s >= 0.05 ? 'positive' : s <= -0.05 ? 'negative' : 'neutral');
  const TEXTS: Array<[string | undefined, 'en' | 'de', number | null]> = [
    ['Great support', 'en', 0.5],
    ['not bad at all', 'en', 0.6],
    ['not good', 'en', -0.776],
    ['Billing was confusing this month.', 'en', -0.437],
    ['The mobile app is slow.', 'en', 0],
    [undefined, 'en', null],
    ['Sehr gut', 'de', null],
  ];
  beforeAll(async () => {
    Object.assign(w, await workspaceWithKey(t.db));
    w.form = uid('frm');
    const fixture: FixtureResponse[] = [];
    for (let i = 0; i < 21; i++) {
      const [text, language, score] = TEXTS[i % TEXTS.length]!;
      const id = uid('rsp');
      scores.set(id, score);
      fixture.push({
        id,
        form_id: w.form,
        score: 0,
        language,
        created_at: new Date(Date.parse('2026-02-01T10:00:00Z') + i * 60_000).toISOString(),
        answers: [{ question_id: 'q_plan', value: 'opt_pro' }, ...(text === undefined ? [] : [{ question_id: 'q_text', value: text }])],
      });
    }
    await importFixture(t.db, { forms: [everyTypeForm(w.ws, w.form)], responses: fixture });
  });

  const newestIds = (keep: (label: string | null) => boolean) =>
    [...scores.entries()]
      .filter(([, s]) => keep(labelOf(s)))
      .map(([id]) => id)
      .reverse();
  const styleA = async (query: string) => {
    const res = await get(w, `/responses?limit=100&${query}`, 'A');
    expect({ status: res.status, error: res.body.error }).toEqual({ status: 200, error: undefined });
    return (res.body.data as Array<{ id: string }>).map((r) => r.id);
  };
  const styleB = async (filter: string, extra = '') => {
    const res = await get(w, `/responses?limit=1000&filter=${encodeURIComponent(filter)}${extra}`, 'B');
    expect({ status: res.status, error: res.body.error }).toEqual({ status: 200, error: undefined });
    return { ids: (res.body.data as Array<{ id: string }>).map((r) => r.id), total: res.body.meta.filtered_total as number };
  };
  const translated = (filter: string) => translatedResponseIds(t.http, w, filter);

  it.each<[string, string, string, (l: string | null) => boolean]>([
    ['sentiment = positive', 'sentiment=positive', 'sentiment = positive', (l) => l === 'positive'],
    ['sentiment != negative (no label kept)', 'sentiment_ne=negative', 'sentiment != negative', (l) => l !== 'negative'],
    [
      'sentiment in [negative, neutral]',
      'sentiment_in=negative&sentiment_in=neutral',
      'sentiment in [negative, neutral]',
      (l) => l === 'negative' || l === 'neutral',
    ],
    ['sentiment = null', 'sentiment_present=false', 'sentiment = null', (l) => l === null],
    ['sentiment != null', 'sentiment_present=true', 'sentiment != null', (l) => l !== null],
  ])('%s: Style A, Style B and the translation keep the same responses', async (_name, a, b, keep) => {
    const expected = newestIds(keep);
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(scores.size);
    const [ra, rb, rt] = await Promise.all([styleA(a), styleB(b), translated(b)]);
    expect(ra).toEqual(expected);
    expect(rb).toEqual({ ids: expected, total: expected.length });
    expect(rt).toEqual(expected);
  });

  it.each(['asc', 'desc'])('sort=sentiment:%s orders by the overall score, responses without one last, the same in both styles', async (dir) => {
    const a = await styleA(`sort=sentiment:${dir}`);
    const resB = await get(w, `/responses?limit=1000&sort=sentiment:${dir}`, 'B');
    expect(resB.status).toBe(200);
    expect((resB.body.data as Array<{ id: string }>).map((r) => r.id)).toEqual(a);
    const seen = a.map((id) => scores.get(id)!);
    const scored = seen.filter((s): s is number => s !== null);
    expect(seen.slice(scored.length).every((s) => s === null)).toBe(true);
    expect(scored).toEqual([...scored].sort((x, y) => (dir === 'asc' ? x - y : y - x)));
    // Keyset pages of 4 walk the same order.
    const walked: string[] = [];
    let next: string | undefined = `/responses?limit=4&sort=sentiment:${dir}`;
    while (next) {
      const page = await get(w, next.replace(/^.*\/workspaces\/[^/]+/, ''), 'A');
      expect(page.status).toBe(200);
      walked.push(...(page.body.data as Array<{ id: string }>).map((r) => r.id));
      next = page.body.links?.next ?? undefined;
    }
    expect(walked).toEqual(a);
  });

  it.each([
    ['Style A sentiment=happy', 'A', 'sentiment=happy', 'sentiment'],
    ['Style A sentiment_in=Positive', 'A', 'sentiment_in=Positive', 'sentiment_in'],
    ['Style A sentiment_contains=pos (no such parameter)', 'A', 'sentiment_contains=pos', 'sentiment_contains'],
    ['Style B sentiment = happy', 'B', `filter=${encodeURIComponent('sentiment = happy')}`, 'filter'],
    ['Style B sentiment in [positive, great]', 'B', `filter=${encodeURIComponent('sentiment in [positive, great]')}`, 'filter'],
    ['Style B sentiment ~ pos', 'B', `filter=${encodeURIComponent('sentiment ~ pos')}`, 'filter'],
  ])('%s is a 400 naming the field', async (_name, style, query, field) => {
    const res = await get(w, `/responses?${query}`, style as 'A' | 'B');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.details[0].field).toBe(field);
    if (field === 'filter') expect(res.body.error.details[0].message).toContain('sentiment');
  });
});

describe('the backfill job', () => {
  const logger = createLogger('silent');
  let ws: string;
  let form: string;
  const ids: string[] = [];
  beforeAll(async () => {
    ({ ws } = await workspaceWithKey(t.db));
    form = uid('frm');
    const texts = ['not bad at all', 'not good', 'Great support', 'Billing was confusing this month.'];
    // Written with the switch off: stored without sentiment, pending.
    setSentimentEnabled(false);
    try {
      await importFixture(t.db, {
        forms: [everyTypeForm(ws, form)],
        responses: Array.from({ length: 9 }, (_, i) => {
          const id = `rsp_${String(i).padStart(2, '0')}_${uid('x')}`;
          ids.push(id);
          return {
            id,
            form_id: form,
            score: 0,
            answers: [
              { question_id: 'q_plan', value: 'opt_pro' },
              { question_id: 'q_text', value: texts[i % texts.length]! },
            ],
          };
        }),
      });
    } finally {
      setSentimentEnabled(true);
    }
  });
  const rowsOf = async () =>
    (await t
      .db('responses')
      .where('workspace_id', ws)
      .orderBy('id')
      .select('id', 'answers', 'sentiment_score', 'sentiment_label', 'sentiment_pending')) as Array<{
      id: string;
      answers: Array<{ question_id: string; sentiment?: unknown }>;
      sentiment_score: number | null;
      sentiment_label: string | null;
      sentiment_pending: boolean;
    }>;

  it('stores responses written with SENTIMENT=off as pending, without sentiment', async () => {
    const rows = await rowsOf();
    expect(rows).toHaveLength(9);
    for (const r of rows) {
      expect({ score: r.sentiment_score, label: r.sentiment_label, pending: r.sentiment_pending }).toEqual({ score: null, label: null, pending: true });
      expect(r.answers[1]).not.toHaveProperty('sentiment');
    }
  });

  it('fills them in batches in key order, stops, and after a restart continues after the stored key without recomputing', async () => {
    const job = uid('job');
    const batches: Array<{ filled: number; after: unknown }> = [];
    // First run: stopped in the middle of this workspace's rows (rows of other files may come first in key order).
    let stop!: () => Promise<void>;
    const lastId = [...ids].sort().pop();
    const stoppedInside = new Promise<void>((resolve) => {
      const run = startSentimentBackfill({
        db: t.db,
        logger,
        job,
        batchSize: 2,
        pauseMs: 0,
        startDelayMs: 0,
        onBatch: (r) => {
          batches.push({ filled: r.filled, after: r.progress.after });
          if (r.done || (r.progress.after?.workspaceId === ws && r.progress.after.id !== lastId)) resolve();
        },
      });
      stop = run.stop;
    });
    await stoppedInside;
    await stop();
    const stored = await readSentimentProgress(t.db, job);
    expect(stored.after).toEqual(batches[batches.length - 1]!.after);
    expect(stored.filled).toBe(batches.reduce((n, b) => n + b.filled, 0));
    expect(stored.after?.workspaceId).toBe(ws);
    // A row the first run filled is marked by hand: a recomputation would overwrite the mark.
    const filledBefore = (await rowsOf()).filter((r) => !r.sentiment_pending);
    expect(filledBefore.length).toBeGreaterThan(0);
    await t.db('responses').where({ workspace_id: ws, id: filledBefore[0]!.id }).update({ sentiment_score: 0.123, sentiment_label: 'positive' });

    // Second run ("restart"): from the stored key to the end, then done.
    const afterRestart: Array<{ workspaceId: string; id: string } | null> = [];
    await new Promise<void>((resolve, reject) => {
      const run = startSentimentBackfill({
        db: t.db,
        logger,
        job,
        batchSize: 2,
        pauseMs: 0,
        startDelayMs: 0,
        idleMs: 60_000,
        onBatch: (r) => {
          afterRestart.push(r.progress.after);
          if (r.done || afterRestart.length > 500) void run.stop().then(resolve, reject);
        },
      });
    });
    // Some of this workspace's rows were left for the restart, and it filled them.
    expect((await rowsOf()).length).toBe(9);
    expect(filledBefore.length).toBeLessThan(9);
    const rows = await rowsOf();
    for (const r of rows) expect(r.sentiment_pending).toBe(false);
    expect(rows.find((r) => r.id === filledBefore[0]!.id)!.sentiment_score).toBe(0.123);
    const byText = new Map(rows.filter((r) => r.id !== filledBefore[0]!.id).map((r) => [r.id, r]));
    for (const [id, r] of byText) {
      const i = ids.indexOf(id);
      const expected = [POSITIVE, NEGATIVE, { score: 0.5, label: 'positive' }, { score: -0.437, label: 'negative' }][i % 4]!;
      expect({ score: r.sentiment_score, label: r.sentiment_label }).toEqual(expected);
      expect(r.answers[1]!.sentiment).toEqual(expected);
    }
    const progress = await readSentimentProgress(t.db, job);
    expect(progress.after).toBeNull();
    expect(progress.passFinishedAt).toBeInstanceOf(Date);
  });

  it('shows its progress in /metrics: sentiment_backfill_pending and sentiment_backfill_filled', async () => {
    const app = buildApp(testConfig(), { db: t.db, logger });
    const metrics = (app.locals as { metrics: Metrics }).metrics;
    metrics.setSentimentBackfillSource(() => sentimentBackfillState(t.db));
    // Fresh: one pending response written with the switch off.
    setSentimentEnabled(false);
    try {
      await importFixture(t.db, { responses: [{ id: uid('rsp'), form_id: form, score: 0, answers: [{ question_id: 'q_text', value: 'not good' }] }] });
    } finally {
      setSentimentEnabled(true);
    }
    const state = await sentimentBackfillState(t.db);
    expect(state.pending).toBeGreaterThanOrEqual(1);
    const text = (await supertest(app).get('/metrics').expect(200)).text;
    expect(text).toMatch(/^# TYPE sentiment_backfill_pending gauge$/m);
    expect(text).toMatch(/^# TYPE sentiment_backfill_filled gauge$/m);
    const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
    // Another file's worker may score rows meanwhile: pending only falls, filled only grows.
    expect(value('sentiment_backfill_pending')).toBeGreaterThanOrEqual(0);
    expect(value('sentiment_backfill_pending')).toBeLessThanOrEqual(state.pending);
    expect(value('sentiment_backfill_filled')).toBeGreaterThanOrEqual(state.filled);
  });

  it('a batch with nothing pending is done and changes nothing', async () => {
    const job = uid('job');
    // Run until done (other files' rows may be pending too), then once more.
    for (let i = 0; i < 1000; i++) if ((await backfillSentimentBatch(t.db, 500, { job })).done) break;
    const again = await backfillSentimentBatch(t.db, 500, { job });
    expect(again.done).toBe(true);
    expect(again.filled).toBe(0);
  });
});
