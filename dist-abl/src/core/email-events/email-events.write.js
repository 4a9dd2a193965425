"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.recordEmailEvents = recordEmailEvents;
const errors_1 = require("../errors");
const ids_1 = require("../ids");
const outbox_1 = require("../webhooks/outbox");
const email_events_service_1 = require("./email-events.service");
/**
 * Stores email events of a workspace, idempotent on `id`, all in one transaction (a savepoint when `db`
 * is already a transaction); emits `email_event.created` for each newly stored event.
 * @param opts.single the items came as one `{"data": event}` (error fields `data.type`, else `data[i].type`).
 * @returns the events in request order and how many were newly stored.
 * @throws AppError validation_error naming `data[i].type` for a type outside CONTRACT section 8's list
 * (adapters validate shapes first; this guards other callers). Nothing is stored on any error.
 */
async function recordEmailEvents(db, workspaceId, items, opts = {}) {
    const at = (i) => (opts.single ? 'data' : `data[${i}]`);
    const details = [];
    items.forEach((it, i) => {
        if (!email_events_service_1.EMAIL_EVENT_TYPES.includes(it.type)) {
            details.push({ location: 'body', field: `${at(i)}.type`, message: `\`${at(i)}.type\` must be one of ${email_events_service_1.EMAIL_EVENT_TYPES.join(', ')}; got "${it.type}".` });
        }
    });
    if (details.length > 0)
        throw errors_1.errors.validation(details);
    if (items.length === 0)
        return { events: [], created: 0 };
    const now = new Date();
    const ids = items.map((it) => it.id ?? (0, ids_1.newId)('emailEvent'));
    // The first item with an id is the one stored; later ones with the same id answer as stored.
    const firstIndex = new Map();
    ids.forEach((id, i) => firstIndex.has(id) || firstIndex.set(id, i));
    const rows = [...firstIndex.entries()].map(([id, i]) => {
        const it = items[i];
        return {
            workspace_id: workspaceId,
            id,
            email_id: it.emailId,
            email: it.email,
            type: it.type,
            row_id: it.rowId ?? null,
            form_id: it.formId ?? null,
            flow_id: it.flowId ?? null,
            created_at: it.createdAt ?? now,
        };
    });
    const columns = ['id', 'email_id', 'email', 'type', 'row_id', 'form_id', 'flow_id', 'created_at'];
    return db.transaction(async (trx) => {
        const inserted = (await trx('email_events')
            .insert(rows)
            .onConflict(['workspace_id', 'id'])
            .ignore()
            .returning(columns));
        const byId = new Map(inserted.map((r) => [r.id, (0, email_events_service_1.toEvent)(r)]));
        const fresh = [...byId.values()];
        const missing = [...firstIndex.keys()].filter((id) => !byId.has(id));
        if (missing.length > 0) {
            const stored = (await trx('email_events').select(columns).where('workspace_id', workspaceId).whereIn('id', missing));
            for (const r of stored)
                byId.set(r.id, (0, email_events_service_1.toEvent)(r));
        }
        if (fresh.length > 0) {
            await (0, outbox_1.recordEvents)(trx, workspaceId, fresh.map((event) => ({ type: 'email_event.created', resource: { kind: 'email_event', event } })));
        }
        return { events: ids.map((id) => byId.get(id)), created: fresh.length };
    });
}
//# sourceMappingURL=email-events.write.js.map