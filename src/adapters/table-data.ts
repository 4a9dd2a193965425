/**
 * The `table_data` presenter both styles share (docs/decisions.md, "Resource shapes"): the row's columns as captured
 * when the response was submitted, plus `row_id` and `_captured_at`; `null` when the response has no row.
 */
import type { CapturedRow } from '../core/responses/responses.types';
import type { TableData } from '../wire/types.gen';

export function presentTableData(t: CapturedRow | null): TableData {
  if (t === null) return null;
  return { ...t.columns, row_id: t.rowId, _captured_at: t.capturedAt ? t.capturedAt.toISOString() : null };
}
