/**
 * Style B-only reads (API document "Style B endpoints"): `/tables…` and `/emails/events`, page paging
 * with `meta {total, page, limit, filtered_total}`. Each handler parses its parameters, calls the core
 * and presents the result. The shared responses paths are mounted by adapters/shared-responses.ts.
 */
import { Router, type Request, type Response } from 'express';
import { getDatatable, getRow, listAllDatatables, listRowsOffset } from '../../core/datatables/datatables.store';
import { listEmailEventsOffset } from '../../core/email-events/email-events.store';
import type { CoreDeps } from '../deps';
import { offsetPage, single, wholeListB } from '../envelope';
import { bool, createdRangeB, param, str, workspaceOf } from '../query-values';
import { pageParams } from './params';
import { presentEmailEventB, presentRowB, presentTableB } from './present';

/** Routes mounted at `/api/v1/workspaces`. */
export function styleBRouter({ db }: CoreDeps): Router {
  const r = Router();

  r.get('/:workspace_id/tables', async (req, res) => {
    res.json(wholeListB(req, (await listAllDatatables(db, workspaceOf(req))).map(presentTableB)));
  });
  r.get('/:workspace_id/tables/:table_id/fields', async (req, res) => {
    const table = await getDatatable(db, workspaceOf(req), param(req, 'table_id'), { fields: true });
    res.json(wholeListB(req, ['row_id', ...(table.fields ?? []).map((f) => f.name)]));
  });

  const rowsHandler = async (req: Request, res: Response) => {
    const pagination = pageParams(req);
    const withMetadata = bool(req, 'include_metadata');
    const page = await listRowsOffset(db, workspaceOf(req), param(req, 'table_id'), {
      filter: str(req, 'filter'),
      sort: str(req, 'sort'),
      multiSort: true,
      created: createdRangeB(req),
      pagination,
    });
    res.json(
      offsetPage(
        req,
        page.items.map((row) => presentRowB(row, withMetadata)),
        page,
      ),
    );
  };
  r.get('/:workspace_id/tables/:table_id', rowsHandler);
  r.get('/:workspace_id/tables/:table_id/entries', rowsHandler);
  r.get('/:workspace_id/tables/:table_id/entries/:row_id', async (req, res) => {
    const row = await getRow(db, workspaceOf(req), param(req, 'table_id'), param(req, 'row_id'));
    res.json(single(req, presentRowB(row)));
  });

  r.get('/:workspace_id/emails/events', async (req, res) => {
    const pagination = pageParams(req);
    const page = await listEmailEventsOffset(db, workspaceOf(req), {
      emailId: str(req, 'email_id'),
      type: str(req, 'type'),
      recipient: str(req, 'recipient'),
      created: createdRangeB(req),
      filter: str(req, 'filter'),
      sort: str(req, 'sort'),
      multiSort: true,
      pagination,
    });
    res.json(offsetPage(req, page.items.map(presentEmailEventB), page));
  });
  return r;
}
