/**
 * Workspace access and scope checks (docs/api-rules.md, "Order of checks"), after authentication and before input
 * validation: 403 workspace_access_denied (the same whether or not the workspace exists), then
 * 404 for a path the document does not have, 405 (with `Allow`) for a method it does not have there,
 * then 403 insufficient_scope. Fills `workspaceId` and `operation` of the request context.
 */
import type { RequestHandler } from 'express';
import { workspaceIdOf } from '../core/workspace-path';
import { errors } from '../core/errors';
import { operationOf, pathParam, scopesNeeded, type Operation } from './operations';

export function workspaceAccess(): RequestHandler {
  return (req, _res, next) => {
    const ws = workspaceIdOf(req.path);
    if (ws !== undefined) {
      if (!req.context.auth?.workspaceIds.includes(ws)) throw errors.workspaceAccessDenied();
      req.context.workspaceId = ws;
    }
    next();
  };
}

/**
 * The scope check, read from the document's `x-required-scope` (src/platform/operations.ts) on the path the request
 * context matched. Fails
 * closed: a path the document does not describe is a 404, an operation without a valid
 * `x-required-scope` is refused with 403 insufficient_scope (naming the first scope the key lacks, when the operation
 * declares several). An operation with `x-own-key-param` needs
 * no scope when that path parameter is the calling key's own id.
 */
export function scopeCheck(): RequestHandler {
  return (req, _res, next) => {
    const ctx = req.context;
    // The path was matched once, when the context was made (platform/request-context.ts).
    const path = ctx.match;
    if (!path) throw errors.routeNotFound(req.method, req.path);
    const op = operationOf(path, req.method);
    if (!op) throw errors.methodNotAllowed(req.method, path.methods);
    ctx.operation = op;
    if (op.scope === undefined) throw errors.scopeUndeclared(`${op.method} ${op.template}`);
    const missing = scopesNeeded(op.scope).find((s) => !ctx.auth?.scopes.includes(s));
    if (missing !== undefined && !ownKey(op, req.path, ctx.auth?.id)) throw errors.insufficientScope(missing);
    next();
  };
}

function ownKey(op: Operation, path: string, keyId: string | undefined): boolean {
  return op.ownKeyParam !== undefined && keyId !== undefined && pathParam(op.template, path, op.ownKeyParam) === keyId;
}
