/**
 * Erasing a person (GDPR article 17; docs/data-rights.md, "Erasing a person"): `POST {ws}/erasure-requests`. Style-neutral.
 *
 * The person is an address, a datatable row id, or both (PersonKey; docs/data-rights.md, "By datatable row id"): the
 * records of either are theirs. A row id alone looks for no idempotency record and suppresses nothing.
 *
 * What goes, in ONE transaction of the workspace (so a crash leaves all of it or none, and a retry finishes it):
 * - the person's responses (personKeyNarrowing: by `respondent_email`, an email answer, a text mention, the captured table
 *   data), through the responses' delete, which moves every counter in the same statement and records
 *   `response.deleted` (id and form only);
 * - the address wherever a bulk delete's stored filters name it (forgetAddressInDeletions: `[erased]` in its place; a
 *   bulk delete still running with such a filter is stopped);
 * - the email events sent to the address, and the link-use rows of the emails those events and responses belong to;
 * - the recorded webhook events whose payload holds the address or names the row, and so their deliveries (the
 *   delivery log and any retry lose them), and the events of the event log that do (no list, stream or recovery
 *   shows them again), before the rows' delete, whose `row.deleted` events stay;
 * - with `includeRows`, the datatable rows the person's responses and events point at and the rows holding the address,
 *   through the rows' delete (`row.deleted` events);
 * - outside the database, before the transaction: the idempotency records whose stored answer holds the address
 *   (`OutsideRecords`, given by the platform: they are sealed in Redis and expire within 24 h anyway).
 * Then, in the same transaction: the request's record (the address only as a keyed hash, addressHash), the suppression
 * of the address (email links for it are refused until the workspace lifts it), a `respondent.erased` event and the
 * run's audit record (`erasure_request.run`: the request's id and the counts, never the address). Two
 * erasures of the same address at once: the second waits on the first's record (claimErasureRequest) and then finds
 * nothing; both answer with the one record.
 */
import type { Knex } from 'knex';
import { withTransaction } from '../../db';
import { erasureRun } from '../audit/audit-events';
import { recordAudit, type AuditOrigin } from '../audit/audit.store';
import { deleteRow, personRowRefs } from '../datatables/datatables.store';
import { deletePersonEmailEvents, personEmailEventSummary } from '../email-events/email-events.store';
import { newId } from '../ids';
import { countLinkUsesOfEmails, deleteLinkUsesOfEmails } from '../links/link-uses.store';
import { deleteEventsHolding } from '../events/event-log.store';
import { deleteNarrowedResponses, forgetAddressInDeletions } from '../responses/deletions';
import { countPersonResponses, personKeyNarrowing, personResponseLinks } from '../responses/responses.store';
import { recordEvents } from '../webhooks/outbox';
import { countWebhookEventsHolding, deleteWebhookEventsHolding } from '../webhooks/webhooks.store';
import {
  addErased,
  addressHash,
  claimErasureRequest,
  getErasureRequest,
  noneErased,
  suppressAddress,
  type ErasedCounts,
  type ErasureRequest,
} from './erasure.store';
import type { PersonKey } from './person-key';

export type { PersonKey } from './person-key';

/** What a request named the person by, for its audit record: `email`, `row_id` or both (never the values). */
const namedBy = (p: PersonKey): string[] => [...(p.address === null ? [] : ['email']), ...(p.rowId === null ? [] : ['row_id'])];

/** Records of the person kept outside the database (the idempotency store): counted and erased by address. */
export interface OutsideRecords {
  count(address: string): Promise<number>;
  erase(address: string): Promise<number>;
}

export interface ErasureInput {
  /** The address (from personAddress: trimmed, lower case), the datatable row id, or both. */
  person: PersonKey;
  /** Also delete the person's datatable rows. */
  includeRows: boolean;
  /** The key that asks (`null`: the CLI). */
  requestedBy: string | null;
  requestId: string | null;
  /** Who asks, for the audit record of the run (`erasure_request.run`). */
  origin: AuditOrigin;
}

/** Responses deleted per statement inside the erasure's transaction. */
const RESPONSE_BATCH = 500;

/** What belongs to the person, found once (the emails and rows their records point at). */
async function footprint(db: Knex | Knex.Transaction, workspaceId: string, p: PersonKey) {
  const events = await personEmailEventSummary(db, workspaceId, p);
  const links = await personResponseLinks(db, workspaceId, p);
  const emailIds = [...new Set([...events.emailIds, ...links.emailIds])];
  const named = p.rowId === null ? [] : [p.rowId];
  return { events, emailIds, linkedRowIds: [...new Set([...named, ...links.rowIds, ...events.rowIds])] };
}

/**
 * The value whose keyed hash names the request (addressHash): the address when one is given (so a later request by
 * address, and the suppression, find it), else `row:<row id>`.
 */
const requestKey = (p: PersonKey): string => p.address ?? `row:${p.rowId}`;

/**
 * The dry run: what an erasure of the person would remove now, by kind; nothing is changed or recorded.
 * @param outside the idempotency store's records (platform).
 */
export async function planErasure(
  db: Knex,
  workspaceId: string,
  input: Pick<ErasureInput, 'person' | 'includeRows'>,
  outside: OutsideRecords,
): Promise<ErasedCounts> {
  const p = input.person;
  const found = await footprint(db, workspaceId, p);
  return {
    responses: await countPersonResponses(db, workspaceId, p),
    email_events: found.events.count,
    email_link_uses: await countLinkUsesOfEmails(db, workspaceId, found.emailIds),
    webhook_events: await countWebhookEventsHolding(db, workspaceId, p),
    idempotency_records: p.address === null ? 0 : await outside.count(p.address),
    datatable_rows: input.includeRows ? (await personRowRefs(db, workspaceId, p.address, found.linkedRowIds)).length : 0,
  };
}

/**
 * Erases the person (see the module's comment) and returns the request's record and what this run removed.
 * @throws database errors (the transaction rolls back whole: nothing of the run is left half done).
 */
export async function runErasure(
  db: Knex,
  workspaceId: string,
  input: ErasureInput,
  outside: OutsideRecords,
): Promise<{ request: ErasureRequest; removed: ErasedCounts }> {
  const p = input.person;
  const hash = await addressHash(db, requestKey(p));
  const idempotencyRecords = p.address === null ? 0 : await outside.erase(p.address);
  return withTransaction(db, async (trx) => {
    const requestId = await claimErasureRequest(trx, workspaceId, hash, {
      id: newId('erasureRequest'),
      includeRows: input.includeRows,
      requestedBy: input.requestedBy,
      requestId: input.requestId,
    });
    const counts = noneErased();
    counts.idempotency_records = idempotencyRecords;
    // Found before anything goes: the rows and emails the person's responses point at.
    const found = await footprint(trx, workspaceId, p);
    for (;;) {
      const deleted = await deleteNarrowedResponses(trx, workspaceId, personKeyNarrowing(p), RESPONSE_BATCH);
      counts.responses += deleted;
      if (deleted < RESPONSE_BATCH) break;
    }
    if (p.address !== null) await forgetAddressInDeletions(trx, workspaceId, p.address);
    counts.email_events = await deletePersonEmailEvents(trx, workspaceId, p);
    counts.email_link_uses = await deleteLinkUsesOfEmails(trx, workspaceId, found.emailIds);
    // After the responses' delete (its `response.deleted` events hold neither the address nor a row id) and before the
    // rows' (their `row.deleted` events name the row id and must reach the subscribers).
    counts.webhook_events = await deleteWebhookEventsHolding(trx, workspaceId, p);
    await deleteEventsHolding(trx, workspaceId, p);
    if (input.includeRows) {
      for (const ref of await personRowRefs(trx, workspaceId, p.address, found.linkedRowIds)) {
        await deleteRow(trx, workspaceId, ref.datatableId, ref.rowId);
        counts.datatable_rows += 1;
      }
    }
    await addErased(trx, workspaceId, requestId, counts);
    if (p.address !== null) await suppressAddress(trx, workspaceId, hash, requestId);
    await recordEvents(trx, workspaceId, [
      { type: 'respondent.erased', resource: { kind: 'respondent_erased', erasureId: requestId, removed: { ...counts } } },
    ]);
    // Read in the transaction: this run's record (its `runs`), not one a concurrent run committed after it.
    const request = await getErasureRequest(trx, workspaceId, requestId);
    await recordAudit(
      trx,
      input.origin,
      erasureRun(workspaceId, requestId, { runs: request.runs, includeRows: request.includeRows, by: namedBy(p), removed: counts }),
    );
    return { request, removed: counts };
  });
}
