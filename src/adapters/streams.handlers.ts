/**
 * The live streams' adapters (docs/live.md, "Stream"; issue 31 item 2), the part both styles share: where a stream
 * resumes (`Last-Event-ID`, else `?after=`), and `GET {ws}/responses/stream`, called by each style's handler
 * (style-a/ and style-b/responses.routes.ts) with its list filters (responsesFilterA/B, the list's own parsing) and its
 * presenter. The filters are validated and compiled by the core as the list does (prepareNarrowing) and applied as SQL
 * over the responses of each range of new events (createdResponsesMatching). The events stream is in events.handlers.ts. The
 * streaming itself (fan-out, limits, shutdown) is src/platform/live-streams.ts.
 */
import type { Request, RequestHandler } from 'express';
import { parsePosition, type LoggedEvent } from '../core/events/event-log.store';
import { createdResponsesMatching, prepareNarrowing, type ResponseFilterQuery } from '../core/responses/responses.store';
import type { ResponseRecord } from '../core/responses/responses.types';
import { sseFrame } from '../platform/live-streams';
import type { CoreDeps } from './deps';
import { callerOf, str, workspaceOf } from './query-values';

/**
 * The position a stream resumes after: the `Last-Event-ID` header (what an EventSource sends when it reconnects, so it
 * wins over the URL's `after`), else `?after=`; undefined (an empty header too) for events from now on.
 * @returns the token in lower case.
 * @throws AppError validation_error naming `Last-Event-ID` or `after` for a value that is not a position.
 */
export function streamAfter(req: Request): string | undefined {
  const header = req.get('Last-Event-ID')?.trim();
  const [token, location, field] = header ? [header, 'header' as const, 'Last-Event-ID'] : [str(req, 'after'), 'query' as const, 'after'];
  if (token === undefined) return undefined;
  parsePosition(token, location, field);
  return token.toLowerCase();
}

/** What identifies a stream's selection: its kind, style and query (without `after`), sorted. */
export function filterKeyOf(req: Request, kind: string, style: 'A' | 'B'): string {
  const query = Object.entries(req.query as Record<string, unknown>)
    .filter(([k]) => k !== 'after')
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `${kind}:${style}:${JSON.stringify(query)}`;
}

/** What one style's responses stream brings: its list's filters and its presenter. */
export interface ResponsesStreamStyle {
  style: 'A' | 'B';
  filters(req: Request): ResponseFilterQuery;
  present(r: ResponseRecord): unknown;
}

/**
 * `GET {ws}/responses/stream` in the style `s` describes: each `response.created` event whose response the list's
 * filters select, as `event: response.created`, `data:` the response as the style presents it, `id:` the position.
 * @throws AppError validation_error as the list does, or for a bad position; position_expired (410);
 *   rate_limit_exceeded (429) over STREAMS_PER_KEY.
 */
export function responsesStream({ live }: Pick<CoreDeps, 'live'>, s: ResponsesStreamStyle): RequestHandler {
  return async (req, res) => {
    // The primary, also when GETs read from a replica (LiveStreams.db).
    const { db } = live;
    const workspaceId = workspaceOf(req);
    const after = streamAfter(req);
    const narrowing = await prepareNarrowing(db, workspaceId, s.filters(req));
    const frames = async (_from: string, _to: string, events: readonly LoggedEvent[]) =>
      (await createdResponsesMatching(db, workspaceId, narrowing, events)).map(({ event, response }) =>
        sseFrame(event.position, event.type, s.present(response)),
      );
    await live.open(req, res, { workspaceId, after, key: callerOf(req), scope: 'responses:read', filterKey: filterKeyOf(req, 'responses', s.style), frames });
  };
}
