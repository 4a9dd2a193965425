/**
 * Events from the mail provider (docs/collecting.md, "Provider events"): `POST {ws}/email-events` (Style A, scope
 * `email_events:write`), body `{"data": event}` or `{"data": [up to 1000 events]}`. The OpenAPI
 * validator checks every item's shape first, so one bad item stores nothing; the core stores the rest
 * in the one transaction this handler opens, idempotent on `id`. 201 when anything was stored, 200 when every event was
 * already stored; `data` in request order (an object for a single event).
 */
import { Router } from 'express';
import { type EmailEventInput, recordEmailEvents } from '../../core/email-events/email-events.store';
import { errors, type ErrorDetail } from '../../core/errors';
import { parseDateValue } from '../../core/query/dates';
import { withTransaction } from '../../db';
import type { CoreDeps } from '../deps';
import { single } from '../envelope';
import { bodyOf, workspaceOf } from '../query-values';
import type { EmailEventsCreateRequest, EmailEventInput as EmailEventInputWire } from '../../wire/types.gen';
import { presentEmailEventA } from './present';

function toInput(item: EmailEventInputWire, field: string, details: ErrorDetail[]): EmailEventInput {
  let createdAt: Date | undefined;
  if (typeof item.created_at === 'string') {
    try {
      const p = parseDateValue(item.created_at, `${field}.created_at`, 'body');
      if (p.kind !== 'date-time')
        throw errors.invalid('body', `${field}.created_at`, `\`${field}.created_at\` must be an ISO 8601 date-time with an offset; got "${item.created_at}".`);
      createdAt = new Date(p.value);
    } catch (err) {
      const d = (err as { details?: ErrorDetail[] }).details;
      if (!d) throw err;
      details.push(...d);
    }
  }
  return {
    id: item.id,
    emailId: item.email_id,
    email: item.email,
    type: item.type,
    createdAt,
    rowId: item.row_id,
    formId: item.form_id,
    flowId: item.flow_id,
  };
}

/** Mounted at `/api/v1/workspaces`. */
export function emailEventsWriteRouter({ db }: CoreDeps): Router {
  const r = Router();
  r.post('/:workspace_id/email-events', async (req, res) => {
    const { data } = bodyOf<EmailEventsCreateRequest>(req);
    const many = Array.isArray(data);
    const items = many ? data : [data];
    const details: ErrorDetail[] = [];
    const inputs = items.map((item, i) => toInput(item, many ? `data[${i}]` : 'data', details));
    if (details.length > 0) throw errors.validation(details);
    const { events, created } = await withTransaction(db, (trx) => recordEmailEvents(trx, workspaceOf(req), inputs, { single: !many }));
    const presented = events.map(presentEmailEventA);
    res.status(created > 0 ? 201 : 200).json(single(req, many ? presented : presented[0]));
  });
  return r;
}
