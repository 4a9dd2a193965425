/**
 * Style A responses on the shared paths (API document "Style A endpoints"; docs/collecting.md, "Server to
 * server"; docs/analytics.md, "Exports"): `{ws}/responses` with cursor pages, `{ws}/responses/{response_id}`,
 * `POST {ws}/responses` and `{ws}/responses/export`; deleting responses (docs/api-rules.md, "Deleting responses"). The style selector in shared-responses.ts hands
 * requests here; router.ts mounts the list under `{ws}/forms/{form_id}/responses` too.
 */
import type { Request, Response } from 'express';
import { errors } from '../../core/errors';
import { assertFormExists } from '../../core/forms/forms.store';
import {
  getResponse,
  listResponsesKeyset,
  RESPONSE_ANSWER_PARAMS,
  RESPONSE_FILTER_PARAMS,
  RESPONSE_TOPIC_PARAMS,
  type ResponseFilterQuery,
} from '../../core/responses/responses.store';
import type { CoreDeps } from '../deps';
import { keysetPage, single } from '../envelope';
import { responsesExport } from '../responses-export';
import { responsesStream } from '../streams.handlers';
import { respondentExport } from '../respondents-export';
import { answersSpelled, createdAtValue, responseCreate } from '../response-create.handlers';
import { bool, createdRangeA, lists, num, param, str, workspaceOf } from '../query-values';
import { keysetParams } from './params';
import { presentEmailEventA, presentResponseA, presentRowA } from './present';
import type { ResponseCreateRequest, ResponseDeletionA, ResponseDeletionRequest } from '../../wire/types.gen';
import { responseDeletionHandlers } from '../response-deletions.handlers';
import type { ResponseDeletion } from '../../core/responses/deletions';
import { beforeBound, fromBound, type DateBound } from '../../core/query/dates';

const TYPED_FILTER_NAMES = [...RESPONSE_FILTER_PARAMS, ...RESPONSE_ANSWER_PARAMS, ...RESPONSE_TOPIC_PARAMS].map((p) => p.name);

/**
 * The Style A filters and sort of a responses list (shared by the list and the export): `form_id`, dates,
 * `score_gte`/`score_lte`, the typed filter parameters (`id_ne`, `row_id_in`, …; docs/migrating-between-styles.md,
 * "Response filters"), the filters on answers (`answer_gte=q_rating:4`, …; docs/api-rules.md, "Filters on answers"), by topic
 * (`topic=pricing`, …; docs/api-rules.md, "Filtering by topic")
 * and the search `q` (docs/api-rules.md, "Searching text answers").
 */
export function responsesFilterA(req: Request, formId: string | undefined): ResponseFilterQuery {
  return {
    formId,
    created: createdRangeA(req),
    scoreGte: num(req, 'score_gte'),
    scoreLte: num(req, 'score_lte'),
    typed: lists(req, TYPED_FILTER_NAMES),
    sort: str(req, 'sort'),
    q: str(req, 'q'),
    include: { tableData: bool(req, 'include_table_data') },
  };
}

/** GET {ws}/responses and {ws}/forms/{form_id}/responses in Style A; `v2` adds reporting labels. */
export function responsesListA({ db }: CoreDeps, opts: { v2?: boolean; byForm?: boolean } = {}) {
  return async (req: Request, res: Response) => {
    const ws = workspaceOf(req);
    const formId = opts.byForm ? param(req, 'form_id') : str(req, 'form_id');
    if (opts.byForm) await assertFormExists(db, ws, formId!);
    const page = await listResponsesKeyset(db, ws, { ...responsesFilterA(req, formId), pagination: keysetParams(req) });
    res.json(keysetPage(req, page, (r) => presentResponseA(r, opts.v2)));
  };
}

export function responseGetA({ db }: CoreDeps) {
  return async (req: Request, res: Response) => {
    const r = await getResponse(db, workspaceOf(req), param(req, 'response_id'), { tableData: bool(req, 'include_table_data') });
    res.json(single(req, presentResponseA(r)));
  };
}

/** Style A takes `created_at` only; `createdAt` is refused by name. */
function createdAtA(body: ResponseCreateRequest): Date | undefined {
  if (body.createdAt !== undefined) {
    throw errors.invalid('body', 'createdAt', '`createdAt` is the Style B spelling; Style A takes `created_at`.');
  }
  return createdAtValue(body.created_at, 'created_at');
}

/** POST {ws}/responses in Style A: answers name their question `question_id`. */
export const responseCreateA = (deps: CoreDeps) =>
  responseCreate(deps, {
    answers: (answers) => answersSpelled(answers, { style: 'A', own: 'question_id', foreign: 'id' }),
    createdAt: createdAtA,
    spellError: (err) => err,
    present: (r) => presentResponseA(r),
  });

/** GET {ws}/responses/export in Style A: the list's filters, snake_case records, a `created_at` column. */
export const responsesExportA = (deps: CoreDeps) =>
  responsesExport(deps, { filters: (req) => responsesFilterA(req, str(req, 'form_id')), present: (r) => presentResponseA(r), createdColumn: 'created_at' });

/** GET {ws}/respondents/export in Style A: snake_case resources, `email_events` in the summary. */
export const respondentExportA = (deps: CoreDeps) =>
  respondentExport(deps, { response: (r) => presentResponseA(r), emailEvent: presentEmailEventA, row: presentRowA, emailEventsKey: 'email_events' });

const ANSWER_BODY_FIELDS = RESPONSE_ANSWER_PARAMS.map((p) => p.name) as Array<keyof ResponseDeletionRequest>;

/** A Style A date field of the bulk delete's body, read as the list reads its parameter. */
function bodyDate(body: ResponseDeletionRequest, name: 'created_after' | 'created_before', read: (raw: string, field: string) => DateBound): DateBound[] {
  const raw = body[name];
  return raw === undefined ? [] : [read(raw, name)];
}

/** `DELETE {ws}/responses/{id}`, `POST {ws}/response-deletions`, `GET {ws}/response-deletions/{id}` in Style A. */
export const responseDeletionsA = (deps: CoreDeps) =>
  responseDeletionHandlers(deps, {
    style: 'A',
    otherNames: ['formId', 'startDate', 'endDate', 'filter', 'dryRun'],
    formField: 'form_id',
    fieldNames: { id_in: 'ids' },
    read(body) {
      const typed: Record<string, string[]> = {};
      if (body.ids !== undefined) typed.id_in = body.ids;
      for (const name of ANSWER_BODY_FIELDS) {
        const values = body[name];
        if (Array.isArray(values)) typed[name] = values as string[];
      }
      return {
        dryRun: body.dry_run === true,
        filters: {
          formId: body.form_id,
          created: [...bodyDate(body, 'created_after', fromBound), ...bodyDate(body, 'created_before', beforeBound)],
          scoreGte: body.score_gte,
          scoreLte: body.score_lte,
          typed,
        },
      };
    },
    present: presentResponseDeletionA,
  });

/** A bulk delete in Style A (snake_case). */
export function presentResponseDeletionA(d: ResponseDeletion): ResponseDeletionA {
  return {
    id: d.id,
    status: d.status,
    dry_run: d.dryRun,
    matched: d.matched,
    deleted: d.deleted,
    created_at: d.createdAt.toISOString(),
    finished_at: d.finishedAt ? d.finishedAt.toISOString() : null,
  };
}

/** GET {ws}/responses/stream in Style A (docs/live.md, "Stream"): the list's filters, the style's responses. */
export const responsesStreamA = (deps: CoreDeps) =>
  responsesStream(deps, { style: 'A', filters: (req) => responsesFilterA(req, str(req, 'form_id')), present: (r) => presentResponseA(r) });
