/**
 * Style A query parameters (API document "Common query parameters"; docs/api-rules.md, "Lists and pages"): `limit`
 * 1..100 (default 20) and an opaque `cursor`, rejected with a 400 naming the field when out of range, never clamped.
 */
import type { Request } from 'express';
import { int, str } from '../query-values';

/** Style A page parameters as a core keyset pagination. */
export function keysetParams(req: Request): { kind: 'keyset'; limit: number; cursor: string | undefined } {
  return { kind: 'keyset', limit: int(req, 'limit', 1, 100, 20), cursor: str(req, 'cursor') };
}
