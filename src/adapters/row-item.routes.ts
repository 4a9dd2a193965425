/**
 * PATCH and DELETE of one row (docs/writes-keys-limits.md, "Row writes"): the same in both styles but for
 * the path, the route parameter that names the table and the presenter. PATCH answers the envelope with
 * the presented row, DELETE answers 204.
 */
import type { Router } from 'express';
import { deleteRow, patchRow, type Row } from '../core/datatables/datatables.store';
import { withTransaction, type Db } from '../db';
import { single } from './envelope';
import { bodyOf, param, workspaceOf } from './query-values';
import type { EntryPatchRequestB, RowPatchRequestA } from '../wire/types.gen';

/**
 * Mounts PATCH and DELETE of `path` on `r`; `path` names the row `:row_id` and the table `:<tableParam>`.
 * Spec: Style A {ws}/datatables/{id}/rows/{row_id}; Style B {ws}/tables/{id}/entries/{row_id}.
 */
export function rowItemRoutes(r: Router, db: Db, opts: { path: string; tableParam: string; present: (row: Row) => unknown }): void {
  r.patch(opts.path, async (req, res) => {
    const patch = bodyOf<RowPatchRequestA | EntryPatchRequestB>(req).data;
    const row = await withTransaction(db, (trx) => patchRow(trx, workspaceOf(req), param(req, opts.tableParam), param(req, 'row_id'), patch));
    res.json(single(req, opts.present(row)));
  });
  r.delete(opts.path, async (req, res) => {
    await withTransaction(db, (trx) => deleteRow(trx, workspaceOf(req), param(req, opts.tableParam), param(req, 'row_id')));
    res.status(204).end();
  });
}
