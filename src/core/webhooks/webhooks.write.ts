/**
 * Webhook endpoint writes (API document "Webhook endpoint"; CONTRACT section 8): create with a
 * signing secret shown only in the create answer, and delete.
 */
import type { Knex } from 'knex';
import { generateWebhookSecret } from '../api-keys/secrets';
import { affectedRows } from '../../db';
import { errors } from '../errors';
import { newId } from '../ids';
import { toEndpoint, type WebhookEndpoint } from './webhooks.service';

type Db = Knex | Knex.Transaction;

/** Event types an endpoint can subscribe to (CONTRACT section 8). */
export const WEBHOOK_EVENT_TYPES = ['response.created', 'row.created', 'row.updated', 'row.deleted', 'email_event.created'] as const;

export interface WebhookEndpointInput {
  url: string;
  events: string[];
  description?: string | null | undefined;
  enabled?: boolean | undefined;
}

export interface CreatedWebhookEndpoint extends WebhookEndpoint {
  /** `whsec_…`: returned only in the create answer. */
  secret: string;
}

/** @throws AppError validation_error naming `url` unless it is an absolute http(s) URL without credentials. */
function checkUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw errors.invalid('body', 'url', `\`url\` must be an absolute http or https URL; got "${raw}".`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw errors.invalid('body', 'url', `\`url\` must use http or https; got "${url.protocol.replace(/:$/, '')}".`);
  }
  if (url.username !== '' || url.password !== '') {
    throw errors.invalid('body', 'url', '`url` must not contain credentials (user:password@); authenticate with the signing secret.');
  }
  return raw;
}

/**
 * Creates an endpoint with a new signing secret.
 * @returns the endpoint and its `secret`; times are UTC Dates.
 * @throws AppError validation_error naming `url` or `events[i]`.
 * Spec: POST {ws}/webhook-endpoints.
 */
export async function createWebhookEndpoint(db: Db, workspaceId: string, input: WebhookEndpointInput): Promise<CreatedWebhookEndpoint> {
  const url = checkUrl(input.url);
  const bad = input.events.findIndex((e) => !(WEBHOOK_EVENT_TYPES as readonly string[]).includes(e));
  if (bad >= 0) {
    throw errors.invalid('body', `events[${bad}]`, `\`events[${bad}]\` must be one of ${WEBHOOK_EVENT_TYPES.join(', ')}; got "${input.events[bad]}".`);
  }
  if (input.events.length === 0) throw errors.invalid('body', 'events', '`events` needs at least one event type.');
  const secret = generateWebhookSecret();
  const [row] = await db('webhook_endpoints')
    .insert({
      workspace_id: workspaceId,
      id: newId('webhookEndpoint'),
      url,
      events: [...new Set(input.events)],
      description: input.description ?? null,
      enabled: input.enabled ?? true,
      secret,
    })
    .returning(['id', 'url', 'events', 'description', 'enabled', 'created_at', 'updated_at']);
  return { ...toEndpoint(row), secret };
}

/**
 * Deletes an endpoint of the workspace.
 * @throws AppError resource_not_found (also for an endpoint of another workspace).
 * Spec: DELETE {ws}/webhook-endpoints/{endpoint_id}.
 */
export async function deleteWebhookEndpoint(db: Db, workspaceId: string, id: string): Promise<void> {
  const n = await affectedRows(db('webhook_endpoints').where({ workspace_id: workspaceId, id }).delete());
  if (n === 0) throw errors.notFound('Webhook endpoint', id);
}
