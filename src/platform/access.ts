/**
 * Workspace access and scope checks (docs/api-rules.md, "Order of checks"), after authentication and before input
 * validation: 403 workspace_access_denied (the same whether or not the workspace exists), then
 * 404 for a path the document does not have, 405 (with `Allow`) for a method it does not have there,
 * then 403 insufficient_scope. Sets `req.workspaceId`.
 */
import type { RequestHandler } from 'express';
import { workspaceIdOf } from '../core/workspace-path';
import { errors } from '../core/errors';
import { pathParam, scopesNeeded, type Operation, type OperationIndex } from './operations';

export function workspaceAccess(): RequestHandler {
  return (req, _res, next) => {
    const ws = workspaceIdOf(req.path);
    if (ws !== undefined) {
      if (!req.auth?.workspaceIds.includes(ws)) throw errors.workspaceAccessDenied();
      req.workspaceId = ws;
    }
    next();
  };
}

/**
 * The scope check, read from the document's `x-required-scope` (src/platform/operations.ts). Fails
 * closed: a path the document does not describe is a 404, an operation without a valid
 * `x-required-scope` is refused with 403 insufficient_scope (naming the first scope the key lacks, when the operation
 * declares several). An operation with `x-own-key-param` needs
 * no scope when that path parameter is the calling key's own id.
 */
export function scopeCheck(ops: OperationIndex): RequestHandler {
  return (req, res, next) => {
    const path = ops.match(req.path);
    if (!path) throw errors.routeNotFound(req.method, req.path);
    // The metrics' route label reuses this match (one scan of the templates per request).
    res.locals.pathMatch = path;
    const op = ops.operationOf(path, req.method);
    if (!op) throw errors.methodNotAllowed(req.method, path.methods);
    if (op.scope === undefined) throw errors.scopeUndeclared(`${op.method} ${op.template}`);
    const missing = scopesNeeded(op.scope).find((s) => !req.auth?.scopes.includes(s));
    if (missing !== undefined && !ownKey(op, req.path, req.auth?.id)) throw errors.insufficientScope(missing);
    next();
  };
}

function ownKey(op: Operation, path: string, keyId: string | undefined): boolean {
  return op.ownKeyParam !== undefined && keyId !== undefined && pathParam(op.template, path, op.ownKeyParam) === keyId;
}
