/**
 * The body of a delivery (docs/webhooks.md, "Events and payloads"): `{id, type, timestamp, workspace_id, data}` with
 * `data` the event's resource as the endpoint's style presents it: the same presenters as the API, taken from
 * adapters/presenters.ts (never from a router).
 */
import type { EventResource, EventType } from '../core/webhooks/outbox';
import type { EndpointStyle } from '../core/webhooks/webhooks.store';
import { presentersByStyle, type ResourcePresenters } from '../adapters/presenters';

/** An event's `data`: a resource as a style presents it, or the small objects of `row.deleted`, `response.deleted`,
 * `respondent.erased` and `webhook.test`. */
export type EventData =
  | ReturnType<ResourcePresenters[keyof ResourcePresenters]>
  | { row_id: string; datatable_id: string }
  | { id: string; form_id: string }
  | { id: string; formId: string }
  | { erasure_id: string; removed: Record<string, number> }
  | { erasureId: string; removed: Record<string, number> }
  | { endpoint_id: string; message: string };

const camel = (name: string) => name.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());

/** `data` of one event in one style. */
export function renderData(resource: EventResource, style: EndpointStyle): EventData {
  const present = presentersByStyle[style];
  switch (resource.kind) {
    case 'response':
      return present.response(resource.response);
    case 'row':
      return present.row(resource.row);
    case 'email_event':
      return present.emailEvent(resource.event);
    case 'row_deleted':
      return { row_id: resource.rowId, datatable_id: resource.datatableId };
    case 'response_deleted':
      // The response's own field names in each style (Style A `form_id`, Style B `formId`).
      return style === 'B' ? { id: resource.responseId, formId: resource.formId } : { id: resource.responseId, form_id: resource.formId };
    case 'respondent_erased':
      // The erasure request's fields in each style (Style A `erasure_id`, Style B `erasureId`); never the address.
      return style === 'B'
        ? { erasureId: resource.erasureId, removed: Object.fromEntries(Object.entries(resource.removed).map(([k, n]) => [camel(k), n])) }
        : { erasure_id: resource.erasureId, removed: resource.removed };
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
