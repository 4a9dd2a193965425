"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.sql = sql;
exports.joinSql = joinSql;
function sql(text, ...bindings) {
    return { sql: text, bindings: bindings };
}
/** Joins fragments with a separator, concatenating their bindings in order. */
function joinSql(parts, separator) {
    return { sql: parts.map((p) => p.sql).join(separator), bindings: parts.flatMap((p) => p.bindings) };
}
//# sourceMappingURL=sql.js.map