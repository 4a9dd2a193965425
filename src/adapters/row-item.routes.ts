/**
 * PATCH and DELETE of one row (docs/writes-keys-limits.md, "Row writes"): the same in both styles but for
 * the path, the route parameter that names the table and the presenter. PATCH answers the envelope with
 * the presented row, DELETE answers 204.
 */
import type { Request, Router } from 'express';
import { deleteRow, patchRow, type Row } from '../core/datatables/datatables.store';
import { withTransaction, type Db } from '../db';
import { single } from './envelope';
import { param, workspaceOf } from './query-values';

export type Body = Record<string, unknown>;
export const bodyOf = (req: Request): Body => (req.body ?? {}) as Body;

/**
 * Mounts PATCH and DELETE of `path` on `r`; `path` names the row `:row_id` and the table `:<tableParam>`.
 * Spec: Style A {ws}/datatables/{id}/rows/{row_id}; Style B {ws}/tables/{id}/entries/{row_id}.
 */
export function rowItemRoutes(r: Router, db: Db, opts: { path: string; tableParam: string; present: (row: Row) => unknown }): void {
  r.patch(opts.path, async (req, res) => {
    const patch = bodyOf(req).data as Body;
    const row = await withTransaction(db, (trx) => patchRow(trx, workspaceOf(req), param(req, opts.tableParam), param(req, 'row_id'), patch));
    res.json(single(req, opts.present(row)));
  });
  r.delete(opts.path, async (req, res) => {
    await withTransaction(db, (trx) => deleteRow(trx, workspaceOf(req), param(req, opts.tableParam), param(req, 'row_id')));
    res.status(204).end();
  });
}
