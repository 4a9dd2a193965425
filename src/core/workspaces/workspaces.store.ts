/** The store of workspaces (`workspaces`; API document "Workspace"): `{id, name, link}`; a key sees exactly its own workspaces. */
import type { DbHandle } from '../../db';
import { errors } from '../errors';

export interface Workspace {
  id: string;
  name: string;
  link: string;
}

/** The given workspaces (a key's), ordered by name then id. */
export async function listWorkspaces(db: DbHandle, ids: readonly string[]): Promise<Workspace[]> {
  if (ids.length === 0) return [];
  return (await db('workspaces')
    .select('id', 'name', 'link')
    .whereIn('id', ids)
    .orderBy([
      { column: 'name', order: 'asc' },
      { column: 'id', order: 'asc' },
    ])) as Workspace[];
}

/** @throws AppError resource_not_found */
export async function getWorkspace(db: DbHandle, id: string): Promise<Workspace> {
  const ws = (await db('workspaces').select('id', 'name', 'link').where('id', id).first()) as Workspace | undefined;
  if (!ws) throw errors.notFound('Workspace', id);
  return ws;
}

/** Of `ids`, those no workspace has (the CLI checks `--workspace` with it), in the order given. */
export async function unknownWorkspaces(db: DbHandle, ids: readonly string[]): Promise<string[]> {
  const found = (await db('workspaces').select('id').whereIn('id', ids)) as Array<{ id: string }>;
  return ids.filter((w) => !found.some((f) => f.id === w));
}

/** True when the database holds at least one workspace (the demo data was loaded, or another). */
export async function hasWorkspaces(db: DbHandle): Promise<boolean> {
  return (await db('workspaces').first('id')) !== undefined;
}

/** Some workspace's id, undefined when the database has none (the demo seeds an empty database only). */
export function anyWorkspace(db: DbHandle): Promise<{ id: string } | undefined> {
  return db('workspaces').first<{ id: string } | undefined>('id');
}

/** The workspaces with these links (`id`, `link`), in no order (the demo key's workspaces). */
export function workspacesByLink(db: DbHandle, links: string[]): Promise<Array<{ id: string; link: string }>> {
  return db('workspaces').select<{ id: string; link: string }[]>('id', 'link').whereIn('link', links);
}

/** A workspace whose responses are kept for a limited time (docs/data-rights.md, "Retention"). */
export interface RetainingWorkspace {
  id: string;
  /** `response_retention_days`: responses and email events older than this many days are deleted. */
  days: number;
}

/** The workspaces with a response retention set (NULL, the default, is off), in id order. */
export async function workspacesWithRetention(db: DbHandle): Promise<RetainingWorkspace[]> {
  const rows = (await db('workspaces').select('id', 'response_retention_days').whereNotNull('response_retention_days').orderBy('id')) as Array<{
    id: string;
    response_retention_days: number;
  }>;
  return rows.map((r) => ({ id: r.id, days: r.response_retention_days }));
}

/**
 * Sets a workspace's response retention (`days` 1–36500, or null: off).
 * @throws AppError resource_not_found when there is no such workspace.
 */
export async function setResponseRetention(db: DbHandle, id: string, days: number | null): Promise<void> {
  const rows = (await db('workspaces').where('id', id).update({ response_retention_days: days }).returning('id')) as unknown[];
  if (rows.length === 0) throw errors.notFound('Workspace', id);
}
