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

/**
 * The request's absolute URL with some query parameters replaced (null removes one), as WHATWG URL writes it: `new
 * URL(originalUrl, protocol://host)`, then `searchParams.set` / `delete` for each change. A request whose path and query
 * hold only characters URL keeps as they are (letters, digits, `_`, `-`, `~` in the path; `name=value` pairs of letters,
 * digits, `_`, `-`, `.` in the query) is answered by joining strings instead (sameAsUrl): the same text, without the
 * three URL objects a list page's links cost (issue 28). Any other request goes through URL.
 */
export function urlWith(req: Request, changes: Record<string, string | number | null>): string {
  const base = `${req.protocol}://${req.get('host') ?? 'localhost'}`;
  return sameAsUrl(base, req.originalUrl, changes) ?? viaUrl(base, req.originalUrl, changes);
}

function viaUrl(base: string, target: string, changes: Record<string, string | number | null>): string {
  const url = new URL(target, base);
  for (const [name, value] of Object.entries(changes)) {
    if (value === null) url.searchParams.delete(name);
    else url.searchParams.set(name, String(value));
  }
  return url.toString();
}

/** Path segments URL keeps as written (no dot segment, nothing it percent-encodes or reads as a separator). */
const PLAIN_PATH = /^(?:\/[A-Za-z0-9_~-]+)+\/?$/;
/** Characters that URLSearchParams reads and writes back unchanged (application/x-www-form-urlencoded). */
const PLAIN_QUERY_TEXT = /^[A-Za-z0-9_.-]*$/;
/** `name=value` pairs of such characters, none empty, each with its `=` (else URLSearchParams would rewrite them). */
const PLAIN_QUERY = /^[A-Za-z0-9_.-]+=[A-Za-z0-9_.-]*(?:&[A-Za-z0-9_.-]+=[A-Za-z0-9_.-]*)*$/;
/** The origin URL gives each base (`http://host:port`, userinfo kept), by base; a few entries (Host headers vary). */
const origins = new Map<string, string>();

/** What viaUrl answers, when the target is plain enough to be written without URL; undefined: use viaUrl. */
function sameAsUrl(base: string, target: string, changes: Record<string, string | number | null>): string | undefined {
  const q = target.indexOf('?');
  const path = q === -1 ? target : target.slice(0, q);
  const search = q === -1 ? undefined : target.slice(q + 1);
  if (!PLAIN_PATH.test(path) || (search !== undefined && !PLAIN_QUERY.test(search))) return undefined;
  let origin = origins.get(base);
  if (origin === undefined) {
    try {
      origin = new URL('/', base).href.slice(0, -1);
    } catch {
      return undefined;
    }
    if (origins.size >= 64) origins.clear();
    origins.set(base, origin);
  }
  const names = Object.keys(changes);
  if (names.length === 0) return origin + target;
  let query = search === undefined ? [] : search.split('&').map((pair) => pair.split('=') as [string, string]);
  for (const name of names) {
    const value = changes[name];
    if (value === null) {
      query = query.filter(([n]) => n !== name);
      continue;
    }
    const text = String(value);
    if (name === '' || !PLAIN_QUERY_TEXT.test(name) || !PLAIN_QUERY_TEXT.test(text)) return undefined;
    // searchParams.set: the first pair of that name takes the value, the others go; none: appended.
    const first = query.findIndex(([n]) => n === name);
    query =
      first === -1 ? [...query, [name, text]] : query.flatMap((p, i): Array<[string, string]> => (i === first ? [[name, text]] : p[0] === name ? [] : [p]));
  }
  return query.length === 0 ? origin + path : `${origin}${path}?${query.map(([n, v]) => `${n}=${v}`).join('&')}`;
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
