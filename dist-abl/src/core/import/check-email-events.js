"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.checkEmailEventBatch = checkEmailEventBatch;
const item_schema_1 = require("./item-schema");
/**
 * Checks a batch of email events (the document's workspaces registered before).
 * @returns the `email_events` records to write (of the items without schema problems).
 */
async function checkEmailEventBatch(ctx, batch) {
    const ok = batch.map((e) => (0, item_schema_1.checkItemSchema)('email_events', e.value, `email_events[${e.index}]`, ctx.problems));
    const ids = batch.map((e) => ctx.claimId('email_events', 'emailEvent', 'email event', e.index, e.value?.id));
    const sound = batch.flatMap((e, i) => (ok[i] ? [{ index: e.index, id: ids[i], v: e.value }] : []));
    await ctx.resolveWorkspaces(sound.map((s) => s.v.workspace_id));
    const exists = await ctx.existingIn('email_events', 'id', sound.flatMap((s) => (typeof s.v.id === 'string' && ctx.isFirst('email_events', s.id, s.index) ? [[s.v.workspace_id, s.id]] : [])));
    return sound.map(({ index, id, v }) => {
        if (exists.has(`${v.workspace_id}\u0000${id}`))
            ctx.problems.add(`email_events[${index}].id`, `email event "${id}" already exists`);
        ctx.checkWorkspace(`email_events[${index}].workspace_id`, v.workspace_id);
        return {
            workspace_id: v.workspace_id,
            id,
            email_id: v.email_id,
            email: v.email,
            type: v.type,
            row_id: v.row_id ?? null,
            form_id: v.form_id ?? null,
            flow_id: v.flow_id ?? null,
            created_at: ctx.iso(v.created_at),
        };
    });
}
//# sourceMappingURL=check-email-events.js.map