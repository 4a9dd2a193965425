/**
 * Style B query parameters (API document "Style B query parameters"; docs/api-rules.md, "Lists and pages"): `page` ≥ 1
 * (default 1) and `limit` 1..1000 (default 50), rejected with a 400 naming the field when out of range,
 * never clamped. The OpenAPI validator has coerced types already; these are the style's own rules.
 */
import type { Request } from 'express';
import { int } from '../query-values';

/** Style B page parameters as a core pagination. */
export function pageParams(req: Request): { kind: 'page'; page: number; limit: number } {
  return {
    kind: 'page',
    page: int(req, 'page', 1, Number.MAX_SAFE_INTEGER, 1),
    limit: int(req, 'limit', 1, 1000, 50),
  };
}
