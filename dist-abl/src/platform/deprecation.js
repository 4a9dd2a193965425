"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.deprecationHeaders = deprecationHeaders;
exports.styleBDeprecation = styleBDeprecation;
const dates_1 = require("../core/query/dates");
/**
 * The three headers for the given settings, or undefined when no sunset is set.
 * @throws Error naming the setting when a date is not `YYYY-MM-DD`.
 */
function deprecationHeaders(settings) {
    if (!settings.styleBSunset)
        return undefined;
    const day = (raw, name) => {
        let parsed;
        try {
            parsed = (0, dates_1.parseDateValue)(raw, name);
        }
        catch {
            parsed = undefined;
        }
        if (parsed?.kind !== 'date')
            throw new Error(`${name} must be a date YYYY-MM-DD, got "${raw}"`);
        return Date.parse(`${parsed.date}T00:00:00Z`);
    };
    const sunset = day(settings.styleBSunset, 'STYLE_B_SUNSET');
    const deprecated = settings.styleBDeprecatedAt ? day(settings.styleBDeprecatedAt, 'STYLE_B_DEPRECATED_AT') : sunset - 180 * 86_400_000;
    return {
        Deprecation: `@${Math.floor(deprecated / 1000)}`,
        Sunset: new Date(sunset).toUTCString(),
        Link: `<${settings.publicUrl}/docs/migrating>; rel="deprecation"`,
    };
}
function styleBDeprecation(headers) {
    return (_req, res, next) => {
        if (!headers) {
            next();
            return;
        }
        const writeHead = res.writeHead;
        res.writeHead = function (...args) {
            if (String(res.getHeader('X-API-Style') ?? '').toUpperCase() === 'B' && !res.headersSent) {
                for (const [name, value] of Object.entries(headers)) {
                    // A Link the route set itself is kept beside ours.
                    if (name === 'Link' && res.hasHeader('Link'))
                        res.setHeader('Link', `${String(res.getHeader('Link'))}, ${value}`);
                    else
                        res.setHeader(name, value);
                }
            }
            return writeHead.apply(this, args);
        };
        next();
    };
}
//# sourceMappingURL=deprecation.js.map