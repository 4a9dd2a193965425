/**
 * The event log on its shared path (docs/live.md, "Event log"): `GET {ws}/events` in both styles. Style A: cursor
 * paging where the cursor is an event position (core eventsAfter), `created_after`/`created_before`, snake_case events;
 * Style B: page paging with totals, `filter`, `start_date`/`end_date`, camelCase events. Each event's `data` is the
 * resource as the request's style presents it, through the one presenter the webhook payloads use (presenters.ts
 * renderData). The selector (shared-responses.ts) picks the style. `GET {ws}/events/stream` (docs/live.md, "Stream") takes
 * the list's filters of the style and sends each event as the list shows it.
 */
import type { Request, RequestHandler } from 'express';
import { checkEventFilters, eventsAfter, eventsMatching, listEventsOffset, type EventFilters, type LoggedEvent } from '../core/events/event-log.store';
import { sseFrame } from '../platform/live-streams';
import type { CoreDeps } from './deps';
import { cursorPage, offsetPage } from './envelope';
import { renderData } from './presenters';
import { callerOf, createdRangeA, createdRangeB, int, list, str, workspaceOf } from './query-values';
import { filterKeyOf, streamAfter } from './streams.handlers';
import type { EventA, EventB } from '../wire/types.gen';

/** The Style A shape of an event. */
export const presentEventA = (e: LoggedEvent): EventA => ({
  id: e.id,
  type: e.type as EventA['type'],
  position: e.position,
  created_at: e.createdAt.toISOString(),
  data: renderData(e.resource, 'A'),
});

/** The Style B shape of an event. */
export const presentEventB = (e: LoggedEvent): EventB => ({
  id: e.id,
  type: e.type as EventB['type'],
  position: e.position,
  createdAt: e.createdAt.toISOString(),
  data: renderData(e.resource, 'B'),
});

/** The events list's filters in each style (Style A: `type`, `created_after`/`created_before`; Style B: `filter` too). */
const eventFiltersA = (req: Request): EventFilters => ({ types: list(req, 'type'), created: createdRangeA(req) });
const eventFiltersB = (req: Request): EventFilters => ({ types: list(req, 'type'), created: createdRangeB(req), filter: str(req, 'filter') });

/** `GET {ws}/events`, one handler per style. */
export function eventsListHandlers({ db }: CoreDeps): { a: RequestHandler; b: RequestHandler } {
  return {
    a: async (req, res) => {
      const limit = int(req, 'limit', 1, 100, 20);
      const page = await eventsAfter(db, workspaceOf(req), str(req, 'cursor'), { limit, ...eventFiltersA(req), field: 'cursor' });
      const next = page.hasMore ? page.events[page.events.length - 1]!.position : null;
      res.json(cursorPage(req, page.events.map(presentEventA), limit, next, null));
    },
    b: async (req, res) => {
      const page = await listEventsOffset(db, workspaceOf(req), {
        ...eventFiltersB(req),
        pagination: { kind: 'page', page: int(req, 'page', 1, Number.MAX_SAFE_INTEGER, 1), limit: int(req, 'limit', 1, 1000, 50) },
      });
      res.json(offsetPage(req, page.items.map(presentEventB), page));
    },
  };
}

/**
 * `GET {ws}/events/stream`, one handler per style: every event the list's filters select (applied as SQL over each
 * range of new events: eventsMatching), `event:` its type, `data:` the event as the style's list shows it.
 * @throws AppError validation_error as the list does, or for a bad position; position_expired (410);
 *   rate_limit_exceeded (429) over STREAMS_PER_KEY.
 */
export function eventsStreamHandlers({ live }: CoreDeps): { a: RequestHandler; b: RequestHandler } {
  const handler =
    (style: 'A' | 'B', filtersOf: (req: Request) => EventFilters, present: (e: LoggedEvent) => EventA | EventB): RequestHandler =>
    async (req, res) => {
      // The primary, also when GETs read from a replica (LiveStreams.db).
      const { db } = live;
      const workspaceId = workspaceOf(req);
      const after = streamAfter(req);
      const f = filtersOf(req);
      checkEventFilters(f);
      const frames = async (from: string, to: string, events: readonly LoggedEvent[]) =>
        (await eventsMatching(db, workspaceId, { from, to, events }, f)).map((e) => sseFrame(e.position, e.type, present(e)));
      await live.open(req, res, { workspaceId, after, key: callerOf(req), scope: 'events:read', filterKey: filterKeyOf(req, 'events', style), frames });
    };
  return { a: handler('A', eventFiltersA, presentEventA), b: handler('B', eventFiltersB, presentEventB) };
}
