/**
 * Style A reads (API document "Style A endpoints"): cursor pages with `has_more`, snake_case,
 * `/datatables`. Each handler parses its parameters, calls the core and presents the result.
 */
import { Router, type Request } from 'express';
import type { CoreDeps } from '../deps';
import { listApiKeys } from '../../core/api-keys/api-keys.service';
import { getDatatable, getRow, listDatatables, listRows } from '../../core/datatables/datatables.service';
import { listEmailEvents } from '../../core/email-events/email-events.service';
import { assertFormExists, getForm, getFormSchema, getFormSummary, getQuestion, listForms, listQuestions } from '../../core/forms/forms.service';
import { getResponse, listResponses, type ResponseFilterQuery } from '../../core/responses/responses.service';
import { getWebhookEndpoint, listWebhookEndpoints } from '../../core/webhooks/webhooks.service';
import { getWorkspace, listWorkspaces } from '../../core/workspaces/workspaces.service';
import { cursorPage, single, wholeListA } from '../envelope';
import { bool, createdRangeA, int, num, param, str, workspaceOf } from '../query-values';
import {
  presentApiKey,
  presentDatatableA,
  presentEmailEventA,
  presentFormA,
  presentQuestionA,
  presentResponseA,
  presentRowA,
  presentSchemaA,
  presentSummaryA,
  presentWebhookEndpoint,
} from './present';

/** Style A page parameters: `limit` 1..100 (default 20) and `cursor` (CONTRACT section 7). */
export function keysetParams(req: Request): { kind: 'keyset'; limit: number; cursor: string | undefined } {
  return { kind: 'keyset', limit: int(req, 'limit', 1, 100, 20), cursor: str(req, 'cursor') };
}

/** The Style A filters and sort of a responses list (shared by the list and the export). */
export function responsesFilterA(req: Request, formId: string | undefined): ResponseFilterQuery {
  return {
    formId,
    created: createdRangeA(req),
    scoreGte: num(req, 'score_gte'),
    scoreLte: num(req, 'score_lte'),
    sort: str(req, 'sort'),
    include: { tableData: bool(req, 'include_table_data') },
  };
}

/** GET {ws}/responses and {ws}/forms/{form_id}/responses in Style A; `v2` adds reporting labels. */
export function responsesListA({ db }: CoreDeps, opts: { v2?: boolean; byForm?: boolean } = {}) {
  return async (req: Request, res: import('express').Response) => {
    const ws = workspaceOf(req);
    const formId = opts.byForm ? param(req, 'form_id') : str(req, 'form_id');
    if (opts.byForm) await assertFormExists(db, ws, formId!);
    const page = await listResponses(db, ws, { ...responsesFilterA(req, formId), pagination: keysetParams(req) });
    if (page.kind !== 'keyset') throw new Error('expected a keyset page');
    res.json(cursorPage(req, page.items.map((r) => presentResponseA(r, opts.v2)), page.limit, page.nextCursor, page.prevCursor));
  };
}

export function responseGetA({ db }: CoreDeps) {
  return async (req: Request, res: import('express').Response) => {
    const r = await getResponse(db, workspaceOf(req), param(req, 'response_id'), { tableData: bool(req, 'include_table_data') });
    res.json(single(req, presentResponseA(r)));
  };
}

/** Routes mounted at `/api/v1/workspaces`. Shared responses paths are mounted by the style selector. */
export function styleARouter(deps: CoreDeps): Router {
  const { db } = deps;
  const r = Router();

  r.get('/', async (req, res) => {
    res.json(wholeListA(req, await listWorkspaces(db, req.auth?.workspaceIds ?? [])));
  });
  r.get('/:workspace_id', async (req, res) => {
    res.json(single(req, await getWorkspace(db, workspaceOf(req))));
  });

  r.get('/:workspace_id/forms', async (req, res) => {
    const p = keysetParams(req);
    const page = await listForms(db, workspaceOf(req), { limit: p.limit, cursor: p.cursor, sort: str(req, 'sort') });
    res.json(cursorPage(req, page.items.map(presentFormA), page.limit, page.nextCursor, page.prevCursor));
  });
  r.get('/:workspace_id/forms/:form_id', async (req, res) => {
    const form = await getForm(db, workspaceOf(req), param(req, 'form_id'), { questions: str(req, 'include') === 'questions' });
    res.json(single(req, presentFormA(form)));
  });
  r.get('/:workspace_id/forms/:form_id/schema', async (req, res) => {
    const schema = await getFormSchema(db, workspaceOf(req), param(req, 'form_id'));
    res.setHeader('ETag', schema.etag);
    res.setHeader('Cache-Control', 'private, no-cache');
    if (ifNoneMatch(req.get('If-None-Match'), schema.etag)) {
      res.status(304).end();
      return;
    }
    res.json(single(req, presentSchemaA(schema)));
  });
  r.get('/:workspace_id/forms/:form_id/analytics/summary', async (req, res) => {
    res.json(single(req, presentSummaryA(await getFormSummary(db, workspaceOf(req), param(req, 'form_id')))));
  });
  r.get('/:workspace_id/forms/:form_id/questions', async (req, res) => {
    res.json(wholeListA(req, (await listQuestions(db, workspaceOf(req), param(req, 'form_id'))).map(presentQuestionA)));
  });
  r.get('/:workspace_id/forms/:form_id/questions/:question_id', async (req, res) => {
    const q = await getQuestion(db, workspaceOf(req), param(req, 'form_id'), param(req, 'question_id'));
    res.json(single(req, presentQuestionA(q)));
  });
  r.get('/:workspace_id/forms/:form_id/responses', responsesListA(deps, { byForm: true }));

  r.get('/:workspace_id/datatables', async (req, res) => {
    const p = keysetParams(req);
    const page = await listDatatables(db, workspaceOf(req), { limit: p.limit, cursor: p.cursor, sort: str(req, 'sort') });
    res.json(cursorPage(req, page.items.map(presentDatatableA), page.limit, page.nextCursor, page.prevCursor));
  });
  r.get('/:workspace_id/datatables/:datatable_id', async (req, res) => {
    const t = await getDatatable(db, workspaceOf(req), param(req, 'datatable_id'), { fields: str(req, 'include') === 'fields' });
    res.json(single(req, presentDatatableA(t)));
  });
  r.get('/:workspace_id/datatables/:datatable_id/rows', async (req, res) => {
    const page = await listRows(db, workspaceOf(req), param(req, 'datatable_id'), {
      filter: str(req, 'filter'),
      sort: str(req, 'sort'),
      pagination: keysetParams(req),
    });
    if (page.kind !== 'keyset') throw new Error('expected a keyset page');
    res.json(cursorPage(req, page.items.map(presentRowA), page.limit, page.nextCursor, page.prevCursor));
  });
  r.get('/:workspace_id/datatables/:datatable_id/rows/:row_id', async (req, res) => {
    res.json(single(req, presentRowA(await getRow(db, workspaceOf(req), param(req, 'datatable_id'), param(req, 'row_id')))));
  });

  const eventsHandler = (byEmail: boolean) => async (req: Request, res: import('express').Response) => {
    const page = await listEmailEvents(db, workspaceOf(req), {
      emailId: byEmail ? param(req, 'email_id') : str(req, 'email_id'),
      type: str(req, 'type'),
      recipient: str(req, 'recipient'),
      created: createdRangeA(req),
      sort: str(req, 'sort'),
      pagination: keysetParams(req),
    });
    if (page.kind !== 'keyset') throw new Error('expected a keyset page');
    res.json(cursorPage(req, page.items.map(presentEmailEventA), page.limit, page.nextCursor, page.prevCursor));
  };
  r.get('/:workspace_id/email-events', eventsHandler(false));
  r.get('/:workspace_id/emails/:email_id/events', eventsHandler(true));

  r.get('/:workspace_id/webhook-endpoints', async (req, res) => {
    res.json(wholeListA(req, (await listWebhookEndpoints(db, workspaceOf(req))).map(presentWebhookEndpoint)));
  });
  r.get('/:workspace_id/webhook-endpoints/:endpoint_id', async (req, res) => {
    res.json(single(req, presentWebhookEndpoint(await getWebhookEndpoint(db, workspaceOf(req), param(req, 'endpoint_id')))));
  });

  r.get('/:workspace_id/api-keys', async (req, res) => {
    res.json(wholeListA(req, (await listApiKeys(db, workspaceOf(req))).map(presentApiKey)));
  });
  return r;
}

/** RFC 9110 If-None-Match: `*` or a list of entity tags (weak comparison). */
export function ifNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  const strip = (t: string) => t.trim().replace(/^W\//, '');
  return header.split(',').some((t) => strip(t) === strip(etag));
}
