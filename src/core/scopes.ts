/**
 * Scopes (docs/writes-keys-limits.md, "API keys and scopes"): `RESOURCE:read` and `RESOURCE:write` per resource, and
 * the read-only `audit:read` (the audit trail, docs/security.md, "The audit trail": nothing writes it through the API) and
 * `events:read` (the event log, docs/live.md, "Event log": every write records its events itself).
 * A key imported or made by `keys create` without scopes gets ALL_SCOPES.
 */
export const SCOPE_RESOURCES = ['workspaces', 'forms', 'responses', 'datatables', 'email_events', 'webhooks', 'api_keys'] as const;

/**
 * Scopes with no write counterpart (added after the first fourteen; migrations 017 and 022 granted `audit:read` and
 * `events:read` to keys holding all of those).
 */
export const READ_ONLY_SCOPES = ['audit:read', 'events:read'] as const;

export type ScopeResource = (typeof SCOPE_RESOURCES)[number];
export type Scope = `${ScopeResource}:${'read' | 'write'}` | (typeof READ_ONLY_SCOPES)[number];

export const ALL_SCOPES: readonly Scope[] = [...SCOPE_RESOURCES.flatMap((r) => [`${r}:read`, `${r}:write`] as Scope[]), ...READ_ONLY_SCOPES];

export function isScope(value: string): value is Scope {
  return (ALL_SCOPES as readonly string[]).includes(value);
}
