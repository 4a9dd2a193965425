"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.ALL_SCOPES = exports.SCOPE_RESOURCES = void 0;
exports.isScope = isScope;
/**
 * Scopes (CONTRACT section 3): `RESOURCE:read` and `RESOURCE:write` per resource.
 * A key imported or made by `keys create` without scopes gets ALL_SCOPES.
 */
exports.SCOPE_RESOURCES = [
    'workspaces',
    'forms',
    'responses',
    'datatables',
    'email_events',
    'webhooks',
    'api_keys',
];
exports.ALL_SCOPES = exports.SCOPE_RESOURCES.flatMap((r) => [`${r}:read`, `${r}:write`]);
function isScope(value) {
    return exports.ALL_SCOPES.includes(value);
}
//# sourceMappingURL=scopes.js.map