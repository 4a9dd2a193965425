/**
 * Erasure requests on the shared paths (docs/data-rights.md, "Erasing a person"): `POST {ws}/erasure-requests`,
 * `GET {ws}/erasure-requests/{erasure_id}` and `DELETE {ws}/erasure-requests/{erasure_id}/suppression`, in both styles.
 * The handlers only spell: Style A `row_id`, `dry_run`, `include_rows`, snake_case answers; Style B `rowId`, `dryRun`,
 * `includeRows`, camelCase answers. The work is core/respondents/erasure.ts.
 */
import type { Request, Response } from 'express';
import { errors } from '../core/errors';
import { camelCase } from '../core/query/fields';
import { personAddress } from '../core/respondents/person-data';
import { recordAudit } from '../core/audit/audit.store';
import { suppressionLifted } from '../core/audit/audit-events';
import { ERASED_KINDS, getErasureRequest, liftSuppression, type ErasedCounts, type ErasureRequest } from '../core/respondents/erasure.store';
import { planErasure, runErasure, type OutsideRecords, type PersonKey } from '../core/respondents/erasure';
import { withTransaction } from '../db';
import { auditOrigin } from './audit-origin';
import type { CoreDeps } from './deps';
import { single } from './envelope';
import { param, workspaceOf } from './query-values';

type Style = 'A' | 'B';

/** A name in the style's spelling: Style A as given (snake_case), Style B in camelCase. */
const spell = (style: Style, name: string) => (style === 'A' ? name : camelCase(name));

/** Counts by kind, keys spelled in the style. */
function countsIn(style: Style, counts: ErasedCounts): Record<string, number> {
  return Object.fromEntries(ERASED_KINDS.map((k) => [spell(style, k), counts[k]]));
}

/** An erasure request as the style presents it. */
function presentRequest(style: Style, r: ErasureRequest, thisRun?: ErasedCounts): Record<string, unknown> {
  const s = (name: string) => spell(style, name);
  return {
    id: r.id,
    [s('dry_run')]: false,
    [s('include_rows')]: r.includeRows,
    ...(thisRun ? { removed: countsIn(style, thisRun) } : {}),
    [s('total_removed')]: countsIn(style, r.removed),
    runs: r.runs,
    suppressed: r.suppressed,
    [s('created_at')]: r.createdAt.toISOString(),
    [s('updated_at')]: r.updatedAt.toISOString(),
  };
}

const NONE: OutsideRecords = { count: () => Promise.resolve(0), erase: () => Promise.resolve(0) };

/**
 * The body's fields in `style`: the person (`email`, the row id, or both; neither is a 400 naming `email`), the dry run
 * and whether rows go too. A field of the other style is a 400 naming it.
 */
function readBody(req: Request, style: Style): { person: PersonKey; dryRun: boolean; includeRows: boolean } {
  const body = (req.body ?? {}) as Record<string, unknown>;
  const other: Style = style === 'A' ? 'B' : 'A';
  for (const name of ['dry_run', 'include_rows', 'row_id']) {
    const foreign = spell(other, name);
    if (body[foreign] !== undefined) {
      throw errors.invalid('body', foreign, `\`${foreign}\` is the Style ${other} spelling; Style ${style} takes \`${spell(style, name)}\`.`);
    }
  }
  const rowId = body[spell(style, 'row_id')];
  const hasRow = typeof rowId === 'string';
  const address = body.email === undefined && hasRow ? null : personAddress(typeof body.email === 'string' ? body.email : undefined, 'email', 'body');
  return {
    person: { address, rowId: hasRow ? rowId : null },
    dryRun: body[spell(style, 'dry_run')] === true,
    includeRows: body[spell(style, 'include_rows')] === true,
  };
}

/** The three handlers of one style. */
export function erasureHandlers(deps: Pick<CoreDeps, 'db' | 'idempotencyRecords'>, style: Style) {
  const outside = deps.idempotencyRecords ?? NONE;
  return {
    /** POST {ws}/erasure-requests: 200 with the counts for a dry run; 201 for a first run, 200 for a later one. */
    create: async (req: Request, res: Response) => {
      const ws = workspaceOf(req);
      const { person, dryRun, includeRows } = readBody(req, style);
      if (includeRows && !req.auth?.scopes.includes('datatables:write')) throw errors.insufficientScope('datatables:write');
      if (dryRun) {
        const would = await planErasure(deps.db, ws, { person, includeRows }, outside);
        res.json(
          single(req, {
            id: null,
            [spell(style, 'dry_run')]: true,
            [spell(style, 'include_rows')]: includeRows,
            [spell(style, 'would_remove')]: countsIn(style, would),
          }),
        );
        return;
      }
      const { request, removed } = await runErasure(
        deps.db,
        ws,
        { person, includeRows, requestedBy: req.auth?.id ?? null, requestId: req.requestId, origin: auditOrigin(req) },
        outside,
      );
      res.status(request.runs === 1 ? 201 : 200).json(single(req, presentRequest(style, request, removed)));
    },
    /** GET {ws}/erasure-requests/{erasure_id}. */
    get: async (req: Request, res: Response) => {
      const request = await getErasureRequest(deps.db, workspaceOf(req), param(req, 'erasure_id'));
      res.json(single(req, presentRequest(style, request)));
    },
    /** DELETE {ws}/erasure-requests/{erasure_id}/suppression: 204 (also when lifted already). */
    liftSuppression: async (req: Request, res: Response) => {
      const ws = workspaceOf(req);
      const id = param(req, 'erasure_id');
      await withTransaction(deps.db, async (trx) => {
        if (await liftSuppression(trx, ws, id)) await recordAudit(trx, auditOrigin(req), suppressionLifted(ws, id));
      });
      res.status(204).end();
    },
  };
}
