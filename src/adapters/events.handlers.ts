/**
 * The event log on its shared path (docs/live.md, "Event log"): `GET {ws}/events` in both styles. Style A: cursor
 * paging where the cursor is an event position (core eventsAfter), `created_after`/`created_before`, snake_case events;
 * Style B: page paging with totals, `filter`, `start_date`/`end_date`, camelCase events. Each event's `data` is the
 * resource as the request's style presents it, through the one presenter the webhook payloads use (presenters.ts
 * renderData). The selector (shared-responses.ts) picks the style.
 */
import type { RequestHandler } from 'express';
import { eventsAfter, listEventsOffset, type LoggedEvent } from '../core/events/event-log.store';
import type { CoreDeps } from './deps';
import { cursorPage, offsetPage } from './envelope';
import { renderData } from './presenters';
import { createdRangeA, createdRangeB, int, list, str, workspaceOf } from './query-values';
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

/** `GET {ws}/events`, one handler per style. */
export function eventsListHandlers({ db }: CoreDeps): { a: RequestHandler; b: RequestHandler } {
  return {
    a: async (req, res) => {
      const limit = int(req, 'limit', 1, 100, 20);
      const page = await eventsAfter(db, workspaceOf(req), str(req, 'cursor'), {
        limit,
        types: list(req, 'type'),
        created: createdRangeA(req),
        field: 'cursor',
      });
      const next = page.hasMore ? page.events[page.events.length - 1]!.position : null;
      res.json(cursorPage(req, page.events.map(presentEventA), limit, next, null));
    },
    b: async (req, res) => {
      const page = await listEventsOffset(db, workspaceOf(req), {
        types: list(req, 'type'),
        created: createdRangeB(req),
        filter: str(req, 'filter'),
        pagination: { kind: 'page', page: int(req, 'page', 1, Number.MAX_SAFE_INTEGER, 1), limit: int(req, 'limit', 1, 1000, 50) },
      });
      res.json(offsetPage(req, page.items.map(presentEventB), page));
    },
  };
}
