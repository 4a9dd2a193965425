/**
 * Email events of a fixture document (docs/import.md, "What is checked"; docs/collecting.md, "Provider events"), a batch at a time: a known
 * workspace, an id new to it.
 */
import { emailEventRecord } from '../email-events/email-events.store';
import type { FixtureEmailEvent } from './fixture-schema';
import type { ImportContext, Rec } from './context';
import { checkItemSchema } from './item-schema';

/** An element of `email_events` as read. */
export interface EmailEventEntry {
  index: number;
  value: unknown;
}

/**
 * Checks a batch of email events (the document's workspaces registered before).
 * @returns the `email_events` records to write (of the items without schema problems).
 */
export async function checkEmailEventBatch(ctx: ImportContext, batch: EmailEventEntry[]): Promise<Rec[]> {
  const ok = batch.map((e) => checkItemSchema('email_events', e.value, `email_events[${e.index}]`, ctx.problems));
  const ids = batch.map((e) => ctx.claimId('email_events', 'emailEvent', 'email event', e.index, (e.value as { id?: unknown } | null)?.id));
  const sound = batch.flatMap((e, i) => (ok[i] ? [{ index: e.index, id: ids[i]!, v: e.value as FixtureEmailEvent }] : []));
  await ctx.resolveWorkspaces(sound.map((s) => s.v.workspace_id));
  const exists = await ctx.existingIn(
    'email_events',
    'id',
    sound.flatMap((s) => (typeof s.v.id === 'string' && ctx.isFirst('email_events', s.id, s.index) ? [[s.v.workspace_id, s.id] as [string, string]] : [])),
  );
  return sound.map(({ index, id, v }) => {
    if (exists.has(`${v.workspace_id}\u0000${id}`)) ctx.problems.add(`email_events[${index}].id`, `email event "${id}" already exists`);
    ctx.checkWorkspace(`email_events[${index}].workspace_id`, v.workspace_id);
    const { email_id: emailId, email, type, row_id: rowId, form_id: formId, flow_id: flowId } = v;
    return emailEventRecord(v.workspace_id, id, { emailId, email, type, rowId, formId, flowId }, ctx.iso(v.created_at));
  });
}
