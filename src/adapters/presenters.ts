/**
 * The presenters of the webhook resources by style, for code that is not HTTP: the delivery worker renders
 * an event's `data` in its endpoint's style (docs/webhooks.md, "Events and payloads"), exactly as the API
 * presents the resource. Presenters sit below the routers: this module and the style folders' present.ts
 * import no router, and routers use their own style's present.ts, never this table (which names both styles).
 */
import type { Row } from '../core/datatables/datatables.store';
import type { EmailEvent } from '../core/email-events/email-events.store';
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
