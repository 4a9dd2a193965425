/**
 * Access checks (CONTRACT section 3): which scope a request needs, from its method and path, and
 * which workspace it addresses. Pure, so the platform can check before routing and validation.
 */
import type { Scope, ScopeResource } from './scopes';

const WORKSPACE_PATH = /^\/api\/v[12]\/workspaces\/([^/]+)(\/.*)?$/;

/** The workspace id in `/api/v1/workspaces/{id}/…` (decoded), or undefined. */
export function workspaceIdOf(path: string): string | undefined {
  const m = WORKSPACE_PATH.exec(path);
  if (!m) return undefined;
  try {
    return decodeURIComponent(m[1]!);
  } catch {
    return m[1];
  }
}

const RESOURCE_BY_SEGMENT: Record<string, ScopeResource> = {
  forms: 'forms',
  responses: 'responses',
  datatables: 'datatables',
  tables: 'datatables',
  'email-events': 'email_events',
  emails: 'email_events',
  'webhook-endpoints': 'webhooks',
  'api-keys': 'api_keys',
};

/**
 * The scope a request needs: `RESOURCE:read` for GET/HEAD, `RESOURCE:write` otherwise; undefined for
 * paths outside the resource tree (e.g. `/api/v1/openapi`) or unknown segments (they 404 later).
 */
export function requiredScope(method: string, path: string): Scope | undefined {
  const access = method === 'GET' || method === 'HEAD' ? 'read' : 'write';
  if (/^\/api\/v1\/workspaces\/?$/.test(path)) return `workspaces:${access}`;
  const m = WORKSPACE_PATH.exec(path);
  if (!m) return undefined;
  const segment = (m[2] ?? '/').split('/')[1] ?? '';
  if (segment === '') return `workspaces:${access}`;
  const resource = RESOURCE_BY_SEGMENT[segment];
  return resource && `${resource}:${access}`;
}
