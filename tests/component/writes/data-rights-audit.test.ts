/**
 * The audit trail of the data-rights calls (docs/data-rights.md, "The audit trail of these calls"), on both databases:
 * a response deleted, a bulk delete run in the request and one run as a job (one record each, by the key that asked,
 * none per batch), a retention batch (actor "system"), an erasure run (the request's id and counts, never the
 * address) and a suppression lifted each leave one record in the transaction of the change, and the chain verifies.
 */
import { nanoid } from 'nanoid';
import { verifyAuditChains } from '../../../src/core/audit/audit.store';
import { importFixture } from '../../../src/core/import/importer';
import { ALL_SCOPES } from '../../../src/core/scopes';
import { setResponseRetention } from '../../../src/core/workspaces/workspaces.store';
import { pruneExpiredResponses, runDeletionJob } from '../../../src/delivery/deletions';
import { useTestApp } from '../../support/app';
import { keyFor, scenario, type Scenario } from '../../support/given';

const t = useTestApp({ responseDeleteInlineMax: 8 });

interface RecordA {
  actor: string;
  action: string;
  target_type: string;
  target_id: string;
  request_id: string | null;
  changes: Record<string, unknown>;
}

/** The workspace's records, oldest first, read through the API with a key holding `audit:read`. */
async function records(ws: string): Promise<RecordA[]> {
  const reader = await keyFor(t.db, [ws], { scopes: [...ALL_SCOPES] });
  const res = await t.http().get(`/api/v1/workspaces/${ws}/audit-events?limit=100`).set('X-API-Key', reader).set('X-API-Style', 'A');
  expect(res.status).toBe(200);
  return (res.body.data as RecordA[]).reverse();
}

/** The id of the scenario's key (the actor of its requests). */
async function keyIdOf(s: Scenario): Promise<string> {
  const res = await t.http().get(`/api/v1/workspaces/${s.ws}/api-keys`).set('X-API-Key', s.key);
  return (res.body.data as Array<{ id: string; prefix: string }>).find((k) => s.key.startsWith(k.prefix))!.id;
}

async function expectChainVerifies(ws: string): Promise<void> {
  const [check] = await verifyAuditChains(t.db, { workspaceId: ws });
  expect(check?.records).toBeGreaterThan(0);
  expect(check?.firstBad).toBeUndefined();
}

const api = (s: Scenario) => `/api/v1/workspaces/${s.ws}`;

describe('audit records of deletes, erasures and retention', () => {
  it('records a single delete and a bulk delete in each style, one record per request, by the key', async () => {
    const s = await scenario(t.db, { responseCount: 12 });
    const actor = await keyIdOf(s);
    const one = s.responses[0]!;
    const del = await t
      .http()
      .delete(`${api(s)}/responses/${one.id}`)
      .set('X-API-Key', s.key)
      .set('X-Request-Id', 'req-delete-one');
    expect(del.status).toBe(204);
    const dry = await t
      .http()
      .post(`${api(s)}/response-deletions`)
      .set('X-API-Key', s.key)
      .send({ form_id: s.csat, dry_run: true });
    expect(dry.status).toBe(200);
    const bulk = await t
      .http()
      .post(`${api(s)}/response-deletions`)
      .set('X-API-Key', s.key)
      .set('X-API-Style', 'B')
      .send({ formId: s.csat, filter: 'score != 99' });
    expect([bulk.status, bulk.status === 200 ? '' : bulk.text]).toEqual([200, '']);

    const got = await records(s.ws);
    expect(got).toEqual([
      expect.objectContaining({
        actor,
        action: 'response.deleted',
        target_type: 'response',
        target_id: one.id,
        request_id: del.headers['x-request-id'],
        changes: { form_id: one.form_id },
      }),
      expect.objectContaining({
        actor,
        action: 'response_deletion.created',
        target_type: 'response_deletion',
        target_id: bulk.body.data.id,
        changes: { status: 'succeeded', matched: bulk.body.data.matched, deleted: bulk.body.data.deleted, filters: ['filter', 'form_id'] },
      }),
    ]);
    await expectChainVerifies(s.ws);
  });

  it("records a job's bulk delete once, when asked, and none of its batches", async () => {
    const s = await scenario(t.db, { responseCount: 30 });
    const actor = await keyIdOf(s);
    const res = await t
      .http()
      .post(`${api(s)}/response-deletions`)
      .set('X-API-Key', s.key)
      .send({ form_id: s.nps, score_gte: 0 });
    expect(res.status).toBe(202);
    await runDeletionJob(t.db, { workspaceId: s.ws, deletionId: res.body.data.id as string }, 3);
    const got = await records(s.ws);
    expect(got).toEqual([
      expect.objectContaining({
        actor,
        action: 'response_deletion.created',
        target_id: res.body.data.id,
        changes: { status: 'queued', matched: res.body.data.matched, deleted: 0, filters: ['form_id', 'score_gte'] },
      }),
    ]);
    await expectChainVerifies(s.ws);
  });

  it('records each retention batch as "system"', async () => {
    const s = await scenario(t.db, { responseCount: 30 });
    // As in response-deletes.test.ts: 400 days, so a prune of the shared database finds nothing of other files' data.
    await setResponseRetention(t.db, s.ws, 400);
    const cutoff = '2026-01-10T20:00:00.000Z';
    const now = new Date(Date.parse(cutoff) + 400 * 86_400_000);
    const oldResponses = s.responses.filter((r) => r.created_at < cutoff).length;
    const oldEvents = s.events.filter((e) => e.created_at < cutoff).length;
    await pruneExpiredResponses(t.db, now, { batchSize: 5, pauseMs: 0 });
    const got = (await records(s.ws)).filter((r) => r.action === 'workspace.retention_deleted');
    expect(got.every((r) => r.actor === 'system' && r.target_type === 'workspace' && r.target_id === s.ws && r.request_id === null)).toBe(true);
    const sum = (kind: string) => got.filter((r) => r.changes.kind === kind).reduce((n, r) => n + (r.changes.deleted as number), 0);
    expect([sum('responses'), sum('email_events')]).toEqual([oldResponses, oldEvents]);
    expect(got.filter((r) => r.changes.kind === 'responses')).toHaveLength(Math.ceil(oldResponses / 5));
    expect(got.every((r) => r.changes.before === cutoff)).toBe(true);
    await expectChainVerifies(s.ws);
  });

  it('records an erasure run and a suppression lifted, never with the address', async () => {
    const s = await scenario(t.db, { responseCount: 2 });
    const actor = await keyIdOf(s);
    const address = `audit-${nanoid(8)
      .toLowerCase()
      .replace(/[^a-z0-9]/g, 'x')}@example.com`;
    await importFixture(t.db, { email_events: [{ workspace_id: s.ws, email_id: `em_${nanoid(6)}`, email: address, type: 'send' }] });
    const dry = await t
      .http()
      .post(`${api(s)}/erasure-requests`)
      .set('X-API-Key', s.key)
      .send({ email: address, dry_run: true });
    expect(dry.status).toBe(200);
    const run = await t
      .http()
      .post(`${api(s)}/erasure-requests`)
      .set('X-API-Key', s.key)
      .set('X-API-Style', 'B')
      .send({ email: address });
    expect(run.status).toBe(201);
    const id = run.body.data.id as string;
    const lift = () =>
      t
        .http()
        .delete(`${api(s)}/erasure-requests/${id}/suppression`)
        .set('X-API-Key', s.key);
    expect((await lift()).status).toBe(204);
    expect((await lift()).status).toBe(204); // lifted already: no change, no record
    const got = await records(s.ws);
    expect(got).toEqual([
      expect.objectContaining({
        actor,
        action: 'erasure_request.run',
        target_type: 'erasure_request',
        target_id: id,
        changes: {
          run: 1,
          by: ['email'],
          include_rows: false,
          removed: { responses: 0, email_events: 1, email_link_uses: 0, webhook_events: 0, idempotency_records: 0, datatable_rows: 0 },
        },
      }),
      expect.objectContaining({ actor, action: 'erasure_request.suppression_lifted', target_id: id, changes: { suppressed: false } }),
    ]);
    const stored = (await t.db('audit_events').where('workspace_id', s.ws)) as unknown[];
    const hash = ((await t.db('erasure_requests').where({ workspace_id: s.ws, id }).first()) as { address_hash: string }).address_hash;
    expect(JSON.stringify(stored)).not.toContain(address);
    expect(JSON.stringify(stored)).not.toContain(hash);
    await expectChainVerifies(s.ws);
  });
});
