/**
 * Style B responses on the shared paths (API document "Style B endpoints"): `{ws}/responses` with page
 * paging, multi-field `sort`, `filter`, `start_date`/`end_date`, and `{ws}/responses/{response_id}`.
 * The style selector in shared-responses.ts hands requests here.
 */
import type { Request, Response } from 'express';
import { getResponse, listResponses, type ResponseFilterQuery } from '../../core/responses/responses.service';
import type { CoreDeps } from '../deps';
import { offsetPage, single } from '../envelope';
import { bool, createdRangeB, param, str, workspaceOf } from '../query-values';
import { pageParams } from './params';
import { presentResponseB } from './present';

/** The Style B filters and sort of a responses list (shared by the list and the export). */
export function responsesFilterB(req: Request): ResponseFilterQuery {
  return {
    formId: str(req, 'form_id'),
    created: createdRangeB(req),
    filter: str(req, 'filter'),
    sort: str(req, 'sort'),
    multiSort: true,
    include: {
      formName: true,
      tableData: bool(req, 'include_table_data'),
      actionlists: bool(req, 'include_actionlist_data'),
    },
  };
}

/** GET {ws}/responses in Style B; `v2` (GET /api/v2/…/responses) adds reporting labels. */
export function responsesListB({ db }: CoreDeps, opts: { v2?: boolean } = {}) {
  return async (req: Request, res: Response) => {
    const pagination = pageParams(req);
    const page = await listResponses(db, workspaceOf(req), { ...responsesFilterB(req), pagination });
    if (page.kind !== 'page') throw new Error('expected an offset page');
    res.json(offsetPage(req, page.items.map((r) => presentResponseB(r, opts.v2)), page));
  };
}

/** GET {ws}/responses/{response_id} in Style B. */
export function responseGetB({ db }: CoreDeps) {
  return async (req: Request, res: Response) => {
    const r = await getResponse(db, workspaceOf(req), param(req, 'response_id'), {
      formName: true,
      tableData: bool(req, 'include_table_data'),
      actionlists: bool(req, 'include_actionlist_data'),
    });
    res.json(single(req, presentResponseB(r)));
  };
}
