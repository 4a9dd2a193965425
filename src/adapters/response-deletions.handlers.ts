/**
 * Deleting responses on the shared paths (docs/api-rules.md, "Deleting responses"): `DELETE {ws}/responses/{id}`,
 * `POST {ws}/response-deletions` (a bulk delete by the list's filters, or its dry run) and
 * `GET {ws}/response-deletions/{deletion_id}`. Each style brings the names of its body fields, how it reads its
 * dates and its presenter (style-a/ and style-b/ responses.routes.ts); the selector in shared-responses.ts picks
 * the style. The edge opens the transactions; the core deletes (core/responses/deletions.ts).
 */
import type { Request, RequestHandler } from 'express';
import { AppError, errors } from '../core/errors';
import { recordAudit } from '../core/audit/audit.store';
import { responseDeleted, responseDeletionCreated } from '../core/audit/audit-events';
import {
  deleteResponse,
  deletionFilterNames,
  dryRunResult,
  getResponseDeletion,
  planResponseDeletion,
  queueDeletion,
  runInlineDeletion,
  type DeletionFilters,
  type ResponseDeletion,
} from '../core/responses/deletions';
import { RESPONSE_DELETE_DEFAULTS } from '../core/responses/delete-limits';
import { withTransaction } from '../db';
import { auditOrigin } from './audit-origin';
import type { CoreDeps } from './deps';
import { single } from './envelope';
import { bodyOf, callerOf, param, workspaceOf } from './query-values';
import type { ResponseDeletionA, ResponseDeletionB, ResponseDeletionRequest } from '../wire/types.gen';

type Body = ResponseDeletionRequest;

/** What differs between the styles. */
export interface DeletionStyle {
  style: 'A' | 'B';
  /** Body fields of the other style only (given to this style: a 400 naming it). */
  otherNames: ReadonlyArray<keyof Body>;
  /** The field named when no filter is given. */
  formField: keyof Body;
  /** Reads the body's filters (dates by the style's rules) and whether it is a dry run. */
  read(body: Body): { filters: DeletionFilters; dryRun: boolean };
  /** Error field names of the list's parameters as this style's body spells them (`id_in` → `ids`). */
  fieldNames: Readonly<Record<string, string>>;
  present(d: ResponseDeletion): ResponseDeletionA | ResponseDeletionB;
}

/** A list parameter's validation error restated for the body: location `body`, the body's field names. */
function inBody(err: unknown, names: Readonly<Record<string, string>>): unknown {
  if (!(err instanceof AppError) || !err.details) return err;
  const rename = (f: string) => names[f] ?? f;
  const details = err.details.map((d) => ({ ...d, location: 'body' as const, field: rename(d.field) }));
  const message = err.details.length === 1 ? err.message.replace(/`([a-z_]+)`/g, (m, f: string) => (names[f] ? `\`${names[f]}\`` : m)) : err.message;
  return new AppError(err.code, err.status, message, details, err.headers);
}

/** The three handlers of deleting responses in one style. */
export function responseDeletionHandlers(
  { db, responseDeleteInlineMax = RESPONSE_DELETE_DEFAULTS.inlineMax }: Pick<CoreDeps, 'db' | 'responseDeleteInlineMax'>,
  s: DeletionStyle,
): { deleteOne: RequestHandler; create: RequestHandler; get: RequestHandler } {
  const plan = async (req: Request) => {
    const body = bodyOf<Body>(req);
    const other = s.otherNames.find((n) => body[n] !== undefined);
    if (other !== undefined) throw errors.invalid('body', other, `\`${other}\` is the other style's name; Style ${s.style} does not take it.`);
    try {
      const { filters, dryRun } = s.read(body);
      return { dryRun, plan: await planResponseDeletion(db, workspaceOf(req), filters, { emptyField: s.formField }) };
    } catch (e) {
      throw inBody(e, s.fieldNames);
    }
  };
  return {
    deleteOne: async (req, res) => {
      const ws = workspaceOf(req);
      await withTransaction(db, async (trx) => {
        const gone = await deleteResponse(trx, ws, param(req, 'response_id'));
        await recordAudit(trx, auditOrigin(req), responseDeleted(ws, gone.id, gone.formId));
      });
      res.status(204).end();
    },
    create: async (req, res) => {
      const ws = workspaceOf(req);
      const by = callerOf(req).id;
      const { dryRun, plan: p } = await plan(req);
      if (dryRun) {
        res.json(single(req, s.present(dryRunResult(p))));
        return;
      }
      const inline = p.matched <= responseDeleteInlineMax;
      const deletion = await withTransaction(db, async (trx) => {
        const d = inline ? await runInlineDeletion(trx, ws, p, by) : await queueDeletion(trx, ws, p, by);
        await recordAudit(trx, auditOrigin(req), responseDeletionCreated(ws, { ...d, id: d.id! }, deletionFilterNames(p.filters)));
        return d;
      });
      res.status(inline ? 200 : 202).json(single(req, s.present(deletion)));
    },
    get: async (req, res) => {
      res.json(single(req, s.present(await getResponseDeletion(db, workspaceOf(req), param(req, 'deletion_id')))));
    },
  };
}
