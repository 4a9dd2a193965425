import type { Knex } from 'knex';

/**
 * Whom an erasure names (docs/data-rights.md, "Erasing a person"): an email address (lower case), a datatable row id,
 * or both (at least one is not null); the records of either are the person's. Each store's person functions
 * (responses, email events, webhook events, datatable rows) take it, so one erasure reads the same person everywhere.
 */
export interface PersonKey {
  address: string | null;
  rowId: string | null;
}

/**
 * Narrows a query over a table with `type` and a jsonb `resource` (webhook events, the event log) to the rows whose
 * resource holds the person key's address (in any case) or its row id (as written). A `row.deleted` event, which names
 * only the row and its table, is kept: it is how subscribers and readers learn the row went (an erasure records one).
 */
export function resourceHoldsPerson(w: Knex.QueryBuilder, p: PersonKey): void {
  if (p.address !== null) w.orWhereRaw('strpos(lower(resource::text), ?) > 0', [p.address]);
  const rowId = p.rowId;
  if (rowId !== null) {
    w.orWhere((x) => {
      x.whereRaw('strpos(resource::text, ?) > 0', [rowId]).whereNot('type', 'row.deleted');
    });
  }
}
