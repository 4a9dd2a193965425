/**
 * Whom an erasure names (docs/data-rights.md, "Erasing a person"): an email address (lower case), a datatable row id,
 * or both (at least one is not null); the records of either are the person's. Each store's person functions
 * (responses, email events, webhook events, datatable rows) take it, so one erasure reads the same person everywhere.
 */
export interface PersonKey {
  address: string | null;
  rowId: string | null;
}
