/**
 * The one place that hands a shared path to a style (CONTRACT section 2): `{ws}/responses`,
 * `{ws}/responses/export` (section 15), `{ws}/responses/{response_id}` and v2 `/responses`. `req.style` was decided by platform/style-selection.
 */
import { Router, type RequestHandler } from 'express';
import type { CoreDeps } from './deps';
import { responsesExport } from './responses-export';
import { responseCreate } from './responses.write';
import { responseGetA, responsesListA } from './style-a/router';
import { responseGetB, responsesListB } from './style-b/responses.routes';

const byStyle =
  (a: RequestHandler, b: RequestHandler): RequestHandler =>
  (req, res, next) =>
    (req.style === 'B' ? b : a)(req, res, next);

/** Mounted at `/api/v1/workspaces` and `/api/v2/workspaces`. */
export function sharedResponsesRouter(deps: CoreDeps, version: 1 | 2): Router {
  const r = Router();
  const v2 = version === 2;
  r.get('/:workspace_id/responses', byStyle(responsesListA(deps, { v2 }), responsesListB(deps, { v2 })));
  // The export is matched before `/responses/:response_id` would take "export" for an id.
  if (!v2) r.get('/:workspace_id/responses/export', byStyle(responsesExport(deps, 'A'), responsesExport(deps, 'B')));
  if (!v2) r.post('/:workspace_id/responses', byStyle(responseCreate(deps, 'A'), responseCreate(deps, 'B')));
  if (!v2) r.get('/:workspace_id/responses/:response_id', byStyle(responseGetA(deps), responseGetB(deps)));
  return r;
}
