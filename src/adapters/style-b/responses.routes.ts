/**
 * Style B responses on the shared paths (API document "Style B endpoints"; docs/collecting.md, "Server to
 * server"; docs/analytics.md, "Exports"): `{ws}/responses` with page paging, multi-field `sort`, `filter`,
 * `start_date`/`end_date`, `{ws}/responses/{response_id}`, `POST {ws}/responses` and `{ws}/responses/export`; deleting
 * responses (docs/api-rules.md, "Deleting responses").
 * The style selector in shared-responses.ts hands requests here.
 */
import type { Request, Response } from 'express';
import { AppError, errors } from '../../core/errors';
import { getResponse, listResponsesOffset, type ResponseFilterQuery } from '../../core/responses/responses.store';
import type { CoreDeps } from '../deps';
import { offsetPage, single } from '../envelope';
import { responsesExport } from '../responses-export';
import { responsesStream } from '../streams.handlers';
import { respondentExport } from '../respondents-export';
import { answersSpelled, createdAtValue, responseCreate } from '../response-create.handlers';
import { bool, createdRangeB, param, str, workspaceOf } from '../query-values';
import { pageParams } from './params';
import { presentEmailEventB, presentResponseB, presentRowB } from './present';
import type { ResponseCreateRequest, ResponseDeletionB, ResponseDeletionRequest } from '../../wire/types.gen';
import { responseDeletionHandlers } from '../response-deletions.handlers';
import type { ResponseDeletion } from '../../core/responses/deletions';
import { endDateBound, fromBound } from '../../core/query/dates';
import { RESPONSE_ANSWER_PARAMS } from '../../core/responses/responses.store';

/** The Style A answer filter fields of the bulk delete's body (`answer`, `answer_in`, …): a 400 in Style B. */
const ANSWER_FIELDS_A = RESPONSE_ANSWER_PARAMS.map((p) => p.name) as Array<keyof ResponseDeletionRequest>;

/** The Style B filters and sort of a responses list (shared by the list and the export). */
export function responsesFilterB(req: Request): ResponseFilterQuery {
  return {
    formId: str(req, 'form_id'),
    created: createdRangeB(req),
    filter: str(req, 'filter'),
    sort: str(req, 'sort'),
    q: str(req, 'q'),
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
    const page = await listResponsesOffset(db, workspaceOf(req), { ...responsesFilterB(req), pagination });
    res.json(
      offsetPage(
        req,
        page.items.map((r) => presentResponseB(r, opts.v2)),
        page,
      ),
    );
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

/** Rewrites `answers[i].question_id` in an error's details to the Style B spelling `answers[i].id`. */
function detailsInStyleB(err: unknown): unknown {
  if (!(err instanceof AppError) || !err.details) return err;
  const rename = (s: string) => s.replace(/(answers\[\d+\])\.question_id/g, '$1.id');
  return new AppError(
    err.code,
    err.status,
    rename(err.message),
    err.details.map((d) => ({ ...d, field: rename(d.field), message: rename(d.message) })),
    err.headers,
  );
}

/** Style B takes `createdAt` or `created_at`, not both. */
function createdAtB(body: ResponseCreateRequest): Date | undefined {
  if (body.created_at !== undefined && body.createdAt !== undefined) {
    throw errors.invalid('body', 'createdAt', 'Give `created_at` or `createdAt`, not both.');
  }
  const field = body.createdAt !== undefined ? 'createdAt' : 'created_at';
  return createdAtValue(body[field], field);
}

/** POST {ws}/responses in Style B: answers name their question `id`, and errors say so. */
export const responseCreateB = (deps: CoreDeps) =>
  responseCreate(deps, {
    answers: (answers) => answersSpelled(answers, { style: 'B', own: 'id', foreign: 'question_id' }),
    createdAt: createdAtB,
    spellError: detailsInStyleB,
    present: (r) => presentResponseB(r),
  });

/** GET {ws}/responses/export in Style B: the list's filters, Style B records, a `createdAt` column. */
export const responsesExportB = (deps: CoreDeps) =>
  responsesExport(deps, { filters: responsesFilterB, present: (r) => presentResponseB(r), createdColumn: 'createdAt' });

/** GET {ws}/respondents/export in Style B: camelCase resources (rows with their times), `emailEvents` in the summary. */
export const respondentExportB = (deps: CoreDeps) =>
  respondentExport(deps, {
    response: (r) => presentResponseB(r),
    emailEvent: presentEmailEventB,
    row: (r) => presentRowB(r, true),
    emailEventsKey: 'emailEvents',
  });

/** `DELETE {ws}/responses/{id}`, `POST {ws}/response-deletions`, `GET {ws}/response-deletions/{id}` in Style B. */
export const responseDeletionsB = (deps: CoreDeps) =>
  responseDeletionHandlers(deps, {
    style: 'B',
    otherNames: ['form_id', 'created_after', 'created_before', 'score_gte', 'score_lte', 'dry_run', ...ANSWER_FIELDS_A],
    formField: 'formId',
    fieldNames: { id_in: 'ids', form_id: 'formId', start_date: 'startDate', end_date: 'endDate' },
    read(body) {
      const created = [
        ...(body.startDate === undefined ? [] : [fromBound(body.startDate, 'start_date')]),
        ...(body.endDate === undefined ? [] : [endDateBound(body.endDate, 'end_date')]),
      ];
      return {
        dryRun: body.dryRun === true,
        filters: { formId: body.formId, created, filter: body.filter, typed: idsFilter(body.ids) },
      };
    },
    present: presentResponseDeletionB,
  });

/** The typed filter of the body's `ids` (the list's `id_in`), none when absent. */
function idsFilter(ids: string[] | undefined): Record<string, string[]> {
  return ids === undefined ? {} : { id_in: ids };
}

/** A bulk delete in Style B (camelCase). */
export function presentResponseDeletionB(d: ResponseDeletion): ResponseDeletionB {
  return {
    id: d.id,
    status: d.status,
    dryRun: d.dryRun,
    matched: d.matched,
    deleted: d.deleted,
    createdAt: d.createdAt.toISOString(),
    finishedAt: d.finishedAt ? d.finishedAt.toISOString() : null,
  };
}

/** GET {ws}/responses/stream in Style B (docs/live.md, "Stream"): the list's filters, the style's responses. */
export const responsesStreamB = (deps: CoreDeps) =>
  responsesStream(deps, { style: 'B', filters: (req) => responsesFilterB(req), present: (r) => presentResponseB(r) });
