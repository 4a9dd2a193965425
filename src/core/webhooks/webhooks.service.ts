/** Webhook endpoints (API document "Webhook endpoint"; CONTRACT section 8): reads. */
import type { Knex } from 'knex';
import { errors } from '../errors';

type Db = Knex | Knex.Transaction;

export interface WebhookEndpoint {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  enabled: boolean;
  createdAt: Date;
  updatedAt: Date;
}

interface EndpointRow {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  enabled: boolean;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = ['id', 'url', 'events', 'description', 'enabled', 'created_at', 'updated_at'];

export const toEndpoint = (r: EndpointRow): WebhookEndpoint => ({
  id: r.id,
  url: r.url,
  events: r.events,
  description: r.description,
  enabled: r.enabled,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** All endpoints of the workspace, newest first (the document gives this list no pagination). */
export async function listWebhookEndpoints(db: Db, workspaceId: string): Promise<WebhookEndpoint[]> {
  const rows = (await db('webhook_endpoints')
    .select(COLUMNS)
    .where('workspace_id', workspaceId)
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])) as EndpointRow[];
  return rows.map(toEndpoint);
}

/** @throws AppError resource_not_found */
export async function getWebhookEndpoint(db: Db, workspaceId: string, id: string): Promise<WebhookEndpoint> {
  const row = (await db('webhook_endpoints').select(COLUMNS).where({ workspace_id: workspaceId, id }).first()) as EndpointRow | undefined;
  if (!row) throw errors.notFound('Webhook endpoint', id);
  return toEndpoint(row);
}
