/**
 * What stands between one Style B request and a mechanical Style A translation, as the migration report
 * counts it (docs/analytics.md, "Migration report"): the translator's refusal, cut to its part and reason
 * category (`query.sort: several sort fields`). The categories are the openings of the refusal reasons
 * listed in docs/migrating-between-styles.md, "Translating a request", so the set is bounded.
 */
import { translateStyleB } from './translate';
import { REFUSED_BY_B, type StyleBRequest } from './translate-types';

// Refusals that say nothing about migrating: Style B refused the request itself, or it is no Style B request.
const NOT_A_MIGRATION_GAP = [REFUSED_BY_B, 'already Style A', 'not a Style B operation'];

/**
 * @param req the request as Style B answered it (method, path without query, parsed query, headers, body).
 * @returns `'<part>: <category>'` when the request has no mechanical Style A translation, else `''` (also when
 *   the translator cannot read the request at all: the report then counts it as ready).
 */
export function styleBAttention(req: StyleBRequest): string {
  let t;
  try {
    t = translateStyleB(req);
  } catch {
    return '';
  }
  if (t.ok) return '';
  const category = t.reason.split(':')[0]!.trim();
  if (NOT_A_MIGRATION_GAP.some((c) => category.startsWith(c))) return '';
  return `${t.part}: ${category}`.slice(0, 200);
}
