/**
 * The success envelope (API document "Envelope"): exactly `data`, `meta`, `links`, `request_id`.
 * Links are absolute URLs that keep every other query parameter of the request (docs/api-rules.md, "Lists and pages").
 */
import type { Request } from 'express';
import type { KeysetPage } from '../core/query/list';
import type { EmptyObject, ListLinks, ListMetaA, ListMetaB } from '../wire/types.gen';

/** The envelope with its `meta` and `links` as the document gives them (`{}` for one resource, a style's list meta for a page). */
export interface Envelope<T, M = EmptyObject | ListMetaA | ListMetaB, L = EmptyObject | ListLinks> {
  data: T;
  meta: M;
  links: L;
  request_id: string;
}

/** The request's absolute URL with some query parameters replaced (null removes one). */
export function urlWith(req: Request, changes: Record<string, string | number | null>): string {
  const url = new URL(req.originalUrl, `${req.protocol}://${req.get('host') ?? 'localhost'}`);
  for (const [name, value] of Object.entries(changes)) {
    if (value === null) url.searchParams.delete(name);
    else url.searchParams.set(name, String(value));
  }
  return url.toString();
}

export function single<T>(req: Request, data: T): Envelope<T, EmptyObject, EmptyObject> {
  return { data, meta: {}, links: {}, request_id: req.requestId };
}

/** Style A list page: `meta {limit, has_more}`, cursor links. */
export function cursorPage<T>(
  req: Request,
  items: T[],
  limit: number,
  nextCursor: string | null,
  prevCursor: string | null,
): Envelope<T[], ListMetaA, ListLinks> {
  return {
    data: items,
    meta: { limit, has_more: nextCursor !== null },
    links: {
      self: urlWith(req, {}),
      next: nextCursor === null ? null : urlWith(req, { cursor: nextCursor }),
      prev: prevCursor === null ? null : urlWith(req, { cursor: prevCursor }),
    },
    request_id: req.requestId,
  };
}

/** A core keyset page as a Style A list page, each item shaped by `present` (a Style A presenter). */
export function keysetPage<T, U>(req: Request, page: KeysetPage<T>, present: (item: T) => U): Envelope<U[], ListMetaA, ListLinks> {
  return cursorPage(
    req,
    page.items.map((item) => present(item)),
    page.limit,
    page.nextCursor,
    page.prevCursor,
  );
}

/** Style A list without pagination (the document gives it none): one page holding everything. */
export function wholeListA<T>(req: Request, items: T[]): Envelope<T[], ListMetaA, ListLinks> {
  return cursorPage(req, items, items.length, null, null);
}

/** Style B list page: `meta {total, page, limit, filtered_total}`, page links. */
export function offsetPage<T>(
  req: Request,
  items: T[],
  p: { page: number; limit: number; total: number; filteredTotal: number },
): Envelope<T[], ListMetaB, ListLinks> {
  const lastPage = Math.max(1, Math.ceil(p.filteredTotal / p.limit));
  return {
    data: items,
    meta: { total: p.total, page: p.page, limit: p.limit, filtered_total: p.filteredTotal },
    links: {
      self: urlWith(req, {}),
      next: p.page < lastPage ? urlWith(req, { page: p.page + 1 }) : null,
      prev: p.page > 1 ? urlWith(req, { page: Math.min(p.page - 1, lastPage) }) : null,
    },
    request_id: req.requestId,
  };
}

/** Style B list without pagination: one page holding everything. */
export function wholeListB<T>(req: Request, items: T[]): Envelope<T[], ListMetaB, ListLinks> {
  return offsetPage(req, items, { page: 1, limit: Math.max(1, items.length), total: items.length, filteredTotal: items.length });
}
