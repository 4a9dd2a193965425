"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.HTTP_METHODS = void 0;
exports.isRequiredScope = isRequiredScope;
exports.operationIndex = operationIndex;
/**
 * The operations of openapi/openapi.yaml as a lookup table, built once from the document (the one
 * source of every operation's scope, CONTRACT section 3): which path template a request path
 * matches, which methods it has, and each operation's `x-required-scope`. Used before validation
 * (the order of checks puts 403 before 400) by the scope check and the 405 answer.
 */
const scopes_1 = require("../core/scopes");
exports.HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
/** The order methods are listed in `Allow` and in the 405 message. */
const METHOD_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE'];
function isRequiredScope(value) {
    return typeof value === 'string' && (value === 'key' || value === 'none' || (0, scopes_1.isScope)(value));
}
function compile(template) {
    const body = template
        .split('/')
        .map((seg) => (/^\{[^}]+\}$/.test(seg) ? '[^/]+' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
        .join('/');
    return new RegExp(`^${body}/?$`);
}
const built = new WeakMap();
/**
 * The index of a loaded document, built once per document (the scope check, the 405 answer and the
 * metrics' route label share it); the document is not changed.
 */
function operationIndex(doc) {
    let index = built.get(doc);
    if (!index)
        built.set(doc, (index = buildIndex(doc)));
    return index;
}
function buildIndex(doc) {
    const operations = [];
    const compiled = [];
    for (const [template, item] of Object.entries(doc.paths)) {
        const ops = new Map();
        for (const method of exports.HTTP_METHODS) {
            const op = item[method];
            if (!op)
                continue;
            const declared = op['x-required-scope'];
            const operation = {
                method: method.toUpperCase(),
                template,
                operationId: op.operationId,
                scope: isRequiredScope(declared) ? declared : undefined,
                declared,
            };
            ops.set(operation.method, operation);
            operations.push(operation);
        }
        const methods = [...ops.keys()];
        if (ops.has('GET') && !ops.has('HEAD'))
            methods.push('HEAD');
        methods.sort((a, b) => METHOD_ORDER.indexOf(a) - METHOD_ORDER.indexOf(b));
        compiled.push({
            template,
            methods,
            operations: ops,
            regex: compile(template),
            literals: template.split('/').filter((s) => s && !s.startsWith('{')).length,
        });
    }
    compiled.sort((a, b) => b.literals - a.literals);
    const match = (path) => compiled.find((c) => c.regex.test(path));
    return {
        operations,
        match,
        find(method, path) {
            const m = match(path);
            if (!m)
                return undefined;
            const upper = method.toUpperCase();
            return m.operations.get(upper) ?? (upper === 'HEAD' ? m.operations.get('GET') : undefined);
        },
    };
}
//# sourceMappingURL=operations.js.map