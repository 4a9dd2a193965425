/**
 * Webhook endpoints of a fixture document (docs/import.md, "What is checked"; docs/webhooks.md, "Endpoints"): a known workspace, a signing
 * secret `whsec_…` (generated when absent).
 */
import { generateWebhookSecret } from '../api-keys/secrets';
import type { FixtureWebhookEndpoint } from './fixture-schema';
import type { ImportContext, Item, Rec } from './context';

/**
 * Checks the endpoints (workspaces resolved before).
 * @param ids the endpoints' ids (ImportContext.claimIds).
 * @returns the `webhook_endpoints` records to write.
 */
export function checkWebhookEndpoints(ctx: ImportContext, items: Item<FixtureWebhookEndpoint>[], ids: string[]): Rec[] {
  return items.flatMap((item, i) => {
    if (!item.ok) return [];
    const w = item.value;
    const path = `webhook_endpoints[${item.index}]`;
    ctx.checkWorkspace(`${path}.workspace_id`, w.workspace_id);
    if (w.secret !== undefined && !/^whsec_[A-Za-z0-9+/]+={0,2}$/.test(w.secret)) {
      ctx.problems.add(`${path}.secret`, 'must be "whsec_" followed by base64 (the key that signs deliveries)');
    }
    const created = ctx.iso(w.created_at);
    return [
      {
        workspace_id: w.workspace_id,
        id: ids[i],
        url: w.url,
        events: [...new Set(w.events)],
        description: w.description ?? null,
        enabled: w.enabled ?? true,
        secret: w.secret ?? generateWebhookSecret(),
        created_at: created,
        updated_at: ctx.iso(w.updated_at, created),
      },
    ];
  });
}
