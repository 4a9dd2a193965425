/**
 * The store of erasure requests and the suppression list (`erasure_requests`, `email_suppressions`, migration 019; the
 * one owner of both; docs/data-rights.md, "Erasing a person"). Addresses are never stored: both tables name a person
 * by the keyed hash of the address (addressHash).
 */
import { createHmac } from 'node:crypto';
import type { Knex } from 'knex';
import type { DbHandle } from '../../db';
import { errors } from '../errors';
import { serverSecret } from '../links/server-secrets.store';

/** What an erasure removed (or, in a dry run, would remove), by kind. */
export interface ErasedCounts {
  responses: number;
  email_events: number;
  email_link_uses: number;
  webhook_events: number;
  idempotency_records: number;
  datatable_rows: number;
}

export const ERASED_KINDS: ReadonlyArray<keyof ErasedCounts> = [
  'responses',
  'email_events',
  'email_link_uses',
  'webhook_events',
  'idempotency_records',
  'datatable_rows',
];

export const noneErased = (): ErasedCounts => ({
  responses: 0,
  email_events: 0,
  email_link_uses: 0,
  webhook_events: 0,
  idempotency_records: 0,
  datatable_rows: 0,
});

/** One erasure request as stored (the person only as a hash). */
export interface ErasureRequest {
  id: string;
  includeRows: boolean;
  /** What every run so far removed, summed. */
  removed: ErasedCounts;
  runs: number;
  /** Whether email links for the address are refused now (the suppression is lifted separately). */
  suppressed: boolean;
  requestedBy: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * The keyed hash that names an address (lower case) in `erasure_requests` and `email_suppressions`: HMAC-SHA256 under
 * the server secret `erasure`, hex. Without the secret a hash cannot be checked against a guessed address.
 * @param db the root handle (serverSecret creates the secret on first use outside any transaction).
 */
export async function addressHash(db: Knex, address: string): Promise<string> {
  const key = await serverSecret(db, 'erasure');
  return createHmac('sha256', key).update(address, 'utf8').digest('hex');
}

interface RequestRow {
  id: string;
  include_rows: boolean;
  removed: Partial<ErasedCounts> | string;
  runs: number;
  requested_by: string | null;
  created_at: Date;
  updated_at: Date;
  suppressed: boolean;
}

const toRequest = (r: RequestRow): ErasureRequest => {
  const removed = typeof r.removed === 'string' ? (JSON.parse(r.removed) as Partial<ErasedCounts>) : r.removed;
  return {
    id: r.id,
    includeRows: r.include_rows,
    removed: { ...noneErased(), ...removed },
    runs: Number(r.runs),
    suppressed: r.suppressed,
    requestedBy: r.requested_by,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
};

/**
 * Takes the request row of this address in the caller's transaction: inserts it (first run) or bumps `runs` (a later
 * one), and holds its row lock until the transaction ends, so a second erasure of the same address waits for this one
 * and then finds nothing left.
 * @returns the request's id.
 */
export async function claimErasureRequest(
  trx: Knex.Transaction,
  workspaceId: string,
  hash: string,
  input: { id: string; includeRows: boolean; requestedBy: string | null; requestId: string | null },
): Promise<string> {
  const rows = (await trx('erasure_requests')
    .insert({
      workspace_id: workspaceId,
      id: input.id,
      address_hash: hash,
      include_rows: input.includeRows,
      requested_by: input.requestedBy,
      request_id: input.requestId,
    })
    .onConflict(['workspace_id', 'address_hash'])
    .merge({
      runs: trx.raw('erasure_requests.runs + 1'),
      include_rows: trx.raw('erasure_requests.include_rows OR excluded.include_rows'),
      updated_at: trx.fn.now(),
    })
    .returning('id')) as Array<{ id: string }>;
  return rows[0]!.id;
}

/** Adds this run's counts to the request's `removed` (same transaction as the removal). */
export async function addErased(trx: Knex.Transaction, workspaceId: string, id: string, counts: ErasedCounts): Promise<void> {
  const current = (await trx('erasure_requests').first('removed').where({ workspace_id: workspaceId, id })) as { removed: Partial<ErasedCounts> | string };
  const before = typeof current.removed === 'string' ? (JSON.parse(current.removed) as Partial<ErasedCounts>) : current.removed;
  const sum = noneErased();
  for (const k of ERASED_KINDS) sum[k] = (before[k] ?? 0) + counts[k];
  await trx('erasure_requests')
    .where({ workspace_id: workspaceId, id })
    .update({ removed: JSON.stringify(sum), updated_at: trx.fn.now() });
}

/** Puts the address on the workspace's suppression list (kept when it is there already). */
export async function suppressAddress(trx: Knex.Transaction, workspaceId: string, hash: string, erasureId: string): Promise<void> {
  await trx('email_suppressions')
    .insert({ workspace_id: workspaceId, address_hash: hash, erasure_id: erasureId })
    .onConflict(['workspace_id', 'address_hash'])
    .ignore();
}

/** True when the address (by its hash) is on the workspace's suppression list. */
export async function isSuppressed(db: DbHandle, workspaceId: string, hash: string): Promise<boolean> {
  const row = (await db('email_suppressions').first('erasure_id').where({ workspace_id: workspaceId, address_hash: hash })) as
    { erasure_id: string } | undefined;
  return row !== undefined;
}

/**
 * Lifts the suppression an erasure request put on its address.
 * @returns false when there was none (lifted already).
 * @throws AppError resource_not_found when the workspace has no erasure request of that id.
 */
export async function liftSuppression(trx: Knex.Transaction, workspaceId: string, erasureId: string): Promise<boolean> {
  const request = (await trx('erasure_requests').first('address_hash').where({ workspace_id: workspaceId, id: erasureId })) as
    { address_hash: string } | undefined;
  if (!request) throw errors.notFound('erasure request', erasureId);
  const rows = (await trx('email_suppressions')
    .where({ workspace_id: workspaceId, address_hash: request.address_hash })
    .delete()
    .returning('erasure_id')) as unknown[];
  return rows.length > 0;
}

/**
 * One erasure request with whether its address is suppressed now.
 * @throws AppError resource_not_found when the workspace has none of that id.
 */
export async function getErasureRequest(db: DbHandle, workspaceId: string, id: string): Promise<ErasureRequest> {
  const row = (await db('erasure_requests as e')
    .leftJoin('email_suppressions as s', function joinSuppression() {
      this.on('s.workspace_id', 'e.workspace_id').andOn('s.address_hash', 'e.address_hash');
    })
    .first(
      'e.id',
      'e.include_rows',
      'e.removed',
      'e.runs',
      'e.requested_by',
      'e.created_at',
      'e.updated_at',
      db.raw('(s.address_hash IS NOT NULL) AS suppressed'),
    )
    .where({ 'e.workspace_id': workspaceId, 'e.id': id })) as RequestRow | undefined;
  if (!row) throw errors.notFound('erasure request', id);
  return toRequest(row);
}
