/**
 * The audit trail (docs/security.md, "The audit trail"; issue 30, item 5): the store of `audit_events` and
 * `audit_chain_heads` (migration 017). Every change that is not a response submission is recorded here, append-only,
 * in the transaction of the change, by calling `recordAudit(trx, origin, event)`; the list
 * (`GET {ws}/audit-events`), the chain check (`feedback-service audit verify`) and the retention prune read and
 * delete through this module only.
 *
 * The chain: a workspace's records are numbered `seq` 1, 2, 3, … in the order they were appended; each holds the
 * `hash` of the record before it (`prevHash`; GENESIS_HASH for the first) and its own `hash`, the SHA-256 (hex) of
 * the canonical JSON (core/canonical-json.ts) of every stored field (recordHash). Appends in one workspace are
 * serialized by locking the workspace's row of `audit_chain_heads` FOR UPDATE (the same on PostgreSQL and PGlite),
 * which also holds the last `seq`, `hash` and time, and the last pruned record's `seq` and `hash`: the oldest kept
 * record must follow it, and the last record must be the head, so a record changed, removed (first, last or in the
 * middle) or inserted afterwards is named by verifyAuditChains.
 */
import { createHash } from 'node:crypto';
import type { DbHandle, DbTransaction } from '../../db';
import { canonicalJson } from '../canonical-json';
import { newId } from '../ids';
import type { DateBound } from '../query/dates';
import { DAY_MS } from '../query/dates';
import { fieldMap, type ListField } from '../query/fields';
import { compileFilter } from '../query/filter';
import { countRows, fetchKeysetPage, fetchOffsetPage, type KeysetPage, type KeysetQuery, type OffsetPage, type OffsetQuery } from '../query/list';
import { parseSortNewestFirst } from '../query/sort';
import { sql } from '../query/sql';
import type { BatchOptions } from '../../db/batches';
import { deleteInBatches } from '../../db/batches';

/** The `prevHash` of a workspace's first record: 64 zeros. */
export const GENESIS_HASH = '0'.repeat(64);

/** Default of `AUDIT_RETENTION_DAYS` (docs/operations.md, "What grows, and what bounds it"). */
export const DEFAULT_AUDIT_RETENTION_DAYS = 400;

/** What a masked value reads in `changes`. */
export const MASKED = '[masked]';

/**
 * Who made a change and from where. `actor` is the API key id for a request, `"system"` for the worker, `"cli"` for
 * the `feedback-service` command; `requestId` and `clientAddress` are null outside a request.
 */
export interface AuditOrigin {
  actor: string;
  requestId: string | null;
  clientAddress: string | null;
}

/** The worker's origin. */
export const SYSTEM_ORIGIN: AuditOrigin = Object.freeze({ actor: 'system', requestId: null, clientAddress: null });
/** The CLI's origin. */
export const CLI_ORIGIN: AuditOrigin = Object.freeze({ actor: 'cli', requestId: null, clientAddress: null });

/**
 * One change to record. `action` is `<target type>.<past participle>` (`api_key.created`, `webhook_endpoint.updated`,
 * `datatable_row.deleted`; docs/security.md lists those recorded today). `changes` are the fields set, with their new
 * values; values of members named like a secret (`secret`, `password`, `token`, `credential`) are replaced by
 * `[masked]` and a member named `url` loses its user info and query values (maskChanges), whatever the caller sends.
 */
export interface AuditEventInput {
  workspaceId: string;
  action: string;
  targetType: string;
  targetId: string;
  changes?: Record<string, unknown>;
}

/** A stored record (times are UTC Dates). */
export interface AuditEvent {
  id: string;
  workspaceId: string;
  seq: number;
  createdAt: Date;
  actor: string;
  action: string;
  targetType: string;
  targetId: string;
  requestId: string | null;
  clientAddress: string | null;
  changes: Record<string, unknown>;
  prevHash: string;
  hash: string;
}

interface AuditRow {
  id: string;
  workspace_id: string;
  seq: string | number;
  created_at: Date;
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

const COLUMNS = [
  'id',
  'workspace_id',
  'seq',
  'created_at',
  'actor',
  'action',
  'target_type',
  'target_id',
  'request_id',
  'client_address',
  'changes',
  'prev_hash',
  'hash',
] as const;

const toEvent = (r: AuditRow): AuditEvent => ({
  id: r.id,
  workspaceId: r.workspace_id,
  seq: Number(r.seq),
  createdAt: r.created_at,
  actor: r.actor,
  action: r.action,
  targetType: r.target_type,
  targetId: r.target_id,
  requestId: r.request_id,
  clientAddress: r.client_address,
  changes: r.changes,
  prevHash: r.prev_hash,
  hash: r.hash,
});

// Masking.

const SECRET_NAME = /secret|password|passwd|token|credential|key_hash/i;

/** A URL without user info and with every query value replaced (a webhook URL may carry a token); unparsable: masked whole. */
export function maskUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return MASKED;
  }
  url.username = '';
  url.password = '';
  for (const name of [...url.searchParams.keys()]) url.searchParams.set(name, MASKED);
  return url.toString();
}

/**
 * `changes` as recorded: JSON values only (a Date becomes its ISO text, `undefined` members go), secret-named members
 * `[masked]` at every depth (a null stays null: "cleared" says nothing secret), `url` members through maskUrl.
 */
export function maskChanges(changes: Record<string, unknown>): Record<string, unknown> {
  const plain = JSON.parse(JSON.stringify(changes)) as unknown;
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (v === null || typeof v !== 'object') return v;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      if (SECRET_NAME.test(k) && x !== null) out[k] = MASKED;
      else if (k === 'url' && typeof x === 'string') out[k] = maskUrl(x);
      else out[k] = walk(x);
    }
    return out;
  };
  return walk(plain) as Record<string, unknown>;
}

// Hashing.

/** The SHA-256 (hex) of a record's canonical JSON: every stored field but `hash`, times as ISO text. */
export function recordHash(e: Omit<AuditEvent, 'hash'>): string {
  const body = {
    id: e.id,
    workspace_id: e.workspaceId,
    seq: e.seq,
    created_at: e.createdAt.toISOString(),
    actor: e.actor,
    action: e.action,
    target_type: e.targetType,
    target_id: e.targetId,
    request_id: e.requestId,
    client_address: e.clientAddress,
    changes: e.changes,
    prev_hash: e.prevHash,
  };
  return createHash('sha256').update(canonicalJson(body), 'utf8').digest('hex');
}

// Writes.

interface HeadRow {
  last_seq: string | number;
  last_hash: string;
  last_at: Date | null;
}

/**
 * Appends records to the audit trail in the caller's transaction, in order, each chained to the one before it in its
 * workspace. Appends to one workspace wait for each other (the chain head's row lock, held until the caller's
 * transaction ends), so call it late in the transaction, after the change itself has been checked and written; a
 * transaction that rolls back leaves neither the change nor its record.
 * @param trx the transaction of the change (never the bare database handle: the record must commit with the change).
 * @param origin who and from where (auditOrigin(req) in an adapter; SYSTEM_ORIGIN, CLI_ORIGIN).
 * @param events one record, or several (a batch write: one per row); several workspaces may be mixed.
 * @returns the stored records, in the order given.
 * Spec: docs/security.md, "The audit trail".
 */
export async function recordAudit(trx: DbTransaction, origin: AuditOrigin, events: AuditEventInput | readonly AuditEventInput[]): Promise<AuditEvent[]> {
  const list = Array.isArray(events) ? (events as readonly AuditEventInput[]) : [events as AuditEventInput];
  const stored = new Array<AuditEvent>(list.length);
  // Heads are locked in workspace order, so two transactions writing to the same workspaces never wait on each other in a circle.
  for (const workspaceId of [...new Set(list.map((e) => e.workspaceId))].sort()) {
    const at = list.flatMap((e, i) => (e.workspaceId === workspaceId ? [i] : []));
    const records = await appendToChain(
      trx,
      origin,
      workspaceId,
      at.map((i) => list[i]!),
    );
    at.forEach((i, k) => (stored[i] = records[k]!));
  }
  return stored;
}

async function appendToChain(trx: DbTransaction, origin: AuditOrigin, workspaceId: string, events: readonly AuditEventInput[]): Promise<AuditEvent[]> {
  await trx('audit_chain_heads')
    .insert({ workspace_id: workspaceId, last_seq: 0, last_hash: GENESIS_HASH, pruned_seq: 0, pruned_hash: GENESIS_HASH })
    .onConflict('workspace_id')
    .ignore();
  const head = (await trx('audit_chain_heads').where('workspace_id', workspaceId).forUpdate().first('last_seq', 'last_hash', 'last_at')) as HeadRow;
  let seq = Number(head.last_seq);
  let prevHash = head.last_hash;
  // Never earlier than the record before (clocks of instances differ): the prune deletes by time and must take the oldest.
  const now = new Date();
  const createdAt = head.last_at !== null && head.last_at.getTime() > now.getTime() ? head.last_at : now;
  const out: AuditEvent[] = [];
  for (const e of events) {
    seq += 1;
    const record: Omit<AuditEvent, 'hash'> = {
      id: newId('auditEvent'),
      workspaceId,
      seq,
      createdAt,
      actor: origin.actor,
      action: e.action,
      targetType: e.targetType,
      targetId: e.targetId,
      requestId: origin.requestId,
      clientAddress: origin.clientAddress,
      changes: maskChanges(e.changes ?? {}),
      prevHash,
    };
    const hash = recordHash(record);
    out.push({ ...record, hash });
    prevHash = hash;
  }
  for (let i = 0; i < out.length; i += 500) {
    await trx('audit_events').insert(
      out.slice(i, i + 500).map((r) => ({
        workspace_id: r.workspaceId,
        seq: r.seq,
        id: r.id,
        created_at: r.createdAt,
        actor: r.actor,
        action: r.action,
        target_type: r.targetType,
        target_id: r.targetId,
        request_id: r.requestId,
        client_address: r.clientAddress,
        changes: JSON.stringify(r.changes),
        prev_hash: r.prevHash,
        hash: r.hash,
      })),
    );
  }
  await trx('audit_chain_heads').where('workspace_id', workspaceId).update({ last_seq: seq, last_hash: prevHash, last_at: createdAt });
  return out;
}

// Reads.

const col = (name: string, column: string, type: ListField['type'], nullable = false): ListField => ({ name, expr: sql('??', column), type, nullable });
const ID = col('id', 'id', 'text');
const SORT_FIELDS = fieldMap([col('created_at', 'created_at', 'timestamp')]);
/** Style B `filter` fields (docs/api-rules.md, "Filter language"). */
const FILTER_FIELDS = fieldMap([
  col('actor', 'actor', 'text'),
  col('action', 'action', 'text'),
  col('target_type', 'target_type', 'text'),
  col('target_id', 'target_id', 'text'),
  col('request_id', 'request_id', 'text', true),
]);

/** The narrowing of an audit list: each given value must match exactly; `created` bounds are half-open. */
export interface AuditListQuery {
  actor?: string | undefined;
  action?: string | undefined;
  targetType?: string | undefined;
  targetId?: string | undefined;
  created?: readonly DateBound[];
  /** Style B's filter expression over `actor`, `action`, `target_type`, `target_id`, `request_id`. */
  filter?: string | undefined;
}

function auditQuery(db: DbHandle, workspaceId: string, q: AuditListQuery) {
  const keys = parseSortNewestFirst(undefined, { fields: SORT_FIELDS, tieBreaker: ID, multi: false });
  const base = db('audit_events')
    .select(...COLUMNS)
    .where('workspace_id', workspaceId);
  if (q.actor !== undefined) base.where('actor', q.actor);
  if (q.action !== undefined) base.where('action', q.action);
  if (q.targetType !== undefined) base.where('target_type', q.targetType);
  if (q.targetId !== undefined) base.where('target_id', q.targetId);
  for (const b of q.created ?? []) base.where('created_at', b.op, b.value);
  if (q.filter !== undefined) {
    const { where } = compileFilter(q.filter, { fields: FILTER_FIELDS });
    base.whereRaw(where.sql, where.bindings);
  }
  return { keys, base };
}

/**
 * A workspace's audit records, newest first (`created_at`, then `id`), narrowed by q, as a keyset page (Style A).
 * @throws AppError validation_error for a cursor of another list or order.
 * Spec: GET {ws}/audit-events (Style A).
 */
export async function listAuditKeyset(db: DbHandle, workspaceId: string, q: KeysetQuery<AuditListQuery>): Promise<KeysetPage<AuditEvent>> {
  const { keys, base } = auditQuery(db, workspaceId, q);
  const { limit, cursor } = q.pagination;
  const page = await fetchKeysetPage<AuditRow & Record<string, unknown>>(db, base, keys, limit, cursor, `audit_events:${workspaceId}`);
  return { kind: 'keyset', items: page.rows.map(toEvent), limit, nextCursor: page.nextCursor, prevCursor: page.prevCursor };
}

/**
 * The same list as an offset page (Style B) with `total` (the workspace's records) and `filteredTotal`.
 * @throws AppError validation_error for a filter problem or a `page` too large.
 * Spec: GET {ws}/audit-events (Style B).
 */
export async function listAuditOffset(db: DbHandle, workspaceId: string, q: OffsetQuery<AuditListQuery>): Promise<OffsetPage<AuditEvent>> {
  const { keys, base } = auditQuery(db, workspaceId, q);
  const { page, limit } = q.pagination;
  const [rows, total, filteredTotal] = await Promise.all([
    fetchOffsetPage<AuditRow>(base, keys, page, limit, ['workspace_id', 'seq']),
    countRows(db('audit_events').where('workspace_id', workspaceId)),
    countRows(base),
  ]);
  return { kind: 'page', items: rows.map(toEvent), page, limit, total, filteredTotal };
}

// The chain check.

/** The outcome of one workspace's chain. */
export interface ChainCheck {
  workspaceId: string;
  /** Records read. */
  records: number;
  /** The last record's hash (the head), or the pruned head's when none is kept. */
  headHash: string;
  /** The first record found wrong, and why; undefined when the chain is intact. */
  firstBad?: { id: string | null; seq: number; problem: string };
}

interface FullHead {
  last_seq: string | number;
  last_hash: string;
  pruned_seq: string | number;
  pruned_hash: string;
}

/**
 * Walks every chain (or one workspace's) from its oldest kept record to its head, 1,000 records at a time: each
 * record must carry the next `seq`, the previous record's hash (the oldest kept one: the last pruned record's, or
 * GENESIS_HASH), and a hash equal to recordHash of its fields; the last one must be the head `audit_chain_heads`
 * holds. A workspace with records and no head, or a head with missing records, fails too.
 * @returns one ChainCheck per workspace, sorted by id; read-only.
 * Spec: `feedback-service audit verify` (README.md, "CLI"; docs/security.md, "The audit trail").
 */
export async function verifyAuditChains(db: DbHandle, opts: { workspaceId?: string | undefined } = {}): Promise<ChainCheck[]> {
  const heads = db('audit_chain_heads').select('workspace_id');
  const recorded = db('audit_events').distinct('workspace_id');
  if (opts.workspaceId !== undefined) {
    heads.where('workspace_id', opts.workspaceId);
    recorded.where('workspace_id', opts.workspaceId);
  }
  const ids = new Set(
    [...((await heads) as Array<{ workspace_id: string }>), ...((await recorded) as Array<{ workspace_id: string }>)].map((r) => r.workspace_id),
  );
  const out: ChainCheck[] = [];
  for (const workspaceId of [...ids].sort()) out.push(await verifyChain(db, workspaceId));
  return out;
}

async function verifyChain(db: DbHandle, workspaceId: string): Promise<ChainCheck> {
  const head = (await db('audit_chain_heads').where('workspace_id', workspaceId).first('last_seq', 'last_hash', 'pruned_seq', 'pruned_hash')) as
    FullHead | undefined;
  let expectedSeq = head ? Number(head.pruned_seq) + 1 : 1;
  let prevHash = head ? head.pruned_hash : GENESIS_HASH;
  let records = 0;
  const bad = (id: string | null, seq: number, problem: string): ChainCheck => ({ workspaceId, records, headHash: prevHash, firstBad: { id, seq, problem } });
  for (let after = 0; ;) {
    const rows = (await db('audit_events')
      .select(...COLUMNS)
      .where('workspace_id', workspaceId)
      .where('seq', '>', after)
      .orderBy('seq')
      .limit(1000)) as AuditRow[];
    for (const row of rows) {
      const e = toEvent(row);
      after = e.seq;
      if (e.seq < expectedSeq) return bad(e.id, e.seq, `record seq ${e.seq} is not after the pruned head (seq ${expectedSeq - 1})`);
      if (e.seq !== expectedSeq) return bad(e.id, e.seq, `records missing before this one: expected seq ${expectedSeq}, found seq ${e.seq}`);
      if (e.prevHash !== prevHash) return bad(e.id, e.seq, 'prev_hash does not match the hash of the record before it');
      const { hash, ...fields } = e;
      if (recordHash(fields) !== hash) return bad(e.id, e.seq, "hash does not match the record's content (changed after it was written)");
      prevHash = hash;
      expectedSeq += 1;
      records += 1;
    }
    if (rows.length < 1000) break;
  }
  if (!head) return bad(null, expectedSeq - 1, 'the workspace has records but no chain head (audit_chain_heads row removed)');
  if (Number(head.last_seq) !== expectedSeq - 1 || head.last_hash !== prevHash) {
    return bad(
      null,
      Number(head.last_seq),
      `the chain ends at seq ${expectedSeq - 1} but its head is seq ${Number(head.last_seq)}: records missing at the end`,
    );
  }
  return { workspaceId, records, headHash: prevHash };
}

// Retention.

/**
 * Deletes records older than `retentionDays` before `now`, oldest first, at most `batchSize` per statement: each
 * statement takes them in the order of time, workspace and `seq` (index `audit_events_prune_idx`), so it deletes a
 * prefix of each chain (a record's time is never earlier than its predecessor's) and moves the
 * chain head's pruned `seq`/`hash` to the last record it deleted, so verifyAuditChains starts from there.
 * Several instances at once are safe (a record deleted by one is not found by the other; the pruned head only moves
 * forward).
 * @returns the records deleted.
 * Spec: docs/operations.md, "What grows, and what bounds it" (`AUDIT_RETENTION_DAYS`).
 */
export function pruneAuditEvents(db: DbHandle, retentionDays: number, now: Date, opts: BatchOptions = {}): Promise<number> {
  const before = new Date(now.getTime() - retentionDays * DAY_MS);
  return deleteInBatches(async (limit) => {
    const { rows } = (await db.raw(
      `WITH doomed AS (
         SELECT workspace_id, seq FROM audit_events WHERE created_at < ? ORDER BY created_at, workspace_id, seq LIMIT ?
       ), gone AS (
         DELETE FROM audit_events a USING doomed d WHERE a.workspace_id = d.workspace_id AND a.seq = d.seq
         RETURNING a.workspace_id, a.seq, a.hash
       ), last AS (
         SELECT DISTINCT ON (workspace_id) workspace_id, seq, hash FROM gone ORDER BY workspace_id, seq DESC
       ), moved AS (
         UPDATE audit_chain_heads h SET pruned_seq = last.seq, pruned_hash = last.hash
           FROM last WHERE h.workspace_id = last.workspace_id AND last.seq > h.pruned_seq
         RETURNING h.workspace_id
       )
       SELECT (SELECT count(*) FROM gone)::int AS n, (SELECT count(*) FROM moved)::int AS heads`,
      [before, limit],
    )) as { rows: Array<{ n: number }> };
    return Number(rows[0]?.n ?? 0);
  }, opts);
}
