/**
 * Scopes (docs/writes-keys-limits.md, "API keys and scopes"): `RESOURCE:read` and `RESOURCE:write` per resource.
 * A key imported or made by `keys create` without scopes gets ALL_SCOPES.
 */
export const SCOPE_RESOURCES = ['workspaces', 'forms', 'responses', 'datatables', 'email_events', 'webhooks', 'api_keys'] as const;

export type ScopeResource = (typeof SCOPE_RESOURCES)[number];
export type Scope = `${ScopeResource}:${'read' | 'write'}`;

export const ALL_SCOPES: readonly Scope[] = SCOPE_RESOURCES.flatMap((r) => [`${r}:read`, `${r}:write`] as Scope[]);

export function isScope(value: string): value is Scope {
  return (ALL_SCOPES as readonly string[]).includes(value);
}
