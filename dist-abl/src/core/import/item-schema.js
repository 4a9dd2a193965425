"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.checkItemSchema = checkItemSchema;
exports.checkTopLevel = checkTopLevel;
/**
 * The JSON Schema of the fixture document (fixture-schema.ts) applied one item at a time, as the
 * document is read in pieces: the document's own rules (an object, known keys, arrays) here, each
 * item's rules by its collection's item schema, each datatable row by the row schema. Problems carry
 * the item's path in the document, as if the whole document had been validated at once.
 */
const ajv_1 = __importDefault(require("ajv"));
const ajv_formats_1 = __importDefault(require("ajv-formats"));
const fixture_schema_1 = require("./fixture-schema");
const fixture_source_1 = require("./fixture-source");
const paths_1 = require("./paths");
let validators;
function compile() {
    const ajv = new ajv_1.default({ allErrors: true, strict: true, allowUnionTypes: true });
    (0, ajv_formats_1.default)(ajv);
    const props = fixture_schema_1.FIXTURE_SCHEMA.properties;
    const map = new Map();
    for (const [name, schema] of Object.entries(props)) {
        if ((0, fixture_source_1.isCollection)(name))
            map.set(name, ajv.compile(schema.items));
    }
    map.set('rows', ajv.compile(props.datatables.items.properties.rows.items));
    return map;
}
function problemOf(e, base) {
    const path = (0, paths_1.pointerToPath)(e.instancePath, base);
    const p = e.params;
    switch (e.keyword) {
        case 'required':
            return { path: (0, paths_1.prop)(path, String(p.missingProperty)), message: 'is required' };
        case 'additionalProperties':
            return { path: (0, paths_1.prop)(path, String(p.additionalProperty)), message: 'is not an allowed property' };
        case 'enum':
            return { path, message: `must be one of ${p.allowedValues.map((v) => JSON.stringify(v)).join(', ')}` };
        case 'format':
            return {
                path,
                message: p.format === 'date-time'
                    ? 'must be an ISO 8601 date-time with an offset, e.g. "2026-11-22T10:15:30Z"'
                    : `must be a valid ${String(p.format)}`,
            };
        case 'pattern':
            return { path, message: `must match ${String(p.pattern)}` };
        case 'propertyNames':
            return { path: (0, paths_1.prop)(path, String(p.propertyName)), message: 'is not an allowed property name' };
        default:
            return { path, message: e.message ?? `fails ${e.keyword}` };
    }
}
/**
 * Checks one item (`part` rows: a datatable row) against its schema and adds its problems at `path`.
 * @returns true when the item fits (its content can be checked further).
 */
function checkItemSchema(part, value, path, problems) {
    validators ??= compile();
    const validate = validators.get(part);
    if (validate(value))
        return true;
    for (const e of validate.errors ?? []) {
        const p = problemOf(e, path);
        problems.add(p.path, p.message);
    }
    return false;
}
/**
 * The document's own rules for a top-level key: a known collection holding an array.
 * @returns true when the key is a collection and its value an array.
 */
function checkTopLevel(key, array, problems) {
    if (!(0, fixture_source_1.isCollection)(key)) {
        problems.add((0, paths_1.prop)('$', key), 'is not an allowed property');
        return false;
    }
    if (!array)
        problems.add((0, paths_1.prop)('$', key), 'must be array');
    return array;
}
//# sourceMappingURL=item-schema.js.map