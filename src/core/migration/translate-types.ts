/**
 * Shapes of the request translator (src/core/migration/translate.ts; docs/migrating-between-styles.md,
 * "Translating a request") and its one refusal: a part of a Style B request with no Style A equivalent.
 */

/** Query values as a client sends them: one string, or several for a repeated parameter. */
export type QueryValues = Record<string, string | string[]>;

/** Query parameters in order, a name once per value (`f_in=a&f_in=b`). */
export type QueryPairs = [string, string][];

/** A Style B request to translate: the method, the path (a query string in it counts too), query, headers, body. */
export interface StyleBRequest {
  method: string;
  path: string;
  query?: QueryValues | undefined;
  headers?: Record<string, string> | undefined;
  body?: unknown;
}

/** The Style A request; `body` only when the Style B request had one. */
export interface StyleARequest {
  method: string;
  path: string;
  query: QueryValues;
  headers: Record<string, string>;
  body?: unknown;
}

/**
 * How to read a Style B page through Style A cursors: send the request (its `limit` is `limit`), follow
 * `links.next` `follow_next` times, then read `read_pages` pages in a row (following `links.next` between
 * them); `read_pages` null: every page until `links.next` is null. Stop early when `links.next` is null.
 */
export interface CursorWalk {
  limit: number;
  follow_next: number;
  read_pages: number | null;
  note: string;
}

export type Translation =
  | {
      ok: true;
      /** The Style B operation and its Style A equivalent (operationIds of openapi/). */
      operation: string;
      equivalent: string;
      request: StyleARequest;
      walk?: CursorWalk;
      /** What the client must know that the request cannot say (dropped parameters, shape differences). */
      notes: string[];
    }
  | { ok: false; part: string; reason: string };

/** The reason's opening when Style B itself answers the request 400: there is nothing to translate. */
export const REFUSED_BY_B = 'Style B refuses this request';

/** A part of the request with no Style A equivalent; `part` names it (`query.filter`, `path`, `headers.X-API-Style`). */
export class Untranslatable extends Error {
  constructor(
    readonly part: string,
    readonly reason: string,
  ) {
    super(reason);
    this.name = 'Untranslatable';
  }
}
