/**
 * Access checks (docs/api-rules.md, "Order of checks"): which workspace a request addresses. Pure, so the platform can
 * check before routing and validation. The scope an operation needs is declared once, in
 * openapi/openapi.yaml (`x-required-scope`), and read by src/platform/operations.ts.
 */

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
