"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.snakeCase = snakeCase;
exports.lookupField = lookupField;
exports.fieldMap = fieldMap;
/** camelCase → snake_case (`createdAt` → `created_at`): both spellings are accepted (CONTRACT section 2). */
function snakeCase(name) {
    return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}
/** Finds a field by exact name, then by its snake_case spelling. */
function lookupField(fields, name) {
    return fields.get(name) ?? fields.get(snakeCase(name));
}
function fieldMap(fields) {
    return new Map(fields.map((f) => [f.name, f]));
}
//# sourceMappingURL=fields.js.map