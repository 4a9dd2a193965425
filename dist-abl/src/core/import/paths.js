"use strict";
/**
 * JSON paths of a fixture document as problems name them (CONTRACT section 1: `responses[12].form_id`):
 * identifiers joined with dots, indexes in brackets, other keys as quoted brackets; `$` is the document.
 */
Object.defineProperty(exports, "__esModule", { value: true });
exports.prop = prop;
exports.idx = idx;
exports.pointerToPath = pointerToPath;
const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
/** The path of property `key` of the value at `path`: `prop('forms[0]', 'id')` → `forms[0].id`. */
function prop(path, key) {
    const base = path === '$' ? '' : path;
    if (IDENT.test(key))
        return base === '' ? key : `${base}.${key}`;
    return `${base === '' ? '$' : base}[${JSON.stringify(key)}]`;
}
/** The path of element `i` of the array at `path`: `idx('responses', 3)` → `responses[3]`. */
function idx(path, i) {
    return `${path}[${i}]`;
}
/**
 * A JSON pointer (as ajv reports it) below `base`: `pointerToPath('/answers/0', 'responses[12]')` →
 * `responses[12].answers[0]`; numeric segments become indexes.
 */
function pointerToPath(pointer, base = '$') {
    if (pointer === '')
        return base;
    let path = base;
    for (const raw of pointer.slice(1).split('/')) {
        const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
        path = /^(0|[1-9]\d*)$/.test(seg) ? idx(path === '$' ? '' : path, Number(seg)) : prop(path, seg);
    }
    return path;
}
//# sourceMappingURL=paths.js.map