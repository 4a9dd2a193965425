/**
 * Pruning what grows (docs/operations.md "What grows, and what bounds it"): finished webhook deliveries
 * and their events past WEBHOOK_LOG_RETENTION_DAYS, claimed submission tokens a day past their expiry,
 * API key usage past the usage window, per-operation usage past 400 days. Old and recent rows side by side; exactly the old ones go, in
 * batches, by the core functions and once through the worker's schedule. The file's own database
 * (PostgreSQL: created here; PGlite: one per file anyway), so a prune meets no other file's rows.
 */
import { pruneKeyUsage, pruneOperationUsage } from '../../../src/core/api-keys/usage.store';
import {
  isSubmissionTokenExpired,
  mintSubmissionToken,
  pruneSubmissionTokens,
  SUBMISSION_TOKEN_TTL_DAYS,
} from '../../../src/core/responses/submission-tokens.store';
import { pruneWebhookLog } from '../../../src/core/webhooks/retention';
import type { PruneResult } from '../../../src/delivery/prune';
import { createDeliveryWorker } from '../../../src/delivery/worker';
import type { Db } from '../../../src/db/connection';
import { createLogger } from '../../../src/platform/logger';
import { testConfig } from '../../support/app';
import { onEmbeddedDb, openTestDb } from '../../support/db';
import { uid } from '../../support/given';
import { ownDatabase } from './harness';

jest.setTimeout(60_000);

let db: Db;
let drop: () => Promise<void>;
beforeAll(async () => {
  if (onEmbeddedDb()) {
    db = await openTestDb();
    drop = () => db.destroy();
  } else ({ db, drop } = await ownDatabase());
});
afterAll(() => drop());

const DAY = 86_400_000;
const HOUR = 3_600_000;
const ago = (now: Date, ms: number) => new Date(now.getTime() - ms);
const utcDay = (d: Date) => d.toISOString().slice(0, 10);

/** A workspace with a form and a webhook endpoint, inserted directly (timestamps are the point here). */
async function workspace() {
  const ws = uid('ws');
  const form = uid('frm');
  const endpoint = uid('we');
  await db('workspaces').insert({ id: ws, name: ws, link: ws.toLowerCase().replace(/_/g, '-') });
  await db('forms').insert({ workspace_id: ws, id: form, name: 'Form' });
  await db('webhook_endpoints').insert({ workspace_id: ws, id: endpoint, url: 'https://hooks.example/x', events: ['row.created'], secret: 'whsec_x' });
  return { ws, form, endpoint };
}

async function event(ws: string, createdAt: Date): Promise<string> {
  const id = uid('evt');
  await db('webhook_events').insert({ workspace_id: ws, id, type: 'row.created', resource: {}, created_at: createdAt });
  return id;
}

async function delivery(w: { ws: string; endpoint: string }, eventId: string, status: 'pending' | 'succeeded' | 'failed', updatedAt: Date): Promise<string> {
  const id = uid('dlv');
  await db('webhook_deliveries').insert({
    workspace_id: w.ws,
    id,
    endpoint_id: w.endpoint,
    event_id: eventId,
    event_type: 'row.created',
    status,
    created_at: updatedAt,
    updated_at: updatedAt,
  });
  return id;
}

/** A token minted at `issued` and claimed at once (the earliest a claim can be). */
async function claimedToken(w: { ws: string; form: string }, issued: Date): Promise<string> {
  const token = mintSubmissionToken(issued);
  await db('submission_tokens').insert({ workspace_id: w.ws, token, form_id: w.form, response_id: uid('rsp'), created_at: issued });
  return token;
}

const ids = async (table: string, column = 'id') => ((await db(table).select(column)) as Array<Record<string, string>>).map((r) => r[column]!).sort();

/** Old and recent rows of every pruned table; what a prune at `now` with 30 days must keep and delete. */
async function oldAndRecentRows(now: Date) {
  const w = await workspace();
  const evGone = await event(w.ws, ago(now, 40 * DAY));
  const evNoDelivery = await event(w.ws, ago(now, 31 * DAY));
  const evPending = await event(w.ws, ago(now, 40 * DAY));
  const evStillReferenced = await event(w.ws, ago(now, 40 * DAY));
  const evRecent = await event(w.ws, ago(now, 29 * DAY));
  const gone = [
    await delivery(w, evGone, 'succeeded', ago(now, 31 * DAY)),
    await delivery(w, evGone, 'failed', ago(now, 35 * DAY)),
    await delivery(w, evStillReferenced, 'succeeded', ago(now, 40 * DAY)),
  ];
  const kept = [
    await delivery(w, evPending, 'pending', ago(now, 40 * DAY)),
    await delivery(w, evStillReferenced, 'failed', ago(now, 10 * DAY)),
    await delivery(w, evRecent, 'succeeded', ago(now, 29 * DAY)),
  ];
  const ttl = SUBMISSION_TOKEN_TTL_DAYS * DAY;
  const tokenExpired2DaysAgo = await claimedToken(w, ago(now, ttl + 2 * DAY));
  const tokenExpiredAnHourAgo = await claimedToken(w, ago(now, ttl + HOUR));
  const tokenLive = await claimedToken(w, ago(now, HOUR));
  const key = uid('key');
  usageKeys.push(key);
  for (const daysAgo of [91, 92, 90, 89, 0]) {
    await db('api_key_usage').insert({ api_key_id: key, day: utcDay(ago(now, daysAgo * DAY)), style: 'A', requests: 3 });
  }
  for (const daysAgo of [401, 402, 400, 399, 91, 0]) {
    const day = utcDay(ago(now, daysAgo * DAY));
    const at = new Date(`${day}T12:00:00Z`);
    await db('api_key_operation_usage').insert({ api_key_id: key, day, style: 'B', operation: 'listResponses', requests: 2, first_seen: at, last_seen: at });
  }
  return {
    deliveryFinished40DaysAgo: gone[2]!,
    deliveries: { gone: [...gone].sort(), kept: kept.sort() },
    events: { gone: [evGone, evNoDelivery].sort(), kept: [evPending, evStillReferenced, evRecent].sort() },
    tokens: { gone: [tokenExpired2DaysAgo], kept: [tokenExpiredAnHourAgo, tokenLive].sort() },
    usageDaysKept: [90, 89, 0].map((d) => utcDay(ago(now, d * DAY))).sort(),
    operationUsageDaysKept: [400, 399, 91, 0].map((d) => utcDay(ago(now, d * DAY))).sort(),
  };
}

async function clear() {
  await db('webhook_deliveries').delete();
  await db('webhook_events').delete();
  await db('submission_tokens').delete();
  // Only this file's usage rows: other files count requests into the same tables at the same time.
  await db('api_key_usage').whereIn('api_key_id', usageKeys).delete();
  await db('api_key_operation_usage').whereIn('api_key_id', usageKeys).delete();
  usageKeys.length = 0;
}
/** The usage keys this file inserted rows for (its usage checks read only those). */
const usageKeys: string[] = [];
const days = async (table: string) =>
  ((await db(table).whereIn('api_key_id', usageKeys).select(db.raw('day::text AS day')).orderBy('day')) as Array<{ day: string }>).map((r) => r.day);

describe('prune functions', () => {
  afterEach(clear);

  it('delete finished deliveries past the retention and then their events, never a pending delivery or an event still referenced', async () => {
    const now = new Date();
    const rows = await oldAndRecentRows(now);
    // Batches of 2: three deliveries take two statements.
    expect(await pruneWebhookLog(db, 30, now, { batchSize: 2, pauseMs: 1 })).toEqual({ deliveries: 3, events: 2 });
    expect(await ids('webhook_deliveries')).toEqual(rows.deliveries.kept);
    expect(await ids('webhook_events')).toEqual(rows.events.kept);
    // Idempotent: a second pass (another instance's) finds nothing.
    expect(await pruneWebhookLog(db, 30, now)).toEqual({ deliveries: 0, events: 0 });
  });

  it('keep the delivery log longer with a longer retention (36 days: only the delivery finished 40 days ago goes)', async () => {
    const now = new Date();
    const rows = await oldAndRecentRows(now);
    expect(await pruneWebhookLog(db, 36, now)).toEqual({ deliveries: 1, events: 0 });
    expect(await ids('webhook_deliveries')).toEqual(
      [...rows.deliveries.kept, ...rows.deliveries.gone].filter((id) => id !== rows.deliveryFinished40DaysAgo).sort(),
    );
    expect(await ids('webhook_events')).toEqual([...rows.events.gone, ...rows.events.kept].sort());
  });

  it('delete a claimed submission token a day past its expiry, keeping one expired an hour ago and a live one', async () => {
    const now = new Date();
    const rows = await oldAndRecentRows(now);
    expect(await pruneSubmissionTokens(db, now, { batchSize: 1, pauseMs: 1 })).toBe(1);
    expect(await ids('submission_tokens', 'token')).toEqual(rows.tokens.kept);
  });

  it('delete API key usage days the usage endpoint can no longer show, keeping one day of grace', async () => {
    const now = new Date();
    const rows = await oldAndRecentRows(now);
    expect(await pruneKeyUsage(db, utcDay(now))).toBe(2);
    expect(await days('api_key_usage')).toEqual(rows.usageDaysKept);
  });

  it('delete per-operation usage days older than the 400 the migration report can show, keeping one day of grace', async () => {
    const now = new Date();
    const rows = await oldAndRecentRows(now);
    expect(await pruneOperationUsage(db, utcDay(now), { batchSize: 1, pauseMs: 1 })).toBe(2);
    expect(await days('api_key_operation_usage')).toEqual(rows.operationUsageDaysKept);
    expect(await days('api_key_usage')).toHaveLength(5);
  });
});

describe('submission token lifetime', () => {
  it('is 7 days from minting; a token minted in the future, or of another shape, is handled as documented', () => {
    const now = new Date();
    expect(isSubmissionTokenExpired(mintSubmissionToken(ago(now, 7 * DAY - HOUR)), now)).toBe(false);
    expect(isSubmissionTokenExpired(mintSubmissionToken(ago(now, 7 * DAY + HOUR)), now)).toBe(true);
    expect(isSubmissionTokenExpired(mintSubmissionToken(new Date(now.getTime() + HOUR)), now)).toBe(true);
    // No issue time (an older page, or the customer's own HTML): its claim row guards it as long.
    expect(isSubmissionTokenExpired('tok-honeypot-0000000000', now)).toBe(false);
  });
});

describe('the worker', () => {
  it('prunes on its schedule: after a pass exactly the old rows are gone', async () => {
    const rows = await oldAndRecentRows(new Date());
    const passes: PruneResult[] = [];
    const worker = createDeliveryWorker({
      db,
      config: testConfig({ webhookLogRetentionDays: 30 }),
      logger: createLogger('silent'),
      pollingIntervalSeconds: 0.5,
      pruneIntervalMs: 100,
      onPrune: (r) => passes.push(r),
    });
    await worker.start();
    try {
      const until = Date.now() + 10_000;
      while (passes.length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    } finally {
      await worker.stop();
    }
    expect(passes[0]).toEqual({
      webhookDeliveries: 3,
      webhookEvents: 2,
      submissionTokens: 1,
      apiKeyUsage: 2,
      apiKeyOperationUsage: 2,
      dashboardDownloadClaims: 0,
      emailLinkUses: 0,
      // Audit records are kept 400 days (AUDIT_RETENTION_DAYS); none here is that old (its prune: platform/audit.test.ts).
      auditEvents: 0,
      eventLog: 0,
      responses: 0,
      emailEvents: 0,
    });
    expect(await ids('webhook_deliveries')).toEqual(rows.deliveries.kept);
    expect(await ids('webhook_events')).toEqual(rows.events.kept);
    expect(await ids('submission_tokens', 'token')).toEqual(rows.tokens.kept);
    expect(await days('api_key_usage')).toEqual(rows.usageDaysKept);
    expect(await days('api_key_operation_usage')).toEqual(rows.operationUsageDaysKept);
  });
});
