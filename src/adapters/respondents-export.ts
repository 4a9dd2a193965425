/**
 * GET {ws}/respondents/export?email=… (docs/data-rights.md, "Export a person's data"): everything the workspace holds
 * that is linked to one email address, as NDJSON in the key's style, one call for an access or portability request.
 * Each line is `{"type": "response" | "email_event" | "row", "data": <the resource as this style presents it>}`; the
 * last is `{"type": "summary", "data": {…counts…, "omitted": […]}}`. Email events need `email_events:read` and rows
 * `datatables:read` besides the operation's `responses:read`: a kind the key cannot read is left out and named in
 * `omitted`. Streams like the responses export and takes an export slot of the key (platform/export-stream.ts).
 */
import type { Request, Response } from 'express';
import type { Row } from '../core/datatables/datatables.store';
import type { EmailEvent } from '../core/email-events/email-events.store';
import { personAddress, personData, type PersonBatch } from '../core/respondents/person-data';
import type { ResponseRecord } from '../core/responses/responses.types';
import type { Scope } from '../core/scopes';
import { streamNdjsonExport } from '../platform/export-stream';
import type { CoreDeps } from './deps';
import { str, workspaceOf } from './query-values';

/** How one style presents the export's records and spells the summary's keys. */
export interface PersonExportStyle {
  response(r: ResponseRecord): unknown;
  emailEvent(e: EmailEvent): unknown;
  row(r: Row): unknown;
  /** The summary's key for email events: `email_events` (Style A) or `emailEvents` (Style B). */
  emailEventsKey: string;
}

const line = (type: string, data: unknown) => `${JSON.stringify({ type, data })}\n`;

/** The export handler of one style (mounted by shared-responses.ts). */
export function respondentExport(deps: Pick<CoreDeps, 'db' | 'exportSlots'>, style: PersonExportStyle) {
  return async (req: Request, res: Response) => {
    const workspaceId = workspaceOf(req);
    const address = personAddress(str(req, 'email'));
    const holds = (scope: Scope) => req.auth?.scopes.includes(scope) ?? false;
    const kinds = { emailEvents: holds('email_events:read'), rows: holds('datatables:read') };
    const omitted = [...(kinds.emailEvents ? [] : [style.emailEventsKey]), ...(kinds.rows ? [] : ['rows'])];
    await streamNdjsonExport(deps, req, res, {
      filename: 'person.ndjson',
      slotOwner: `key:${req.auth?.id ?? ''}`,
      async *lines(trx) {
        const counts = { response: 0, email_event: 0, row: 0 };
        for await (const batch of personData(trx, workspaceId, address, kinds)) {
          counts[batch.kind] += batch.items.length;
          yield linesOf(batch, style);
        }
        const summary = { responses: counts.response, [style.emailEventsKey]: counts.email_event, rows: counts.row, omitted };
        yield line('summary', summary);
      },
    });
  };
}

function linesOf(batch: PersonBatch, style: PersonExportStyle): string {
  switch (batch.kind) {
    case 'response':
      return batch.items.map((r) => line('response', style.response(r))).join('');
    case 'email_event':
      return batch.items.map((e) => line('email_event', style.emailEvent(e))).join('');
    case 'row':
      return batch.items.map((r) => line('row', style.row(r))).join('');
  }
}
