/**
 * The audit records of each change recorded today (docs/security.md, "The audit trail"): one builder per action, so the
 * routes, the CLI and the worker record the same action with the same target and fields. Secrets never reach a
 * record (a key's secret, a webhook's signing secret, a dashboard link's URL are left out; recordAudit masks what a
 * caller passes by mistake). A datatable row's record names the columns written, not their values: rows may hold a
 * person's address, and an append-only trail could not forget it on an erasure request.
 */
import type { ApiKeyMeta } from '../api-keys/api-keys.store';
import type { CreatedApiKey } from '../api-keys/create-api-key';
import type { DashboardLink } from '../dashboards/dashboard-links.store';
import type { Row, UpsertedRow } from '../datatables/datatables.store';
import type { Topic } from '../topics/topics.store';
import type { CheckedWebhookPatch, WebhookEndpoint } from '../webhooks/webhooks.store';
import { MASKED, type AuditEventInput } from './audit.store';

/**
 * `api_key.created`, once in each workspace the new key opens. No record names the key's other workspaces: an auditor
 * of one workspace learns no more than its key list shows (docs/writes-keys-limits.md, "API keys and scopes").
 */
export function apiKeyCreated(key: CreatedApiKey): AuditEventInput[] {
  const changes = {
    name: key.name,
    prefix: key.prefix,
    scopes: key.scopes,
    style: key.style,
    rate_limit_per_minute: key.rateLimitPerMinute,
    expires_at: key.expiresAt,
    created_by: key.createdBy,
    secret: MASKED,
  };
  return key.workspaceIds.map((workspaceId) => ({ workspaceId, action: 'api_key.created', targetType: 'api_key', targetId: key.id, changes }));
}

/** `api_key.revoked`, once in each workspace the key opened (the keys and links it made are revoked with it: "Key lineage"). */
export function apiKeyRevoked(key: Pick<ApiKeyMeta, 'id' | 'workspaceIds'>): AuditEventInput[] {
  return key.workspaceIds.map((workspaceId) => ({
    workspaceId,
    action: 'api_key.revoked',
    targetType: 'api_key',
    targetId: key.id,
    changes: { revoked: true },
  }));
}

const endpoint = (workspaceId: string, action: string, id: string, changes: Record<string, unknown> = {}): AuditEventInput => ({
  workspaceId,
  action: `webhook_endpoint.${action}`,
  targetType: 'webhook_endpoint',
  targetId: id,
  changes,
});

/** `webhook_endpoint.created` (the URL's query values and user info masked, the signing secret masked). */
export const webhookEndpointCreated = (workspaceId: string, e: WebhookEndpoint): AuditEventInput =>
  endpoint(workspaceId, 'created', e.id, { url: e.url, events: e.events, description: e.description, enabled: e.enabled, style: e.style, secret: MASKED });

/** `webhook_endpoint.updated` with the fields the PATCH set. */
export const webhookEndpointUpdated = (workspaceId: string, id: string, patch: CheckedWebhookPatch): AuditEventInput =>
  endpoint(workspaceId, 'updated', id, { ...patch.set, ...(patch.enabled === undefined ? {} : { enabled: patch.enabled }) });

/** `webhook_endpoint.secret_rotated`. */
export const webhookSecretRotated = (workspaceId: string, id: string, immediate: boolean): AuditEventInput =>
  endpoint(workspaceId, 'secret_rotated', id, { immediate, secret: MASKED });

/** `webhook_endpoint.deleted`. */
export const webhookEndpointDeleted = (workspaceId: string, id: string): AuditEventInput => endpoint(workspaceId, 'deleted', id);

/** `webhook_endpoint.test_sent`: a `webhook.test` delivery queued. */
export const webhookTestSent = (workspaceId: string, id: string, deliveryId: string): AuditEventInput =>
  endpoint(workspaceId, 'test_sent', id, { delivery_id: deliveryId });

/** `webhook_endpoint.recovery_requested`: a recovery of missed events (docs/webhooks.md, "Recovering missed events"). */
export const webhookRecoveryRequested = (workspaceId: string, id: string, recoveryId: string, since: Date, until: Date | null): AuditEventInput =>
  endpoint(workspaceId, 'recovery_requested', id, { recovery_id: recoveryId, since: since.toISOString(), until: until?.toISOString() ?? null });

/** `webhook_endpoint.disabled` by the worker (the endpoint answered 410 Gone). */
export const webhookEndpointDisabled = (workspaceId: string, id: string, reason: string): AuditEventInput =>
  endpoint(workspaceId, 'disabled', id, { enabled: false, disabled_reason: reason });

/** `webhook_delivery.retried`. */
export const webhookDeliveryRetried = (workspaceId: string, endpointId: string, deliveryId: string): AuditEventInput => ({
  workspaceId,
  action: 'webhook_delivery.retried',
  targetType: 'webhook_delivery',
  targetId: deliveryId,
  changes: { endpoint_id: endpointId, status: 'pending' },
});

/** The column names a row write set and removed (`null`), sorted; never their values. */
function rowColumns(data: Record<string, unknown>): { fields: string[]; removed: string[] } {
  const names = Object.keys(data).sort();
  return { fields: names.filter((n) => data[n] !== null), removed: names.filter((n) => data[n] === null) };
}

/**
 * `datatable_row.created` or `datatable_row.updated`, one per row of an upsert (single or batch), in request order.
 * @param sent the items as sent, in the order of `rows`.
 */
export function rowsUpserted(workspaceId: string, rows: readonly UpsertedRow[], sent: readonly Record<string, unknown>[]): AuditEventInput[] {
  return rows.map((row, i) => ({
    workspaceId,
    action: row.created ? 'datatable_row.created' : 'datatable_row.updated',
    targetType: 'datatable_row',
    targetId: row.rowId,
    changes: { datatable_id: row.datatableId, ...rowColumns(sent[i] ?? {}) },
  }));
}

/** `datatable_row.updated` by a PATCH. */
export const rowPatched = (workspaceId: string, row: Row, patch: Record<string, unknown>): AuditEventInput => ({
  workspaceId,
  action: 'datatable_row.updated',
  targetType: 'datatable_row',
  targetId: row.rowId,
  changes: { datatable_id: row.datatableId, ...rowColumns(patch) },
});

/** `datatable_row.deleted`. */
export const rowDeleted = (workspaceId: string, datatableId: string, rowId: string): AuditEventInput => ({
  workspaceId,
  action: 'datatable_row.deleted',
  targetType: 'datatable_row',
  targetId: rowId,
  changes: { datatable_id: datatableId },
});

/** `dashboard_link.created` (its URL, which holds the token, left out). */
export const dashboardLinkCreated = (workspaceId: string, l: DashboardLink): AuditEventInput => ({
  workspaceId,
  action: 'dashboard_link.created',
  targetType: 'dashboard_link',
  targetId: l.id,
  changes: { form_id: l.formId, expires_at: l.expiresAt, include_addresses: l.includeAddresses },
});

/** `dashboard_link.revoked`. */
export const dashboardLinkRevoked = (workspaceId: string, formId: string, linkId: string): AuditEventInput => ({
  workspaceId,
  action: 'dashboard_link.revoked',
  targetType: 'dashboard_link',
  targetId: linkId,
  changes: { form_id: formId },
});

/** `api_key.created` for the demo key (`seed --demo`, `demo`; every scope on the demo workspaces). */
export function demoKeyCreated(key: { id: string; workspaceIds: string[] }): AuditEventInput[] {
  return key.workspaceIds.map((workspaceId) => ({
    workspaceId,
    action: 'api_key.created',
    targetType: 'api_key',
    targetId: key.id,
    changes: { name: 'demo', secret: MASKED },
  }));
}

/**
 * `response.deleted`: one response deleted by `DELETE {ws}/responses/{id}` (its form named; no answer, no address).
 */
export const responseDeleted = (workspaceId: string, responseId: string, formId: string): AuditEventInput => ({
  workspaceId,
  action: 'response.deleted',
  targetType: 'response',
  targetId: responseId,
  changes: { form_id: formId },
});

/**
 * `response_deletion.created`: one record per bulk delete asked for (a dry run is not a change and is not recorded),
 * whether it ran whole in the request (`status` succeeded) or as a job (`status` queued; the job's batches add no
 * record: the deletion's own row shows its progress). The filters are named, never their values: a filter may hold an
 * address or a quoted answer, and the append-only trail could not forget it on an erasure request.
 */
export const responseDeletionCreated = (
  workspaceId: string,
  d: { id: string; status: string; matched: number; deleted: number },
  filterNames: readonly string[],
): AuditEventInput => ({
  workspaceId,
  action: 'response_deletion.created',
  targetType: 'response_deletion',
  targetId: d.id,
  changes: { status: d.status, matched: d.matched, deleted: d.deleted, filters: [...filterNames].sort() },
});

/**
 * `workspace.retention_deleted`: one batch of the retention's prune (actor "system"): how many responses or email
 * events older than `before` went.
 */
export const retentionDeleted = (workspaceId: string, kind: 'responses' | 'email_events', deleted: number, before: Date): AuditEventInput => ({
  workspaceId,
  action: 'workspace.retention_deleted',
  targetType: 'workspace',
  targetId: workspaceId,
  changes: { kind, deleted, before: before.toISOString() },
});

/** `workspace.retention_changed`: `response_retention_days` set (a number of days, or null: off). */
export const retentionChanged = (workspaceId: string, days: number | null): AuditEventInput => ({
  workspaceId,
  action: 'workspace.retention_changed',
  targetType: 'workspace',
  targetId: workspaceId,
  changes: { response_retention_days: days },
});

/**
 * `erasure_request.run`: one run of an erasure (the first or a later one): what it removed by kind, the run's number
 * and what the person was named by (`email`, `row_id`). The person is named by the request's id only: neither the
 * address, the row id nor the keyed hash is recorded.
 */
export const erasureRun = (
  workspaceId: string,
  erasureId: string,
  run: { runs: number; includeRows: boolean; by: readonly string[]; removed: object },
): AuditEventInput => ({
  workspaceId,
  action: 'erasure_request.run',
  targetType: 'erasure_request',
  targetId: erasureId,
  changes: { run: run.runs, by: [...run.by], include_rows: run.includeRows, removed: { ...run.removed } },
});

/** `erasure_request.suppression_lifted`: email links for the request's address are accepted again. */
export const suppressionLifted = (workspaceId: string, erasureId: string): AuditEventInput => ({
  workspaceId,
  action: 'erasure_request.suppression_lifted',
  targetType: 'erasure_request',
  targetId: erasureId,
  changes: { suppressed: false },
});
const topic = (workspaceId: string, action: string, id: string, changes: Record<string, unknown> = {}): AuditEventInput => ({
  workspaceId,
  action: `topic.${action}`,
  targetType: 'topic',
  targetId: id,
  changes,
});

/** `topic.created` with its name and query (docs/analytics.md, "Topics"). */
export const topicCreated = (workspaceId: string, t: Topic): AuditEventInput => topic(workspaceId, 'created', t.id, { name: t.name, query: t.query });

/** `topic.updated` with the fields the PATCH set. */
export const topicUpdated = (workspaceId: string, id: string, patch: { name?: string; query?: string }): AuditEventInput =>
  topic(workspaceId, 'updated', id, patch);

/** `topic.deleted` (its tags went with it). */
export const topicDeleted = (workspaceId: string, id: string): AuditEventInput => topic(workspaceId, 'deleted', id);
