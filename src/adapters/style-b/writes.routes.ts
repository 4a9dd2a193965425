/**
 * Style B row writes (API document "Style B endpoints"; CONTRACT sections 8 and 10) under
 * `/tables/{table_id}`: the single upsert answers 201 `{row_id, data}` without the envelope, bulk
 * answers the envelope with `meta {created, updated}`, PATCH the envelope, DELETE 204.
 */
import { Router, type Request } from 'express';
import type { CoreDeps } from '../deps';
import { deleteRow, patchRow, upsertRows } from '../../core/datatables/rows.write';
import { single } from '../envelope';
import { presentRowB } from './present';
import { param, workspaceOf } from '../query-values';

type Body = Record<string, unknown>;
const bodyOf = (req: Request): Body => (req.body ?? {}) as Body;


/** Write routes mounted at `/api/v1/workspaces`. */
export function styleBWritesRouter({ db }: CoreDeps): Router {
  const r = Router();

  r.post('/:workspace_id/tables/:table_id/entries', async (req, res) => {
    const [row] = await upsertRows(db, workspaceOf(req), param(req, 'table_id'), [bodyOf(req).data as Body], {
      single: true,
      requireId: true,
    });
    res.status(201).json(presentRowB(row!));
  });
  r.post('/:workspace_id/tables/:table_id/bulk-entries', async (req, res) => {
    const rows = await upsertRows(db, workspaceOf(req), param(req, 'table_id'), bodyOf(req).data as Body[], {
      single: false,
      requireId: true,
      maxItems: 1000,
    });
    const created = rows.filter((row) => row.created).length;
    res.json({ ...single(req, rows.map((r) => presentRowB(r))), meta: { created, updated: rows.length - created } });
  });
  r.patch('/:workspace_id/tables/:table_id/entries/:row_id', async (req, res) => {
    const row = await patchRow(db, workspaceOf(req), param(req, 'table_id'), param(req, 'row_id'), bodyOf(req).data as Body);
    res.json(single(req, presentRowB(row)));
  });
  r.delete('/:workspace_id/tables/:table_id/entries/:row_id', async (req, res) => {
    await deleteRow(db, workspaceOf(req), param(req, 'table_id'), param(req, 'row_id'));
    res.status(204).end();
  });
  return r;
}
