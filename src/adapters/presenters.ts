/**
 * The presenters of the event resources by style: the delivery worker renders an event's `data` in its endpoint's
 * style (docs/webhooks.md, "Events and payloads") and `GET {ws}/events` in the request's (docs/live.md, "Event log"),
 * both through renderData, exactly as the API presents the resource. Presenters sit below the routers: this module and
 * the style folders' present.ts import no router, and style routers use their own style's present.ts, never this
 * table (which names both styles).
 */
import type { Row } from '../core/datatables/datatables.store';
import type { EmailEvent } from '../core/email-events/email-events.store';
import type { EventResource } from '../core/events/events.types';
import { camelCase } from '../core/query/fields';
import type { ResponseRecord } from '../core/responses/responses.types';
import type { EndpointStyle } from '../core/webhooks/webhooks.store';
import type { EmailEventA, EmailEventB, ResponseA, ResponseB, RowA, RowB } from '../wire/types.gen';
import { presentEmailEventA, presentResponseA, presentRowA } from './style-a/present';
import { presentEmailEventB, presentResponseB, presentRowB } from './style-b/present';

/** One style's presenters of the resources an event carries, each returning that style's wire type. */
export interface ResourcePresenters {
  response(r: ResponseRecord): ResponseA | ResponseB;
  row(r: Row): RowA | RowB;
  emailEvent(e: EmailEvent): EmailEventA | EmailEventB;
}

export const presentersByStyle: Readonly<Record<EndpointStyle, ResourcePresenters>> = {
  A: { response: (r) => presentResponseA(r), row: presentRowA, emailEvent: presentEmailEventA },
  B: { response: (r) => presentResponseB(r), row: (r) => presentRowB(r), emailEvent: presentEmailEventB },
};

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
        ? { erasureId: resource.erasureId, removed: Object.fromEntries(Object.entries(resource.removed).map(([k, n]) => [camelCase(k), n])) }
        : { erasure_id: resource.erasureId, removed: resource.removed };
    case 'test':
      return { endpoint_id: resource.endpointId, message: 'This is a test event from feedback-service.' };
  }
}
