/**
 * PATCH and DELETE of one row (docs/writes-keys-limits.md, "Row writes"): the same in both styles but for
 * the path, the route parameter that names the table and the presenter. PATCH answers the envelope with
 * the presented row, DELETE answers 204.
 */
import type { Request, Router } from 'express';
import { rowDeleted, rowPatched, rowsUpserted } from '../core/audit/audit-events';
import { recordAudit } from '../core/audit/audit.store';
import { deleteRow, patchRow, writeRowUpsert, type Row, type RowUpsert, type UpsertedRow } from '../core/datatables/datatables.store';
import { auditOrigin } from './audit-origin';
import { withTransaction, type Db } from '../db';
import { single } from './envelope';
import { bodyOf, param, workspaceOf } from './query-values';
import type { EntryPatchRequestB, RowPatchRequestA } from '../wire/types.gen';

/**
 * Writes a checked upsert (single or batch, both styles) and its audit records, one per row, in one transaction
 * (docs/security.md, "The audit trail"). @returns the rows in request order.
 */
export function writeRowsAudited(db: Db, req: Request, upsert: RowUpsert): Promise<UpsertedRow[]> {
  return withTransaction(db, async (trx) => {
    const written = await writeRowUpsert(trx, upsert);
    await recordAudit(
      trx,
      auditOrigin(req),
      rowsUpserted(
        upsert.workspaceId,
        written,
        upsert.items.map((i) => i.data),
      ),
    );
    return written;
  });
}

/**
 * Mounts PATCH and DELETE of `path` on `r`; `path` names the row `:row_id` and the table `:<tableParam>`.
 * Spec: Style A {ws}/datatables/{id}/rows/{row_id}; Style B {ws}/tables/{id}/entries/{row_id}.
 */
export function rowItemRoutes(r: Router, db: Db, opts: { path: string; tableParam: string; present: (row: Row) => unknown }): void {
  r.patch(opts.path, async (req, res) => {
    const patch = bodyOf<RowPatchRequestA | EntryPatchRequestB>(req).data;
    const ws = workspaceOf(req);
    const row = await withTransaction(db, async (trx) => {
      const patched = await patchRow(trx, ws, param(req, opts.tableParam), param(req, 'row_id'), patch);
      await recordAudit(trx, auditOrigin(req), rowPatched(ws, patched, patch));
      return patched;
    });
    res.json(single(req, opts.present(row)));
  });
  r.delete(opts.path, async (req, res) => {
    const [ws, table, rowId] = [workspaceOf(req), param(req, opts.tableParam), param(req, 'row_id')];
    await withTransaction(db, async (trx) => {
      await deleteRow(trx, ws, table, rowId);
      await recordAudit(trx, auditOrigin(req), rowDeleted(ws, table, rowId));
    });
    res.status(204).end();
  });
}
