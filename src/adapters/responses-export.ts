/**
 * GET {ws}/responses/export?format=ndjson|csv (docs/analytics.md, "Exports"), the part both styles share: the
 * style selector picks a style's handler (style-a/ or style-b/responses.routes.ts), which calls `responsesExport`
 * with its list filters and sort (responsesFilterA/B, the same code as the lists) and its presenter; the rows
 * stream through `streamResponsesExport` (src/platform/export-stream.ts), which the dashboard download shares.
 * Exports at once are capped per key and per instance (src/platform/export-slots.ts).
 */
import type { Request, Response } from 'express';
import { errors } from '../core/errors';
import type { ResponseFilterQuery } from '../core/responses/responses.store';
import { streamResponsesExport, type ExportPresentation } from '../platform/export-stream';
import type { CoreDeps } from './deps';
import { str, workspaceOf } from './query-values';

/** What one style's export handler brings. */
export interface ExportStyle extends ExportPresentation {
  /** The filters and sort of the style's `{ws}/responses` list. */
  filters(req: Request): ResponseFilterQuery;
}

/**
 * The export handler of the style that `style` describes (mounted by shared-responses.ts before `/responses/:response_id`).
 * Takes an export slot of the key (`exportSlots`).
 * @throws AppError validation_error for a bad format or filter; rate_limit_exceeded (429) over an export cap.
 */
export function responsesExport(deps: Pick<CoreDeps, 'db' | 'exportSlots'>, style: ExportStyle) {
  return async (req: Request, res: Response) => {
    const workspaceId = workspaceOf(req);
    const format = str(req, 'format') ?? 'ndjson';
    if (format !== 'ndjson' && format !== 'csv') {
      throw errors.invalid('query', 'format', `\`format\` must be ndjson or csv; got "${format}".`);
    }
    await streamResponsesExport(deps, req, res, {
      workspaceId,
      format,
      filters: style.filters(req),
      present: (r) => style.present(r),
      createdColumn: style.createdColumn,
      slotOwner: `key:${req.auth?.id ?? ''}`,
    });
  };
}
