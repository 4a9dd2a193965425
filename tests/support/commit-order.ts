/**
 * Two transactions committing out of order (docs/live.md, "Positions"), for the event log's and the streams' tests
 * (PostgreSQL: two connections): the first records `row.deleted` of row `first` (the lower position) and stays open,
 * the second records `second` and commits; `meanwhile` runs then, with the first still open; the first commits last.
 */
import { recordEvents } from '../../src/core/webhooks/outbox';
import { withTransaction, type Db } from '../../src/db';

/** A `row.deleted` event of row `rowId` in `datatableId`. */
export const rowDeleted = (rowId: string, datatableId: string) => ({
  type: 'row.deleted' as const,
  resource: { kind: 'row_deleted' as const, rowId, datatableId },
});

export async function commitOutOfOrder(db: Db, ws: string, datatableId: string, meanwhile: () => Promise<void>): Promise<void> {
  let releaseFirst!: () => void;
  const firstMayCommit = new Promise<void>((r) => (releaseFirst = r));
  let firstWrote!: () => void;
  const firstHasWritten = new Promise<void>((r) => (firstWrote = r));
  const first = withTransaction(db, async (trx) => {
    await recordEvents(trx, ws, [rowDeleted('first', datatableId)]);
    firstWrote();
    await firstMayCommit;
  });
  await firstHasWritten;
  await withTransaction(db, (trx) => recordEvents(trx, ws, [rowDeleted('second', datatableId)]));
  try {
    await meanwhile();
  } finally {
    releaseFirst();
    await first;
  }
}
