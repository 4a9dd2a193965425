"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.workspaceAccess = workspaceAccess;
exports.scopeCheck = scopeCheck;
const access_1 = require("../core/access");
const errors_1 = require("../core/errors");
function workspaceAccess() {
    return (req, _res, next) => {
        const ws = (0, access_1.workspaceIdOf)(req.path);
        if (ws !== undefined) {
            if (!req.auth?.workspaceIds.includes(ws))
                throw errors_1.errors.workspaceAccessDenied();
            req.workspaceId = ws;
        }
        next();
    };
}
/**
 * The scope check, read from the document's `x-required-scope` (src/platform/operations.ts). Fails
 * closed: a path the document does not describe is a 404, an operation without a valid
 * `x-required-scope` is refused with 403 insufficient_scope.
 */
function scopeCheck(ops) {
    return (req, _res, next) => {
        const path = ops.match(req.path);
        if (!path)
            throw errors_1.errors.routeNotFound(req.method, req.path);
        const op = ops.find(req.method, req.path);
        if (!op)
            throw errors_1.errors.methodNotAllowed(req.method, path.methods);
        if (op.scope === undefined)
            throw errors_1.errors.scopeUndeclared(`${op.method} ${op.template}`);
        if (op.scope !== 'none' && op.scope !== 'key' && !req.auth?.scopes.includes(op.scope))
            throw errors_1.errors.insufficientScope(op.scope);
        next();
    };
}
//# sourceMappingURL=access.js.map