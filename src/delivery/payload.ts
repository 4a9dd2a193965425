/**
 * The body of a delivery (CONTRACT section 13): `{id, type, timestamp, workspace_id, data}` with
 * `data` the event's resource as the endpoint's style presents it (the same presenters as the API).
 */
import type { EventResource, EventType } from '../core/webhooks/outbox';
import type { EndpointStyle } from '../core/webhooks/webhooks.service';
import { presentEmailEventA, presentResponseA, presentRowA } from '../adapters/style-a/present';
import { presentEmailEventB, presentResponseB, presentRowB } from '../adapters/style-b/present';

/** `data` of one event in one style. */
export function renderData(resource: EventResource, style: EndpointStyle): Record<string, unknown> {
  switch (resource.kind) {
    case 'response':
      return style === 'A' ? presentResponseA(resource.response) : presentResponseB(resource.response);
    case 'row':
      return style === 'A' ? presentRowA(resource.row) : presentRowB(resource.row);
    case 'email_event':
      return style === 'A' ? presentEmailEventA(resource.event) : presentEmailEventB(resource.event);
    case 'row_deleted':
      return { row_id: resource.rowId, datatable_id: resource.datatableId };
    case 'test':
      return { endpoint_id: resource.endpointId, message: 'This is a test event from feedback-service.' };
  }
}

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
