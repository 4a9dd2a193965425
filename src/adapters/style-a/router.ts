/**
 * Style A reads (API document "Style A endpoints"): cursor pages with `has_more`, snake_case,
 * `/datatables`. Each handler parses its parameters, calls the core and presents the result.
 */
import { Router, type Request, type Response } from 'express';
import type { KeysetPage } from '../../core/query/list';
import type { SortedKeysetParams } from '../../core/query/simple-list';
import type { Db } from '../../db';
import type { CoreDeps } from '../deps';
import { answeredNotModified } from '../../platform/conditional';
import { listApiKeys } from '../../core/api-keys/api-keys.store';
import { getDatatable, getRow, listDatatables, listRowsKeyset } from '../../core/datatables/datatables.store';
import { listEmailEventsKeyset } from '../../core/email-events/email-events.store';
import { getForm, getFormSchema, getFormSummary, getQuestion, listForms, listQuestions } from '../../core/forms/forms.store';
import { getWebhookEndpoint, listWebhookEndpoints } from '../../core/webhooks/webhooks.store';
import { getWorkspace, listWorkspaces } from '../../core/workspaces/workspaces.store';
import { keysetPage, single, wholeListA } from '../envelope';
import { callerOf, createdRangeA, included, param, str, workspaceOf } from '../query-values';
import { keysetParams } from './params';
import {
  presentApiKey,
  presentDatatableA,
  presentEmailEventA,
  presentFormA,
  presentQuestionA,
  presentRowA,
  presentSchemaA,
  presentSummaryA,
  presentWebhookEndpoint,
} from './present';
import { responsesListA } from './responses.routes';

/** Routes mounted at `/api/v1/workspaces`. Shared responses paths are mounted by the style selector (responses.routes.ts). */
export function styleARouter(deps: CoreDeps): Router {
  const { db } = deps;
  const r = Router();
  /** A keyset list of a small collection that `sort` may order by `created_at` or `name` (forms, datatables). */
  const sortedList =
    <T>(list: (db: Db, workspaceId: string, params: SortedKeysetParams) => Promise<KeysetPage<T>>, present: (item: T) => unknown) =>
    async (req: Request, res: Response) => {
      res.json(keysetPage(req, await list(db, workspaceOf(req), { ...keysetParams(req), sort: str(req, 'sort') }), present));
    };

  r.get('/', async (req, res) => {
    res.json(wholeListA(req, await listWorkspaces(db, req.auth?.workspaceIds ?? [])));
  });
  r.get('/:workspace_id', async (req, res) => {
    res.json(single(req, await getWorkspace(db, workspaceOf(req))));
  });

  r.get('/:workspace_id/forms', sortedList(listForms, presentFormA));
  r.get('/:workspace_id/forms/:form_id', async (req, res) => {
    res.json(single(req, presentFormA(await getForm(db, workspaceOf(req), param(req, 'form_id'), { questions: included(req, 'questions') }))));
  });
  r.get('/:workspace_id/forms/:form_id/schema', async (req, res) => {
    const schema = await getFormSchema(db, workspaceOf(req), param(req, 'form_id'));
    res.setHeader('ETag', schema.etag);
    res.setHeader('Cache-Control', 'private, no-cache');
    if (await answeredNotModified(req, res)) return;
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

  r.get('/:workspace_id/datatables', sortedList(listDatatables, presentDatatableA));
  r.get('/:workspace_id/datatables/:datatable_id', async (req, res) => {
    res.json(single(req, presentDatatableA(await getDatatable(db, workspaceOf(req), param(req, 'datatable_id'), { fields: included(req, 'fields') }))));
  });
  r.get('/:workspace_id/datatables/:datatable_id/rows', async (req, res) => {
    const page = await listRowsKeyset(db, workspaceOf(req), param(req, 'datatable_id'), {
      filter: str(req, 'filter'),
      sort: str(req, 'sort'),
      pagination: keysetParams(req),
    });
    res.json(keysetPage(req, page, presentRowA));
  });
  r.get('/:workspace_id/datatables/:datatable_id/rows/:row_id', async (req, res) => {
    res.json(single(req, presentRowA(await getRow(db, workspaceOf(req), param(req, 'datatable_id'), param(req, 'row_id')))));
  });

  const eventsHandler = (byEmail: boolean) => async (req: Request, res: Response) => {
    const page = await listEmailEventsKeyset(db, workspaceOf(req), {
      emailId: byEmail ? param(req, 'email_id') : str(req, 'email_id'),
      type: str(req, 'type'),
      recipient: str(req, 'recipient'),
      created: createdRangeA(req),
      sort: str(req, 'sort'),
      pagination: keysetParams(req),
    });
    res.json(keysetPage(req, page, presentEmailEventA));
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
    res.json(wholeListA(req, (await listApiKeys(db, workspaceOf(req), callerOf(req))).map(presentApiKey)));
  });
  return r;
}
