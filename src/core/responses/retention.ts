/**
 * Response retention (docs/data-rights.md, "Retention"; docs/operations.md, "What grows, and what bounds it"): a
 * workspace with `response_retention_days` set (off by default; `feedback-service workspaces retention`) has its
 * responses and email events older than that many days deleted by the worker's periodic prune, in small batches,
 * each batch one transaction through the same delete as the API (core/responses/deletions.ts): the counters move
 * with the rows and each response gets its `response.deleted` event.
 */
import type { Knex } from 'knex';
import type { DbHandle } from '../../db';
import { DAY_MS } from '../query/dates';
import { deleteEmailEventsBefore } from '../email-events/email-events.store';
import { workspacesWithRetention, type RetainingWorkspace } from '../workspaces/workspaces.store';
import { deleteResponsesBefore } from './deletions';

export type { RetainingWorkspace } from '../workspaces/workspaces.store';

/** The instant before which a workspace's responses and email events go, as of `now`. */
export function retentionCutoff(w: RetainingWorkspace, now: Date): Date {
  return new Date(now.getTime() - w.days * DAY_MS);
}

/** The workspaces whose retention is on. */
export function retainingWorkspaces(db: DbHandle): Promise<RetainingWorkspace[]> {
  return workspacesWithRetention(db);
}

/** One batch of expired responses of a workspace, in the caller's transaction: at most `limit`; how many went. */
export function deleteExpiredResponses(trx: Knex.Transaction, w: RetainingWorkspace, now: Date, limit: number): Promise<number> {
  return deleteResponsesBefore(trx, w.id, retentionCutoff(w, now), limit);
}

/** One batch of expired email events of a workspace (one statement): at most `limit`; how many went. */
export function deleteExpiredEmailEvents(db: DbHandle, w: RetainingWorkspace, now: Date, limit: number): Promise<number> {
  return deleteEmailEventsBefore(db, w.id, retentionCutoff(w, now), limit);
}
