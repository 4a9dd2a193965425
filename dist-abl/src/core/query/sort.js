"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.parseSort = parseSort;
exports.sortSignature = sortSignature;
/**
 * Sort parameters (API document "Common query parameters"; CONTRACT sections 7 and 10):
 * `field:direction[,field:direction…]`, direction `asc` or `desc` (default `asc` when omitted).
 * Only whitelisted fields; the order always ends with the id tie-breaker in the direction of the
 * last field, so pages never repeat or skip a row.
 */
const errors_1 = require("../errors");
const fields_1 = require("./fields");
/**
 * Parses `raw` into sort keys ending with the tie-breaker.
 * @throws AppError validation_error (location query, field `sort`) for an unknown field or direction.
 */
function parseSort(raw, opts) {
    const keys = [];
    if (raw === undefined || raw.trim() === '') {
        keys.push(...opts.defaultSort);
    }
    else {
        const parts = raw.split(',').map((p) => p.trim());
        if (!opts.multi && parts.length > 1) {
            throw errors_1.errors.invalid('query', 'sort', `\`sort\` takes one field:direction here; got "${raw}".`);
        }
        for (const part of parts) {
            const [name = '', dir = 'asc', ...rest] = part.split(':').map((s) => s.trim());
            const field = name === '' ? undefined : (0, fields_1.lookupField)(opts.fields, name);
            if (!field) {
                const known = [...opts.fields.keys()].join(', ');
                throw errors_1.errors.invalid('query', 'sort', `\`sort\` field "${name}" is not sortable; use one of: ${known}.`);
            }
            const direction = dir.toLowerCase();
            if (rest.length > 0 || (direction !== 'asc' && direction !== 'desc')) {
                throw errors_1.errors.invalid('query', 'sort', `\`sort\` direction must be asc or desc; got "${part}".`);
            }
            if (keys.some((k) => k.field.name === field.name)) {
                throw errors_1.errors.invalid('query', 'sort', `\`sort\` names "${field.name}" twice.`);
            }
            keys.push({ field, dir: direction });
        }
    }
    const withoutTie = keys.filter((k) => k.field.name !== opts.tieBreaker.name);
    const lastDir = keys.length > 0 ? keys[keys.length - 1].dir : 'desc';
    const tie = keys.find((k) => k.field.name === opts.tieBreaker.name)?.dir ?? lastDir;
    return [...withoutTie, { field: opts.tieBreaker, dir: tie }];
}
/** Stable text form of an order, e.g. `created_at:desc,id:desc` (part of every cursor). */
function sortSignature(keys) {
    return keys.map((k) => `${k.field.name}:${k.dir}`).join(',');
}
//# sourceMappingURL=sort.js.map