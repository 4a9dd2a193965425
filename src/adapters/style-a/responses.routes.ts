/**
 * Style A responses on the shared paths (API document "Style A endpoints"; docs/collecting.md, "Server to
 * server"; docs/analytics.md, "Exports"): `{ws}/responses` with cursor pages, `{ws}/responses/{response_id}`,
 * `POST {ws}/responses` and `{ws}/responses/export`. The style selector in shared-responses.ts hands
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
  type ResponseFilterQuery,
} from '../../core/responses/responses.store';
import type { CoreDeps } from '../deps';
import { keysetPage, single } from '../envelope';
import { responsesExport } from '../responses-export';
import { answersSpelled, createdAtValue, responseCreate } from '../response-create.handlers';
import { bool, createdRangeA, lists, num, param, str, workspaceOf } from '../query-values';
import { keysetParams } from './params';
import { presentResponseA } from './present';
import type { ResponseCreateRequest } from '../../wire/types.gen';

const TYPED_FILTER_NAMES = [...RESPONSE_FILTER_PARAMS, ...RESPONSE_ANSWER_PARAMS].map((p) => p.name);

/**
 * The Style A filters and sort of a responses list (shared by the list and the export): `form_id`, dates,
 * `score_gte`/`score_lte`, the typed filter parameters (`id_ne`, `row_id_in`, …; docs/migrating-between-styles.md,
 * "Response filters"), the filters on answers (`answer_gte=q_rating:4`, …; docs/api-rules.md, "Filters on answers")
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
