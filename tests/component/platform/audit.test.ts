/**
 * The audit trail (docs/security.md, "The audit trail"): every change that is not a response submission is recorded
 * with its actor, target, request id and masked fields; `GET {ws}/audit-events` in both styles with filters and
 * paging, behind `audit:read`; the hash chain verifies, fails after tampering, stays whole under concurrent writes
 * and across the retention prune.
 */
import { createHash } from 'node:crypto';
import {
  pruneAuditEvents,
  recordAudit,
  sealAllAudit,
  sealAudit,
  verifyAuditChains,
  GENESIS_HASH,
  SEAL_GATHER_MS,
  SYSTEM_ORIGIN,
} from '../../../src/core/audit/audit.store';
import * as audit017 from '../../../migrations/20261127_017_audit';
import { DAY_MS } from '../../../src/core/query/dates';
import { ALL_SCOPES } from '../../../src/core/scopes';
import { withTransaction } from '../../../src/db';
import { onEmbeddedDb } from '../../support/db';
import { formWorkspace, keyFor } from '../../support/given';
import { useWebhookApp } from '../webhooks/harness';

// A database of the file's own (PGlite's is anyway): the retention test prunes every workspace's old records.
const t = useWebhookApp({}, { own: !onEmbeddedDb(), resolveHost: async () => [{ address: '93.184.215.14', family: 4 }] });

interface RecordA {
  id: string;
  seq: number;
  actor: string;
  action: string;
  target_type: string;
  target_id: string;
  request_id: string | null;
  client_address: string | null;
  changes: Record<string, unknown>;
  prev_hash: string;
  hash: string;
}

const auditA = async (ws: string, key: string, query = ''): Promise<RecordA[]> => {
  const res = await t.http().get(`/api/v1/workspaces/${ws}/audit-events${query}`).set('X-API-Key', key).set('X-API-Style', 'A');
  expect(res.status).toBe(200);
  return res.body.data as RecordA[];
};

/** The id of the key whose secret is `secret` (its prefix is the secret's first 8 characters). */
async function keyId(ws: string, secret: string): Promise<string> {
  const res = await t.http().get(`/api/v1/workspaces/${ws}/api-keys`).set('X-API-Key', secret);
  return (res.body.data as Array<{ id: string; prefix: string }>).find((k) => secret.startsWith(k.prefix))!.id;
}

/** Whether one workspace's chain verifies; the first problem otherwise. */
async function chainOf(ws: string) {
  const [check] = await verifyAuditChains(t.db, { workspaceId: ws });
  return check!;
}

/** Runs `fn` with the append-only trigger off: what an operator with SQL access could do. */
async function tamper(fn: () => Promise<unknown>): Promise<void> {
  await t.db.raw('ALTER TABLE audit_events DISABLE TRIGGER audit_events_append_only');
  try {
    await fn();
  } finally {
    await t.db.raw('ALTER TABLE audit_events ENABLE TRIGGER audit_events_append_only');
  }
}

describe('what is recorded', () => {
  it('records key, webhook, row and dashboard-link changes with actor, target, request id and no secret', async () => {
    const s = await formWorkspace(t.db);
    const me = await keyId(s.ws, s.key);
    const api = (method: 'post' | 'patch' | 'delete', path: string, body?: object) =>
      t.http()[method](`/api/v1/workspaces/${s.ws}${path}`).set('X-API-Key', s.key).set('X-Forwarded-For', '198.51.100.7').send(body);

    const created = await api('post', '/api-keys', { name: 'CI', scopes: ['forms:read'] });
    expect(created.status).toBe(201);
    const revoked = await api('delete', `/api-keys/${created.body.data.id}`);
    expect(revoked.status).toBe(204);
    const endpoint = await api('post', '/webhook-endpoints', { url: 'https://hooks.example.com/in?token=tok_sekrit', events: ['row.created'] });
    expect(endpoint.status).toBe(201);
    const we = endpoint.body.data.id as string;
    expect((await api('patch', `/webhook-endpoints/${we}`, { description: 'CRM' })).status).toBe(200);
    const rotated = await api('post', `/webhook-endpoints/${we}/rotate-secret`, { immediate: true });
    expect(rotated.status).toBe(200);
    const row = await api('post', `/datatables/${s.table}/rows`, { data: { id: 'c-new', plan: 'basic' } });
    expect(row.status).toBe(201);
    const rows = await api('post', `/datatables/${s.table}/rows`, { data: [{ id: 'c-new', plan: 'pro' }, { id: 'c-2' }] });
    expect(rows.status).toBe(200);
    expect((await api('patch', `/datatables/${s.table}/rows/${row.body.data.row_id}`, { data: { plan: null } })).status).toBe(200);
    expect((await api('delete', `/datatables/${s.table}/rows/${row.body.data.row_id}`)).status).toBe(204);
    const link = await api('post', `/forms/${s.form}/dashboard-links`, {});
    expect(link.status).toBe(201);
    expect((await api('delete', `/forms/${s.form}/dashboard-links/${link.body.data.id}`)).status).toBe(204);
    expect((await api('delete', `/webhook-endpoints/${we}`)).status).toBe(204);

    // Newest first by time, then id: the records of one transaction share their time, so order them by seq here.
    const records = (await auditA(s.ws, s.key, '?limit=100')).sort((x, y) => x.seq - y.seq);
    expect(records.map((r) => [r.action, r.target_type])).toEqual([
      ['api_key.created', 'api_key'],
      ['api_key.revoked', 'api_key'],
      ['webhook_endpoint.created', 'webhook_endpoint'],
      ['webhook_endpoint.updated', 'webhook_endpoint'],
      ['webhook_endpoint.secret_rotated', 'webhook_endpoint'],
      ['datatable_row.created', 'datatable_row'],
      ['datatable_row.updated', 'datatable_row'],
      ['datatable_row.created', 'datatable_row'],
      ['datatable_row.updated', 'datatable_row'],
      ['datatable_row.deleted', 'datatable_row'],
      ['dashboard_link.created', 'dashboard_link'],
      ['dashboard_link.revoked', 'dashboard_link'],
      ['webhook_endpoint.deleted', 'webhook_endpoint'],
    ]);
    expect(records.map((r) => r.seq)).toEqual(records.map((_, i) => i + 1));
    for (const r of records) expect(r).toMatchObject({ actor: me, request_id: expect.stringMatching(/.+/) });
    expect(records[0]).toMatchObject({
      target_id: created.body.data.id,
      request_id: created.body.request_id,
      changes: { name: 'CI', scopes: ['forms:read'], secret: '[masked]' },
    });
    expect(records[2]).toMatchObject({ target_id: we, changes: { url: 'https://hooks.example.com/in?token=%5Bmasked%5D', secret: '[masked]' } });
    expect(records[5]).toMatchObject({ target_id: row.body.data.row_id, changes: { datatable_id: s.table, fields: ['id', 'plan'], removed: [] } });
    expect(records[8]).toMatchObject({ changes: { fields: [], removed: ['plan'] } });
    expect(records[0]!.prev_hash).toBe(GENESIS_HASH);
    expect(records[1]!.prev_hash).toBe(records[0]!.hash);

    const text = JSON.stringify(records);
    for (const secret of [created.body.data.secret, endpoint.body.data.secret, rotated.body.data.secret, 'tok_sekrit', link.body.data.url]) {
      expect(text).not.toContain(secret);
    }
    // Row values are not kept (an erasure could not remove them from an append-only trail): column names only.
    expect(text).not.toContain('basic');
    expect((await chainOf(s.ws)).firstBad).toBeUndefined();
  });

  it('records nothing when the change fails, and refuses an UPDATE of a record', async () => {
    const s = await formWorkspace(t.db);
    const bad = await t
      .http()
      .post(`/api/v1/workspaces/${s.ws}/datatables/${s.table}/rows`)
      .set('X-API-Key', s.key)
      .send({ data: { seats: 'x' } });
    expect(bad.status).toBe(400);
    expect(await auditA(s.ws, s.key)).toEqual([]);
    await t
      .http()
      .post(`/api/v1/workspaces/${s.ws}/datatables/${s.table}/rows`)
      .set('X-API-Key', s.key)
      .send({ data: { id: 'c-1' } });
    await expect(t.db('audit_events').where('workspace_id', s.ws).update({ actor: 'x' })).rejects.toThrow(/append-only/);
  });

  it("records a key made for two workspaces in each, naming neither the other's id", async () => {
    const a = await formWorkspace(t.db);
    const b = await formWorkspace(t.db);
    const both = await keyFor(t.db, [a.ws, b.ws]);
    const res = await t
      .http()
      .post(`/api/v1/workspaces/${a.ws}/api-keys`)
      .set('X-API-Key', both)
      .send({ name: 'two', workspace_ids: [a.ws, b.ws] });
    expect(res.status).toBe(201);
    for (const [ws, other] of [
      [a.ws, b.ws],
      [b.ws, a.ws],
    ] as const) {
      const records = await auditA(ws, both);
      expect(records).toMatchObject([{ action: 'api_key.created', target_id: res.body.data.id, seq: 1 }]);
      expect(JSON.stringify(records)).not.toContain(other);
    }
  });

  it('records the worker as "system"', async () => {
    const s = await formWorkspace(t.db);
    await withTransaction(t.db, (trx) =>
      recordAudit(trx, SYSTEM_ORIGIN, { workspaceId: s.ws, action: 'webhook_endpoint.disabled', targetType: 'webhook_endpoint', targetId: 'we_x' }),
    );
    expect(await auditA(s.ws, s.key, '?actor=system')).toMatchObject([{ actor: 'system', request_id: null, client_address: null }]);
  });
});

describe('GET {ws}/audit-events', () => {
  async function workspaceWithRecords(n: number) {
    const s = await formWorkspace(t.db);
    for (let i = 0; i < n; i++) {
      await t
        .http()
        .post(`/api/v1/workspaces/${s.ws}/datatables/${s.table}/rows`)
        .set('X-API-Key', s.key)
        .send({ data: { id: `c-${i}` } });
    }
    return s;
  }

  it('pages with a cursor in Style A and filters by action and target', async () => {
    const s = await workspaceWithRecords(5);
    const first = await t.http().get(`/api/v1/workspaces/${s.ws}/audit-events?limit=2`).set('X-API-Key', s.key).set('X-API-Style', 'A');
    expect(first.status).toBe(200);
    expect(first.body.meta).toEqual({ limit: 2, has_more: true });
    expect(first.body.data.map((r: RecordA) => r.seq)).toEqual([5, 4]);
    const next = await t
      .http()
      .get(new URL(first.body.links.next as string).pathname + new URL(first.body.links.next as string).search)
      .set('X-API-Key', s.key);
    expect(next.body.data.map((r: RecordA) => r.seq)).toEqual([3, 2]);
    const target = first.body.data[0].target_id as string;
    expect((await auditA(s.ws, s.key, `?target_id=${target}`)).map((r) => r.seq)).toEqual([5]);
    expect(await auditA(s.ws, s.key, '?action=api_key.created')).toEqual([]);
    expect((await auditA(s.ws, s.key, '?target_type=datatable_row&created_after=2020-01-01')).length).toBe(5);
    expect(await auditA(s.ws, s.key, '?created_before=2020-01-01')).toEqual([]);
  });

  it('pages with page/limit and totals in Style B, camelCase, with filter', async () => {
    const s = await workspaceWithRecords(3);
    const res = await t.http().get(`/api/v1/workspaces/${s.ws}/audit-events?page=2&limit=2`).set('X-API-Key', s.key);
    expect(res.status).toBe(200);
    expect(res.headers['x-api-style']).toBe('B');
    expect(res.body.meta).toEqual({ total: 3, page: 2, limit: 2, filtered_total: 3 });
    expect(res.body.data).toMatchObject([{ seq: 1, action: 'datatable_row.created', targetType: 'datatable_row', prevHash: GENESIS_HASH }]);
    const filtered = await t
      .http()
      .get(`/api/v1/workspaces/${s.ws}/audit-events`)
      .query({ filter: 'action = datatable_row.created', start_date: '2020-01-01' })
      .set('X-API-Key', s.key);
    expect(filtered.body.meta).toMatchObject({ total: 3, filtered_total: 3 });
    const none = await t.http().get(`/api/v1/workspaces/${s.ws}/audit-events`).query({ filter: 'actor = cli' }).set('X-API-Key', s.key);
    expect(none.body.meta).toMatchObject({ total: 3, filtered_total: 0 });
  });

  it('answers 400 naming the field for a bad limit, date or filter', async () => {
    const s = await workspaceWithRecords(0);
    const get = (q: string, style = 'A') => t.http().get(`/api/v1/workspaces/${s.ws}/audit-events${q}`).set('X-API-Key', s.key).set('X-API-Style', style);
    expect((await get('?limit=101')).body.error).toMatchObject({ code: 'validation_error', details: [{ field: 'limit' }] });
    expect((await get('?created_after=yesterday')).body.error).toMatchObject({ code: 'validation_error', details: [{ field: 'created_after' }] });
    expect((await get('?filter=nope%20%3D%201', 'B')).body.error).toMatchObject({ code: 'validation_error' });
    expect((await get('?cursor=abc&page=2', 'B')).status).toBe(400);
  });

  it('needs the audit:read scope (403 otherwise) and the workspace (403 for another)', async () => {
    const s = await formWorkspace(t.db);
    const other = await formWorkspace(t.db);
    const noAudit = await keyFor(t.db, [s.ws], { scopes: ['api_keys:read', 'datatables:write'] });
    const res = await t.http().get(`/api/v1/workspaces/${s.ws}/audit-events`).set('X-API-Key', noAudit);
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ code: 'insufficient_scope' });
    const cross = await t.http().get(`/api/v1/workspaces/${other.ws}/audit-events`).set('X-API-Key', s.key);
    expect(cross.status).toBe(403);
    const only = await keyFor(t.db, [s.ws], { scopes: ['audit:read'] });
    expect((await t.http().get(`/api/v1/workspaces/${s.ws}/audit-events`).set('X-API-Key', only)).status).toBe(200);
  });
});

describe('the hash chain', () => {
  it('verifies, then names the first record changed, removed from the middle or from the end', async () => {
    const s = await formWorkspace(t.db);
    for (let i = 0; i < 4; i++) {
      await t
        .http()
        .post(`/api/v1/workspaces/${s.ws}/datatables/${s.table}/rows`)
        .set('X-API-Key', s.key)
        .send({ data: { id: `c-${i}` } });
    }
    expect(await chainOf(s.ws)).toEqual({ workspaceId: s.ws, records: 4, headHash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const second = await t.db('audit_events').where({ workspace_id: s.ws, seq: 2 }).first('id');

    await tamper(() => t.db('audit_events').where({ workspace_id: s.ws, seq: 2 }).update({ actor: 'key_someone_else' }));
    expect((await chainOf(s.ws)).firstBad).toMatchObject({ id: second.id, seq: 2, problem: expect.stringMatching(/hash does not match/) });

    const s2 = await formWorkspace(t.db);
    for (let i = 0; i < 3; i++) {
      await t
        .http()
        .post(`/api/v1/workspaces/${s2.ws}/datatables/${s2.table}/rows`)
        .set('X-API-Key', s2.key)
        .send({ data: { id: `c-${i}` } });
    }
    // Records are sealed just after their write answers: the check seals them before the tampering below.
    expect((await chainOf(s2.ws)).firstBad).toBeUndefined();
    await t.db('audit_events').where({ workspace_id: s2.ws, seq: 3 }).delete();
    expect((await chainOf(s2.ws)).firstBad).toMatchObject({ problem: expect.stringMatching(/records missing at the end/) });
    await t.db('audit_events').where({ workspace_id: s2.ws, seq: 1 }).delete();
    expect((await chainOf(s2.ws)).firstBad).toMatchObject({ seq: 2, problem: expect.stringMatching(/expected seq 1/) });
  });

  it('stays one unbroken chain under concurrent writes in one workspace', async () => {
    const s = await formWorkspace(t.db);
    const writes = Array.from({ length: 16 }, (_, i) =>
      t
        .http()
        .post(`/api/v1/workspaces/${s.ws}/datatables/${s.table}/rows`)
        .set('X-API-Key', s.key)
        .send({ data: i % 2 ? [{ id: `a-${i}` }, { id: `b-${i}` }] : { id: `c-${i}` } }),
    );
    const answers = await Promise.all(writes);
    expect(answers.map((a) => a.status).every((st) => st === 200 || st === 201)).toBe(true);
    expect(await chainOf(s.ws)).toEqual({ workspaceId: s.ws, records: 24, headHash: expect.stringMatching(/^[0-9a-f]{64}$/) });
  });

  it('keeps verifying after the retention prune, from the last pruned record', async () => {
    const s = await formWorkspace(t.db);
    const write = (id: string) => t.http().post(`/api/v1/workspaces/${s.ws}/datatables/${s.table}/rows`).set('X-API-Key', s.key).send({ data: { id } });
    await write('old-1');
    await write('old-2');
    await new Promise((r) => setTimeout(r, 20));
    const between = Date.now();
    await new Promise((r) => setTimeout(r, 20));
    await write('new-1');
    // Retention of 1 day, as of one day after `between`: the two older records go.
    const pruned = await pruneAuditEvents(t.db, 1, new Date(between + DAY_MS), { batchSize: 1, pauseMs: 0 });
    expect(pruned).toBeGreaterThanOrEqual(2);
    expect((await auditA(s.ws, s.key)).map((r) => r.seq)).toEqual([3]);
    expect(await chainOf(s.ws)).toEqual({ workspaceId: s.ws, records: 1, headHash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const head = await t.db('audit_chain_heads').where('workspace_id', s.ws).first();
    expect(Number(head.pruned_seq)).toBe(2);
    await write('new-2');
    expect(await chainOf(s.ws)).toEqual({ workspaceId: s.ws, records: 2, headHash: expect.stringMatching(/^[0-9a-f]{64}$/) });
  });
});

describe('sealing (appends that never wait for each other)', () => {
  const record = (ws: string, targetId: string) => ({ workspaceId: ws, action: 'webhook_endpoint.disabled', targetType: 'webhook_endpoint', targetId });
  const rowsOf = (ws: string) =>
    t.db('audit_events').where('workspace_id', ws).orderBy('append_no').select('target_id', 'seq') as Promise<Array<{ target_id: string; seq: string | null }>>;

  (onEmbeddedDb() ? it.skip : it)('commits a write while another transaction holds an uncommitted record of the same workspace', async () => {
    const s = await formWorkspace(t.db);
    const first = await t.db.transaction();
    try {
      await recordAudit(first, SYSTEM_ORIGIN, record(s.ws, 'we_first'));
      // The head was locked until commit before: this write would wait for `first` forever (the test's timeout).
      const second = await t
        .http()
        .post(`/api/v1/workspaces/${s.ws}/datatables/${s.table}/rows`)
        .set('X-API-Key', s.key)
        .send({ data: { id: 'c-1' } });
      expect(second.status).toBe(201);
      expect((await auditA(s.ws, s.key)).map((r) => [r.action, r.seq])).toEqual([['datatable_row.created', 1]]);
      await first.commit();
    } finally {
      if (!first.isCompleted()) await first.rollback();
    }
    const records = (await auditA(s.ws, s.key)).sort((x, y) => x.seq - y.seq);
    expect(records.map((r) => [r.target_id, r.seq])).toEqual([
      [expect.stringMatching(/^row_/), 1],
      ['we_first', 2],
    ]);
    expect(records[1]!.prev_hash).toBe(records[0]!.hash);
    expect(await chainOf(s.ws)).toEqual({ workspaceId: s.ws, records: 2, headHash: records[1]!.hash });
  });

  it('verifies one chain after concurrent appends from transactions of their own', async () => {
    const s = await formWorkspace(t.db);
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        withTransaction(t.db, (trx) => recordAudit(trx, SYSTEM_ORIGIN, i % 3 ? record(s.ws, `we_${i}`) : [record(s.ws, `we_${i}a`), record(s.ws, `we_${i}b`)])),
      ),
    );
    expect(await chainOf(s.ws)).toEqual({ workspaceId: s.ws, records: 16, headHash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    // A batch keeps its order in the chain (not its adjacency: concurrent inserts take sequence values between its rows).
    const seqOf = new Map((await rowsOf(s.ws)).map((r) => [r.target_id, Number(r.seq)]));
    for (const i of [0, 3, 6, 9]) expect(seqOf.get(`we_${i}b`)).toBeGreaterThan(seqOf.get(`we_${i}a`)!);
  });

  it('seals committed records on its own, SEAL_GATHER_MS after the commit, with no reader asking', async () => {
    const s = await formWorkspace(t.db);
    await Promise.all(['we_g1', 'we_g2', 'we_g3'].map((id) => withTransaction(t.db, (trx) => recordAudit(trx, SYSTEM_ORIGIN, record(s.ws, id)))));
    // Nothing here reads the list or runs the check: only the seal started by the commits can number them.
    const deadline = Date.now() + 10 * SEAL_GATHER_MS + 5_000;
    let rows = await rowsOf(s.ws);
    while (rows.some((r) => r.seq === null) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, SEAL_GATHER_MS));
      rows = await rowsOf(s.ws);
    }
    expect(rows.map((r) => Number(r.seq)).sort()).toEqual([1, 2, 3]);
  });

  it('seals a record its process left unsealed (no seal after commit) in the sweep, the list and the check', async () => {
    const s = await formWorkspace(t.db);
    // A transaction not opened by withTransaction starts no seal: what a process stopped right after its commit leaves.
    const leave = (id: string) => t.db.transaction((trx) => recordAudit(trx, SYSTEM_ORIGIN, record(s.ws, id)));
    await leave('we_swept');
    expect(await rowsOf(s.ws)).toEqual([{ target_id: 'we_swept', seq: null }]);
    expect(await sealAllAudit(t.db)).toContain(s.ws);
    expect((await rowsOf(s.ws)).map((r) => Number(r.seq))).toEqual([1]);

    await leave('we_listed');
    expect((await auditA(s.ws, s.key)).map((r) => [r.target_id, r.seq])).toEqual([
      ['we_listed', 2],
      ['we_swept', 1],
    ]);
    await leave('we_checked');
    expect(await chainOf(s.ws)).toEqual({ workspaceId: s.ws, records: 3, headHash: expect.stringMatching(/^[0-9a-f]{64}$/) });
  });

  it('refuses every UPDATE but sealing an unsealed record, and still names a tampered sealed one', async () => {
    const s = await formWorkspace(t.db);
    await t.db.transaction((trx) => recordAudit(trx, SYSTEM_ORIGIN, record(s.ws, 'we_1')));
    const where = { workspace_id: s.ws, target_id: 'we_1' };
    // Unsealed: neither its content nor a seal that also changes its content.
    await expect(t.db('audit_events').where(where).update({ actor: 'x' })).rejects.toThrow(/append-only/);
    await expect(
      t
        .db('audit_events')
        .where(where)
        .update({ actor: 'x', seq: 1, prev_hash: GENESIS_HASH, hash: 'f'.repeat(64) }),
    ).rejects.toThrow(/append-only/);
    await sealAudit(t.db, s.ws);
    // Sealed: not even sealed again.
    await expect(
      t
        .db('audit_events')
        .where(where)
        .update({ seq: 5, prev_hash: GENESIS_HASH, hash: 'f'.repeat(64) }),
    ).rejects.toThrow(/append-only/);
    await tamper(() => t.db('audit_events').where(where).update({ target_id: 'we_2' }));
    expect((await chainOf(s.ws)).firstBad).toMatchObject({ seq: 1, problem: expect.stringMatching(/hash does not match/) });
  });

  it('prunes only a sealed prefix of a chain whose times are not in seq order, never an unsealed record', async () => {
    const s = await formWorkspace(t.db);
    const at = (iso: string, id: string) =>
      t.db('audit_events').insert({ workspace_id: s.ws, id, created_at: new Date(iso), actor: 'cli', action: 'x.y', target_type: 'x', target_id: id });
    // Sealed in this order (append_no): old, new, old again (written a moment earlier, sealed a moment later).
    await at('2001-01-01T00:00:00Z', 'aud_old1');
    await at('2001-03-01T00:00:00Z', 'aud_new');
    await at('2001-01-02T00:00:00Z', 'aud_old2');
    await sealAudit(t.db, s.ws);
    await at('2001-01-03T00:00:00Z', 'aud_unsealed');
    const pruned = await pruneAuditEvents(t.db, 30, new Date('2001-03-01T00:00:00Z'), { batchSize: 1, pauseMs: 0 });
    expect(pruned).toBe(1);
    expect((await t.db('audit_events').where('workspace_id', s.ws).orderBy('append_no')).map((r: { id: string }) => r.id)).toEqual([
      'aud_new',
      'aud_old2',
      'aud_unsealed',
    ]);
    expect(await chainOf(s.ws)).toEqual({ workspaceId: s.ws, records: 3, headHash: expect.stringMatching(/^[0-9a-f]{64}$/) });
  });
});

describe('the scope migration', () => {
  it('gives audit:read to keys holding the fourteen scopes of before, not to narrower ones', async () => {
    const { ws } = await formWorkspace(t.db);
    const before = ALL_SCOPES.filter((sc) => sc !== 'audit:read');
    const all = await keyFor(t.db, [ws], { scopes: before });
    const narrow = await keyFor(t.db, [ws], { scopes: ['forms:read'] });
    const scopesOf = async (secret: string) =>
      ((await t.db('api_keys').where('key_hash', createHash('sha256').update(secret).digest('hex')).first('scopes')) as { scopes: string[] }).scopes;
    expect(await scopesOf(all)).not.toContain('audit:read');
    await audit017.up(t.db);
    await audit017.up(t.db);
    expect((await scopesOf(all)).filter((sc) => sc === 'audit:read')).toEqual(['audit:read']);
    expect(await scopesOf(narrow)).toEqual(['forms:read']);
  });
});
