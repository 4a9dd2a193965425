/**
 * Style B row writes (API document "Style B endpoints"; docs/writes-keys-limits.md, "Row writes") under
 * `/tables/{table_id}`: the single upsert answers 201 `{row_id, data}` without the envelope, bulk
 * answers the envelope with `meta {created, updated}`, PATCH the envelope, DELETE 204.
 */
import { Router } from 'express';
import type { CoreDeps } from '../deps';
import { prepareRowUpsert } from '../../core/datatables/datatables.store';
import { single } from '../envelope';
import { bodyOf, param, workspaceOf } from '../query-values';
import { rowItemRoutes, writeRowsAudited } from '../row-item.routes';
import type { BulkEntriesRequestB, EntryUpsertRequestB } from '../../wire/types.gen';
import { presentRowB } from './present';

/** Write routes mounted at `/api/v1/workspaces`. */
export function styleBWritesRouter({ db }: CoreDeps): Router {
  const r = Router();

  r.post('/:workspace_id/tables/:table_id/entries', async (req, res) => {
    const upsert = await prepareRowUpsert(db, workspaceOf(req), param(req, 'table_id'), [bodyOf<EntryUpsertRequestB>(req).data], {
      single: true,
      requireId: true,
    });
    const [row] = await writeRowsAudited(db, req, upsert);
    res.status(201).json(presentRowB(row!));
  });
  r.post('/:workspace_id/tables/:table_id/bulk-entries', async (req, res) => {
    const upsert = await prepareRowUpsert(db, workspaceOf(req), param(req, 'table_id'), bodyOf<BulkEntriesRequestB>(req).data, {
      single: false,
      requireId: true,
      maxItems: 1000,
    });
    const rows = await writeRowsAudited(db, req, upsert);
    const created = rows.filter((row) => row.created).length;
    res.json({
      ...single(
        req,
        rows.map((r) => presentRowB(r)),
      ),
      meta: { created, updated: rows.length - created },
    });
  });
  rowItemRoutes(r, db, { path: '/:workspace_id/tables/:table_id/entries/:row_id', tableParam: 'table_id', present: (row) => presentRowB(row) });
  return r;
}
