/**
 * A person's data (docs/data-rights.md, "Export a person's data"; GDPR articles 15 and 20): everything a workspace
 * holds that is linked to one email address, style-neutral, read in one read-only transaction. Which records are the
 * person's ("Whose data is it"):
 * - responses whose `respondent_email` is the address, or whose answers or captured table data hold it
 *   (personResponses, src/core/responses/responses.store.ts);
 * - email events sent to the address (personEmailEvents);
 * - datatable rows those responses and events point at, and rows whose data holds the address (personRows).
 * Addresses compare in lower case. The adapter (src/adapters/respondents-export.ts) presents each record in the
 * key's style and streams them as NDJSON.
 */
import type { Knex } from 'knex';
import { personRows, type Row } from '../datatables/datatables.store';
import { personEmailEvents, type EmailEvent } from '../email-events/email-events.store';
import { errors } from '../errors';
import { personResponses } from '../responses/responses.store';
import type { ResponseRecord } from '../responses/responses.types';

/** The longest address taken (RFC 5321: 254 in a path; 320 = 64 + 1 + 255 as commonly allowed). */
const MAX_ADDRESS = 320;

/**
 * The address a person's request names, trimmed and in lower case.
 * @throws AppError validation_error naming `field` (at `location`) when it is empty, too long or has no `@`.
 */
export function personAddress(raw: string | undefined, field = 'email', location: 'query' | 'body' = 'query') {
  const address = (raw ?? '').trim().toLowerCase();
  if (address === '') throw errors.invalid(location, field, `\`${field}\` is required: the person's email address.`);
  if (address.length > MAX_ADDRESS) throw errors.invalid(location, field, `\`${field}\` is longer than ${MAX_ADDRESS} characters.`);
  const at = address.indexOf('@');
  if (at <= 0 || at === address.length - 1) throw errors.invalid(location, field, `\`${field}\` must be an email address (local@domain).`);
  return address;
}

/** What a person's export holds besides responses: each needs the key's read scope of its resource. */
export interface PersonDataKinds {
  emailEvents: boolean;
  rows: boolean;
}

/** One batch of a person's records, of one kind. */
export type PersonBatch = { kind: 'response'; items: ResponseRecord[] } | { kind: 'email_event'; items: EmailEvent[] } | { kind: 'row'; items: Row[] };

/**
 * The person's records in batches: responses, then email events (when `kinds.emailEvents`), then datatable rows (when
 * `kinds.rows`), each oldest first. Runs in `trx`, the caller's read-only transaction (one snapshot for all three).
 * @param address from personAddress.
 */
export async function* personData(
  trx: Knex.Transaction,
  workspaceId: string,
  address: string,
  kinds: PersonDataKinds,
): AsyncGenerator<PersonBatch, void, undefined> {
  const linkedRows = new Set<string>();
  for await (const items of personResponses(trx, workspaceId, address)) {
    for (const r of items) if (r.rowId !== null) linkedRows.add(r.rowId);
    yield { kind: 'response', items };
  }
  if (kinds.emailEvents || kinds.rows) {
    for await (const items of personEmailEvents(trx, workspaceId, address)) {
      for (const e of items) if (e.rowId !== null) linkedRows.add(e.rowId);
      if (kinds.emailEvents) yield { kind: 'email_event', items };
    }
  }
  if (kinds.rows) for await (const items of personRows(trx, workspaceId, address, [...linkedRows])) yield { kind: 'row', items };
}
