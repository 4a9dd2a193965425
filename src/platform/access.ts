/**
 * Workspace access and scope checks (CONTRACT section 3), after authentication and before input
 * validation: 403 workspace_access_denied (the same whether or not the workspace exists), then
 * 403 insufficient_scope. Sets `req.workspaceId`.
 */
import type { RequestHandler } from 'express';
import { requiredScope, workspaceIdOf } from '../core/access';
import { errors } from '../core/errors';

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

export function scopeCheck(): RequestHandler {
  return (req, _res, next) => {
    const scope = requiredScope(req.method, req.path);
    if (scope && !req.auth?.scopes.includes(scope)) throw errors.insufficientScope(scope);
    next();
  };
}
