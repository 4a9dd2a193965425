/**
 * Paging of both styles (docs/api-rules.md, "Lists and pages"): Style A hands out cursor pages
 * (`meta.has_more`, the next cursor inside `links.next`); Style B numbered pages with totals
 * (`meta.total`, `meta.filtered_total`). Both work with any list operation of the generated SDK.
 */
import type { ListLinks, ListMetaA, ListMetaB } from './generated/types.gen';

/** A Style A list page as every Style A list answers it. */
export interface CursorPage<T> {
  data: T[];
  meta: ListMetaA;
  links: ListLinks;
}

/** A Style B list page as every Style B list answers it. */
export interface NumberedPage<T> {
  data: T[];
  meta: ListMetaB;
  links: ListLinks;
}

/** One Style B page, totals in camelCase. */
export interface PageB<T> {
  items: T[];
  page: number;
  limit: number;
  /** Size of the whole collection. */
  total: number;
  /** Items left after every narrowing parameter (`filter`, dates, …): the pages cover these. */
  filteredTotal: number;
}

/** The `cursor` query parameter of a `links.next` URL, or undefined when there is no next page. */
export function nextCursor(links: ListLinks): string | undefined {
  if (links.next === null) return undefined;
  return new URL(links.next).searchParams.get('cursor') ?? undefined;
}

/**
 * Every item of a Style A list: fetches the first page (`cursor` undefined), then follows the cursor of
 * `links.next` while `meta.has_more` is true. Pages are fetched only as the loop asks for items.
 */
export async function* eachItem<T>(fetchPage: (cursor: string | undefined) => Promise<CursorPage<T>>): AsyncGenerator<T, void, undefined> {
  let cursor: string | undefined;
  for (;;) {
    const page = await fetchPage(cursor);
    yield* page.data;
    cursor = page.meta.has_more ? nextCursor(page.links) : undefined;
    if (cursor === undefined) return;
  }
}

/**
 * The pages of a Style B list from `firstPage` (default 1) until the last one (`links.next` null or an
 * empty page).
 */
export async function* eachPage<T>(fetchPage: (page: number) => Promise<NumberedPage<T>>, firstPage = 1): AsyncGenerator<PageB<T>, void, undefined> {
  for (let n = firstPage; ; n++) {
    const { data, meta, links } = await fetchPage(n);
    yield { items: data, page: meta.page, limit: meta.limit, total: meta.total, filteredTotal: meta.filtered_total };
    if (links.next === null || data.length === 0) return;
  }
}
