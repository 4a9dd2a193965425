/**
 * The audit trail (docs/security.md, "The audit trail"; issue 30, item 5; issue 28 for the seal): the store of
 * `audit_events` and `audit_chain_heads` (migrations 017, 026). Every change that is not a response submission is
 * recorded here, append-only, in the transaction of the change, by calling `recordAudit(trx, origin, event)`; the list
 * (`GET {ws}/audit-events`), the chain check (`feedback-service audit verify`), the seal and the retention prune read,
 * seal and delete through this module only.
 *
 * The chain: a workspace's records are numbered `seq` 1, 2, 3, … in the order they are sealed; each holds the `hash`
 * of the record before it (`prevHash`; GENESIS_HASH for the first) and its own `hash`, the SHA-256 (hex) of the
 * canonical JSON (core/canonical-json.ts) of every stored field (recordHash). A write inserts its record unsealed and
 * takes no lock; the sealer (sealBatch, in a transaction of its own after the commit) locks the workspace's row of
 * `audit_chain_heads` FOR UPDATE (the same on PostgreSQL and PGlite), numbers and hashes the committed unsealed records
 * in `append_no` order and moves the head, which holds the last `seq`, `hash` and time, and the last pruned record's
 * `seq` and `hash`: the oldest kept record must follow it, and the last record must be the head, so a record changed,
 * removed (first, last or in the middle) or inserted afterwards is named by verifyAuditChains.
 */
import { createHash } from 'node:crypto';
import { runPrepared, type Db, type DbHandle, type DbTransaction, type PreparedStatement } from '../../db';
import { afterCommit, runFollowUp } from '../../db/follow-up';
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

/** A sealed record (times are UTC Dates). */
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

/** A row of `audit_events`; `seq`, `prev_hash` and `hash` are null until the record is sealed. */
interface AuditRow {
  id: string;
  workspace_id: string;
  seq: string | number | null;
  created_at: Date;
  actor: string;
  action: string;
  target_type: string;
  target_id: string;
  request_id: string | null;
  client_address: string | null;
  changes: Record<string, unknown>;
  prev_hash: string | null;
  hash: string | null;
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

/** A sealed row as a record (the lists and the chain check read sealed rows only). */
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
  prevHash: r.prev_hash ?? '',
  hash: r.hash ?? '',
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

/**
 * Appends records to the audit trail in the caller's transaction, UNSEALED (no `seq`, `prevHash`, `hash` yet), with no
 * lock: appends never wait for each other. Once the transaction commits, the workspace's sealer starts (not awaited),
 * after SEAL_GATHER_MS so that one seal serves the commits of a burst: it numbers and hashes every committed unsealed
 * record of the workspace (sealAudit). A transaction that rolls back
 * leaves neither the change nor its record.
 * @param trx the transaction of the change (never the bare database handle: the record must commit with the change);
 *   one opened by withTransaction starts the sealer on commit, any other leaves it to the next reader or the sweep.
 * @param origin who and from where (auditOrigin(req) in an adapter; SYSTEM_ORIGIN, CLI_ORIGIN).
 * @param events one record, or several (a batch write: one per row, sealed in this order); several workspaces may be mixed.
 * Spec: docs/security.md, "The audit trail".
 */
export async function recordAudit(trx: DbTransaction, origin: AuditOrigin, events: AuditEventInput | readonly AuditEventInput[]): Promise<void> {
  const list = Array.isArray(events) ? (events as readonly AuditEventInput[]) : [events as AuditEventInput];
  const createdAt = new Date();
  const rows = list.map((e, ord) => ({
    ord,
    workspace_id: e.workspaceId,
    id: newId('auditEvent'),
    created_at: createdAt,
    actor: origin.actor,
    action: e.action,
    target_type: e.targetType,
    target_id: e.targetId,
    request_id: origin.requestId,
    client_address: origin.clientAddress,
    changes: maskChanges(e.changes ?? {}),
  }));
  // One statement with one bind parameter, whatever the number of records; `append_no` follows the order given.
  await runPrepared(trx, INSERT_RECORDS, [JSON.stringify(rows)]);
  for (const workspaceId of new Set(list.map((e) => e.workspaceId))) {
    afterCommit(trx, sealKey(workspaceId), sealWork(workspaceId), undefined, { gatherMs: SEAL_GATHER_MS });
  }
}

/**
 * recordAudit's insert: the records as one JSON array, inserted in its order (`ord`), so `append_no` follows it.
 * Prepared: every write runs it.
 */
const INSERT_RECORDS: PreparedStatement = {
  name: 'audit_insert_records',
  sql: `INSERT INTO audit_events (workspace_id, id, created_at, actor, action, target_type, target_id, request_id, client_address, changes)
SELECT x.workspace_id, x.id, x.created_at, x.actor, x.action, x.target_type, x.target_id, x.request_id, x.client_address, x.changes
  FROM jsonb_to_recordset(?::jsonb) AS x(ord int, workspace_id text, id text, created_at timestamptz, actor text, action text, target_type text,
                                         target_id text, request_id text, client_address text, changes jsonb)
 ORDER BY x.ord`,
};

// Sealing.

/** Records sealed per transaction of the sealer. */
const SEAL_BATCH = 1000;

/**
 * How long (ms) the sealer waits after a commit before it seals, gathering the commits of that time into one seal
 * (follow-up.ts `gatherMs`): one seal transaction (five statements) a second per busy workspace, whatever the write
 * rate. A reader (the list, the chain check, the sweep) and shutdown do not wait: they seal at once.
 */
export const SEAL_GATHER_MS = 1000;

const sealKey = (workspaceId: string) => `audit-seal:${workspaceId}`;
const sealWork = (workspaceId: string) => async (trx: DbTransaction) => (await sealBatch(trx, workspaceId)) === SEAL_BATCH;

interface HeadRow {
  last_seq: string | number;
  last_hash: string;
}

/** The head of a workspace's chain, locked FOR UPDATE in `trx` (made when missing): one sealer per workspace at a time. */
async function lockHead(trx: DbTransaction, workspaceId: string): Promise<HeadRow> {
  const locked = () => trx('audit_chain_heads').where('workspace_id', workspaceId).forUpdate().first('last_seq', 'last_hash') as Promise<HeadRow | undefined>;
  const head = await locked();
  if (head) return head;
  await trx('audit_chain_heads')
    .insert({ workspace_id: workspaceId, last_seq: 0, last_hash: GENESIS_HASH, pruned_seq: 0, pruned_hash: GENESIS_HASH })
    .onConflict('workspace_id')
    .ignore();
  return (await locked())!;
}

/**
 * Seals up to SEAL_BATCH committed unsealed records of a workspace in `trx`, in `append_no` order: each gets the next
 * `seq`, the previous record's hash as `prevHash` and its own hash; the head moves to the last. The head's row lock
 * makes sealers of one workspace take turns; the records are read after the lock is granted (a new snapshot under
 * READ COMMITTED), so a record sealed by the sealer before is never sealed twice, and the UPDATE checks it anyway.
 * @returns the records sealed.
 */
async function sealBatch(trx: DbTransaction, workspaceId: string): Promise<number> {
  const head = await lockHead(trx, workspaceId);
  const pending = (await trx('audit_events')
    .select(...COLUMNS)
    .where('workspace_id', workspaceId)
    .whereNull('seq')
    .orderBy('append_no')
    .limit(SEAL_BATCH)) as AuditRow[];
  if (pending.length === 0) return 0;
  let seq = Number(head.last_seq);
  let prevHash = head.last_hash;
  const sealed = pending.map((row) => {
    seq += 1;
    const fields = { ...toEvent(row), seq, prevHash };
    const hash = recordHash(fields);
    prevHash = hash;
    return { id: row.id, seq, prevHash: fields.prevHash, hash };
  });
  // The records and the head in one statement; the head moves only when every record was still unsealed.
  const { rows } = (await trx.raw(
    `WITH sealed AS (
       UPDATE audit_events a SET seq = v.seq, prev_hash = v.prev_hash, hash = v.hash
         FROM unnest(?::text[], ?::bigint[], ?::text[], ?::text[]) AS v(id, seq, prev_hash, hash)
        WHERE a.workspace_id = ? AND a.id = v.id AND a.seq IS NULL
        RETURNING a.id
     ), moved AS (
       UPDATE audit_chain_heads SET last_seq = ?, last_hash = ?, last_at = ?
        WHERE workspace_id = ? AND (SELECT count(*) FROM sealed) = ?
        RETURNING workspace_id
     )
     SELECT (SELECT count(*) FROM sealed)::int AS n, (SELECT count(*) FROM moved)::int AS moved`,
    [
      sealed.map((r) => r.id),
      sealed.map((r) => r.seq),
      sealed.map((r) => r.prevHash),
      sealed.map((r) => r.hash),
      workspaceId,
      seq,
      prevHash,
      pending[pending.length - 1]!.created_at,
      workspaceId,
      sealed.length,
    ],
  )) as { rows: Array<{ n: number; moved: number }> };
  const n = Number(rows[0]?.n ?? 0);
  if (n !== sealed.length || Number(rows[0]?.moved) !== 1) throw new Error(`audit seal of ${workspaceId}: ${sealed.length - n} records changed while sealing`);
  return sealed.length;
}

/**
 * Seals every committed unsealed record of a workspace, in transactions of its own (follow-up.ts: single-flight per
 * workspace in this process, joined when one is under way), and resolves once a run that started after this call is
 * done. Never call it inside a transaction (on PGlite's one connection it would wait for itself).
 * @throws what the database throws; the records stay unsealed for the next try.
 * Spec: docs/security.md, "The audit trail".
 */
export async function sealAudit(db: Db, workspaceId: string): Promise<void> {
  const unsealed = (await db('audit_events').where('workspace_id', workspaceId).whereNull('seq').first('id')) as { id: string } | undefined;
  if (unsealed) await runFollowUp(db, sealKey(workspaceId), sealWork(workspaceId));
}

/**
 * Seals the unsealed records of every workspace (sealAudit each): the worker's sweep, for records left unsealed by a
 * process that stopped between a write's commit and its seal, or a seal that failed.
 * @returns the workspaces that had unsealed records.
 */
export async function sealAllAudit(db: Db): Promise<string[]> {
  const ids = ((await db('audit_events').distinct('workspace_id').whereNull('seq')) as Array<{ workspace_id: string }>).map((r) => r.workspace_id).sort();
  for (const workspaceId of ids) await sealAudit(db, workspaceId);
  return ids;
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
    .where('workspace_id', workspaceId)
    .whereNotNull('seq');
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
 * The workspace's committed unsealed records are sealed first (sealAudit), so the list holds every record committed
 * before it was asked for, each with its `seq` and hashes; it shows sealed records only.
 * @throws AppError validation_error for a cursor of another list or order.
 * Spec: GET {ws}/audit-events (Style A).
 */
export async function listAuditKeyset(db: Db, workspaceId: string, q: KeysetQuery<AuditListQuery>): Promise<KeysetPage<AuditEvent>> {
  await sealAudit(db, workspaceId);
  const { keys, base } = auditQuery(db, workspaceId, q);
  const { limit, cursor } = q.pagination;
  const page = await fetchKeysetPage<AuditRow & Record<string, unknown>>(db, base, keys, limit, cursor, `audit_events:${workspaceId}`);
  return { kind: 'keyset', items: page.rows.map(toEvent), limit, nextCursor: page.nextCursor, prevCursor: page.prevCursor };
}

/**
 * The same list as an offset page (Style B) with `total` (the workspace's sealed records) and `filteredTotal`;
 * sealed first, as listAuditKeyset.
 * @throws AppError validation_error for a filter problem or a `page` too large.
 * Spec: GET {ws}/audit-events (Style B).
 */
export async function listAuditOffset(db: Db, workspaceId: string, q: OffsetQuery<AuditListQuery>): Promise<OffsetPage<AuditEvent>> {
  await sealAudit(db, workspaceId);
  const { keys, base } = auditQuery(db, workspaceId, q);
  const { page, limit } = q.pagination;
  const [rows, total, filteredTotal] = await Promise.all([
    fetchOffsetPage<AuditRow>(base, keys, page, limit, ['workspace_id', 'seq']),
    countRows(db('audit_events').where('workspace_id', workspaceId).whereNotNull('seq')),
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
  /** Records committed after the check sealed the chain, not yet sealed (so not checked); absent when none. */
  pending?: number;
}

interface FullHead {
  last_seq: string | number;
  last_hash: string;
  pruned_seq: string | number;
  pruned_hash: string;
}

/**
 * Seals every chain (or one workspace's: sealAudit), then walks it from its oldest kept record to its head, 1,000
 * records at a time: each
 * record must carry the next `seq`, the previous record's hash (the oldest kept one: the last pruned record's, or
 * GENESIS_HASH), and a hash equal to recordHash of its fields; the last one must be the head `audit_chain_heads`
 * holds. A workspace with records and no head, or a head with missing records, fails too. A record still unsealed
 * after the seal (committed meanwhile) is counted as `pending`, not as a problem.
 * @returns one ChainCheck per workspace, sorted by id; writes nothing but the seal.
 * Spec: `feedback-service audit verify` (README.md, "CLI"; docs/security.md, "The audit trail").
 */
export async function verifyAuditChains(db: Db, opts: { workspaceId?: string | undefined } = {}): Promise<ChainCheck[]> {
  if (opts.workspaceId !== undefined) await sealAudit(db, opts.workspaceId);
  else await sealAllAudit(db);
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

async function verifyChain(db: Db, workspaceId: string): Promise<ChainCheck> {
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
  const pending = await countRows(db('audit_events').where('workspace_id', workspaceId).whereNull('seq'));
  return { workspaceId, records, headHash: prevHash, ...(pending > 0 ? { pending } : {}) };
}

// Retention.

/**
 * Deletes sealed records older than `retentionDays` before `now`, at most `batchSize` per statement, as a prefix of
 * each chain by `seq`: a workspace's records from its oldest kept one up to (not including) the first whose time is not
 * before the cut (records are sealed in the order they were appended, not strictly by time: a record written a moment
 * earlier may be sealed a moment later, and waits for the prefix to reach it). Unsealed records are never deleted. The
 * same statement moves the chain head's pruned `seq`/`hash` to the last record it deleted, so verifyAuditChains starts
 * from there. Several instances at once are safe (a record deleted by one is not found by the other; the pruned head
 * only moves forward; a sealer holding the head is waited for). It seals first (sealAllAudit), as every reader of the
 * chain does, so a record committed before the prune started is not kept back because its seal was still gathering.
 * @returns the records deleted.
 * Spec: docs/operations.md, "What grows, and what bounds it" (`AUDIT_RETENTION_DAYS`).
 */
export async function pruneAuditEvents(db: Db, retentionDays: number, now: Date, opts: BatchOptions = {}): Promise<number> {
  const before = new Date(now.getTime() - retentionDays * DAY_MS);
  await sealAllAudit(db);
  return deleteInBatches(async (limit) => {
    const { rows } = (await db.raw(
      `WITH old AS (
         SELECT h.workspace_id, h.pruned_seq FROM audit_chain_heads h
          WHERE h.last_seq > h.pruned_seq
            AND (SELECT a.created_at FROM audit_events a WHERE a.workspace_id = h.workspace_id AND a.seq > h.pruned_seq
                  ORDER BY a.seq LIMIT 1) < ?
       ), cand AS (
         SELECT a.workspace_id, a.seq, a.created_at FROM old o
          CROSS JOIN LATERAL (SELECT workspace_id, seq, created_at FROM audit_events a
                               WHERE a.workspace_id = o.workspace_id AND a.seq > o.pruned_seq ORDER BY a.seq LIMIT ?) a
       ), stop AS (
         SELECT workspace_id, min(seq) AS seq FROM cand WHERE created_at >= ? GROUP BY workspace_id
       ), doomed AS (
         SELECT c.workspace_id, c.seq FROM cand c LEFT JOIN stop s ON s.workspace_id = c.workspace_id
          WHERE c.created_at < ? AND (s.seq IS NULL OR c.seq < s.seq)
          ORDER BY c.workspace_id, c.seq LIMIT ?
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
      [before, limit, before, before, limit],
    )) as { rows: Array<{ n: number }> };
    return Number(rows[0]?.n ?? 0);
  }, opts);
}
