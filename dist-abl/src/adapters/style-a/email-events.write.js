"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.emailEventsWriteRouter = emailEventsWriteRouter;
/**
 * Events from the mail provider (CONTRACT section 12): `POST {ws}/email-events` (Style A, scope
 * `email_events:write`), body `{"data": event}` or `{"data": [up to 1000 events]}`. The OpenAPI
 * validator checks every item's shape first, so one bad item stores nothing; the core stores the rest
 * in one transaction, idempotent on `id`. 201 when anything was stored, 200 when every event was
 * already stored; `data` in request order (an object for a single event).
 */
const express_1 = require("express");
const email_events_write_1 = require("../../core/email-events/email-events.write");
const errors_1 = require("../../core/errors");
const dates_1 = require("../../core/query/dates");
const envelope_1 = require("../envelope");
const query_values_1 = require("../query-values");
const present_1 = require("./present");
function toInput(item, field, details) {
    let createdAt;
    if (typeof item.created_at === 'string') {
        try {
            const p = (0, dates_1.parseDateValue)(item.created_at, `${field}.created_at`, 'body');
            if (p.kind !== 'date-time')
                throw errors_1.errors.invalid('body', `${field}.created_at`, `\`${field}.created_at\` must be an ISO 8601 date-time with an offset; got "${item.created_at}".`);
            createdAt = new Date(p.value);
        }
        catch (err) {
            const d = err.details;
            if (!d)
                throw err;
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
function emailEventsWriteRouter({ db }) {
    const r = (0, express_1.Router)();
    r.post('/:workspace_id/email-events', async (req, res) => {
        const data = (req.body ?? {}).data;
        const many = Array.isArray(data);
        const items = (many ? data : [data]);
        const details = [];
        const inputs = items.map((item, i) => toInput(item, many ? `data[${i}]` : 'data', details));
        if (details.length > 0)
            throw errors_1.errors.validation(details);
        const { events, created } = await (0, email_events_write_1.recordEmailEvents)(db, (0, query_values_1.workspaceOf)(req), inputs, { single: !many });
        const presented = events.map(present_1.presentEmailEventA);
        res.status(created > 0 ? 201 : 200).json((0, envelope_1.single)(req, many ? presented : presented[0]));
    });
    return r;
}
//# sourceMappingURL=email-events.write.js.map