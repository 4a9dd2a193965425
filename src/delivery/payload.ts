/**
 * The body of a delivery (docs/webhooks.md, "Events and payloads"): `{id, type, timestamp, workspace_id, data}` with
 * `data` the event's resource as the endpoint's style presents it: adapters/presenters.ts `renderData`, the same
 * presenter `GET {ws}/events` uses (never a router).
 */
import type { EventResource, EventType } from '../core/events/events.types';
import type { EndpointStyle } from '../core/webhooks/webhooks.store';
import { renderData } from '../adapters/presenters';

export interface StoredEvent {
  id: string;
  type: EventType;
  workspaceId: string;
  createdAt: Date;
  resource: EventResource;
}

/** The JSON text sent (and signed) for one event to an endpoint of `style`. */
export function renderPayload(event: StoredEvent, style: EndpointStyle): string {
  return JSON.stringify({
    id: event.id,
    type: event.type,
    timestamp: event.createdAt.toISOString(),
    workspace_id: event.workspaceId,
    data: renderData(event.resource, style),
  });
}
