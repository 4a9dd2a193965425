"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.toEvent = exports.EMAIL_EVENT_TYPES = void 0;
exports.listEmailEvents = listEmailEvents;
const fields_1 = require("../query/fields");
const filter_1 = require("../query/filter");
const list_1 = require("../query/list");
const sort_1 = require("../query/sort");
const sql_1 = require("../query/sql");
exports.EMAIL_EVENT_TYPES = ['send', 'delivery', 'open', 'click', 'bounce', 'complaint', 'unsubscribe'];
const col = (name, column, type, nullable = false) => ({
    name,
    expr: (0, sql_1.sql)('??', column),
    type,
    nullable,
});
const ID = col('id', 'id', 'text');
const SORT_FIELDS = (0, fields_1.fieldMap)([col('created_at', 'created_at', 'timestamp')]);
/** Style B `filter` fields (CONTRACT section 7). */
const FILTER_FIELDS = (0, fields_1.fieldMap)([
    col('event_type', 'type', 'text'),
    col('email_id', 'email_id', 'text'),
    col('email', 'email', 'text'),
    col('form_id', 'form_id', 'text', true),
    col('row_id', 'row_id', 'text', true),
    col('flow_id', 'flow_id', 'text', true),
]);
const toEvent = (r) => ({
    id: r.id,
    emailId: r.email_id,
    email: r.email,
    type: r.type,
    rowId: r.row_id,
    formId: r.form_id,
    flowId: r.flow_id,
    createdAt: r.created_at,
});
exports.toEvent = toEvent;
/**
 * Lists email events of a workspace, narrowed by email, type, recipient, dates and `filter`.
 * @throws AppError validation_error for sort, filter or cursor problems.
 */
async function listEmailEvents(db, workspaceId, q) {
    const keys = (0, sort_1.parseSort)(q.sort, {
        fields: SORT_FIELDS,
        tieBreaker: ID,
        defaultSort: [{ field: SORT_FIELDS.get('created_at'), dir: 'desc' }],
        multi: q.multiSort ?? false,
    });
    const base = db('email_events')
        .select('id', 'email_id', 'email', 'type', 'row_id', 'form_id', 'flow_id', 'created_at')
        .where('workspace_id', workspaceId);
    if (q.emailId !== undefined)
        base.where('email_id', q.emailId);
    if (q.type !== undefined)
        base.where('type', q.type);
    if (q.recipient !== undefined)
        base.whereRaw('lower(email) = lower(?)', [q.recipient]);
    for (const b of q.created ?? [])
        base.where('created_at', b.op, b.value);
    if (q.filter !== undefined) {
        const { where } = (0, filter_1.compileFilter)(q.filter, { fields: FILTER_FIELDS });
        base.whereRaw(where.sql, where.bindings);
    }
    if (q.pagination.kind === 'keyset') {
        const listId = q.emailId === undefined ? `email_events:${workspaceId}` : `email_events:${workspaceId}:${q.emailId}`;
        const page = await (0, list_1.fetchKeysetPage)(db, base, keys, q.pagination.limit, q.pagination.cursor, listId);
        return { kind: 'keyset', items: page.rows.map(exports.toEvent), limit: q.pagination.limit, nextCursor: page.nextCursor, prevCursor: page.prevCursor };
    }
    const { page, limit } = q.pagination;
    const onlyType = q.emailId === undefined && q.recipient === undefined && (q.created?.length ?? 0) === 0 && q.filter === undefined;
    const counts = db('email_event_counts').where('workspace_id', workspaceId);
    const [rows, total, filteredTotal] = await Promise.all([
        (0, list_1.fetchOffsetPage)(base, keys, page, limit, ['workspace_id', 'id']),
        (0, list_1.sumColumn)(counts, 'events'),
        onlyType ? (0, list_1.sumColumn)(q.type === undefined ? counts : counts.clone().where('type', q.type), 'events') : (0, list_1.countRows)(base),
    ]);
    return { kind: 'page', items: rows.map(exports.toEvent), page, limit, total, filteredTotal };
}
//# sourceMappingURL=email-events.service.js.map