"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.A_ONLY_PARAMS = exports.B_ONLY_PARAMS = void 0;
exports.pathStyle = pathStyle;
exports.headerStyle = headerStyle;
exports.selectStyle = selectStyle;
/**
 * Style selection (CONTRACT section 2). Style-only paths always answer in their style; on the shared
 * paths (`{ws}/responses`, `{ws}/responses/{id}`, v2 `/responses`) the first rule that applies wins:
 * the `X-API-Style` header, then style-only query parameters, then the key's default style.
 */
const errors_1 = require("../core/errors");
/** Query parameters only one style understands (CONTRACT section 2, rule 2). */
exports.B_ONLY_PARAMS = ['page', 'filter', 'start_date', 'end_date', 'include_actionlist_data'];
exports.A_ONLY_PARAMS = ['cursor', 'created_after', 'created_before', 'score_gte', 'score_lte'];
/** The style a path always answers in, 'shared' for the responses paths, undefined outside the API tree. */
function pathStyle(path) {
    if (/^\/api\/v2\/workspaces\/[^/]+\/responses\/?$/.test(path))
        return 'shared';
    const m = /^\/api\/v1\/workspaces(?:\/([^/]+)(\/.*)?)?$/.exec(path);
    if (!m)
        return undefined;
    const rest = (m[2] ?? '').split('/').filter(Boolean);
    if (rest[0] === 'responses' && rest.length <= 2)
        return 'shared';
    if (rest[0] === 'tables')
        return 'B';
    if (rest[0] === 'emails' && rest[1] === 'events' && rest.length === 2)
        return 'B';
    return 'A';
}
/** Parses the `X-API-Style` header. @throws AppError validation_error for another value. */
function headerStyle(header) {
    if (header === undefined || header === '')
        return undefined;
    const v = header.trim().toUpperCase();
    if (v === 'A' || v === 'B')
        return v;
    throw errors_1.errors.invalid('header', 'X-API-Style', `\`X-API-Style\` must be A or B; got "${header}".`);
}
/**
 * Decides the style of a request.
 * @throws AppError validation_error for a bad header or for parameters of both styles in one request.
 */
function selectStyle(path, header, query, keyDefault) {
    const fixed = pathStyle(path);
    const fromHeader = headerStyle(header);
    if (fixed === 'A' || fixed === 'B')
        return fixed;
    if (fixed === undefined)
        return fromHeader ?? keyDefault;
    const present = (names) => names.filter((n) => query[n] !== undefined);
    const b = present(exports.B_ONLY_PARAMS);
    const a = present(exports.A_ONLY_PARAMS);
    if (a.length > 0 && b.length > 0) {
        throw errors_1.errors.validation([...a, ...b].map((field) => ({ location: 'query', field, message: `\`${field}\` belongs to Style ${a.includes(field) ? 'A' : 'B'}.` })), `Parameters of both styles in one request: ${a.join(', ')} (Style A) and ${b.join(', ')} (Style B).`);
    }
    if (fromHeader) {
        // A parameter the chosen style does not know would be silently ignored: reject it instead.
        const foreign = fromHeader === 'A' ? b : a;
        if (foreign.length > 0) {
            const other = fromHeader === 'A' ? 'B' : 'A';
            throw errors_1.errors.validation(foreign.map((field) => ({ location: 'query', field, message: `\`${field}\` belongs to Style ${other}; X-API-Style asks for Style ${fromHeader}.` })), `Style ${other} parameters in a Style ${fromHeader} request: ${foreign.join(', ')}.`);
        }
        return fromHeader;
    }
    if (b.length > 0)
        return 'B';
    if (a.length > 0)
        return 'A';
    return keyDefault;
}
//# sourceMappingURL=style.js.map