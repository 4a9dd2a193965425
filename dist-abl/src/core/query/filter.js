"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.compileFilter = compileFilter;
/**
 * Compiles parsed filter clauses (filter-parser.ts) to SQL over a list's whitelisted fields.
 * Typed comparison: number fields compare as numbers, booleans as booleans, text exactly;
 * `~` is a case-insensitive "contains" on text; `!=` keeps rows whose value is absent;
 * a bare `null` matches an absent value. Errors name the field, the value and the position.
 */
const errors_1 = require("../errors");
const fields_1 = require("./fields");
const filter_parser_1 = require("./filter-parser");
const sql_1 = require("./sql");
function typedValue(field, v, clause, ctx) {
    const param = ctx.param ?? 'filter';
    const bad = (what) => errors_1.errors.invalid(ctx.location ?? 'query', param, `\`${param}\`: ${what} (position ${clause.position}).`);
    switch (field.type) {
        case 'number': {
            const n = Number(v.text);
            if (v.text.trim() === '' || !Number.isFinite(n))
                throw bad(`"${v.text}" is not a number for field "${clause.field}"`);
            return n;
        }
        case 'boolean': {
            const t = v.text.toLowerCase();
            if (t !== 'true' && t !== 'false')
                throw bad(`"${v.text}" is not true or false for field "${clause.field}"`);
            return t === 'true';
        }
        default:
            return v.text;
    }
}
function escapeLike(text) {
    return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}
function compileClause(clause, ctx) {
    const param = ctx.param ?? 'filter';
    const location = ctx.location ?? 'query';
    const field = (0, fields_1.lookupField)(ctx.fields, clause.field);
    if (!field) {
        const known = [...ctx.fields.keys()].join(', ');
        throw errors_1.errors.invalid(location, param, `\`${param}\`: unknown field "${clause.field}" at position ${clause.position}; filterable fields: ${known}.`);
    }
    const e = field.expr;
    const isNull = (v) => !v.quoted && v.text.toLowerCase() === 'null';
    switch (clause.op) {
        case '=':
        case '!=': {
            const v = clause.values[0];
            if (isNull(v))
                return (0, sql_1.sql)(`(${e.sql}) IS ${clause.op === '=' ? '' : 'NOT '}NULL`, ...e.bindings);
            const value = typedValue(field, v, clause, ctx);
            return clause.op === '='
                ? (0, sql_1.sql)(`(${e.sql}) = ?`, ...e.bindings, value)
                : (0, sql_1.sql)(`(${e.sql}) IS DISTINCT FROM ?`, ...e.bindings, value);
        }
        case '~': {
            if (field.type !== 'text') {
                throw errors_1.errors.invalid(location, param, `\`${param}\`: "~" (contains) applies to text fields; "${clause.field}" is a ${field.type} (position ${clause.position}).`);
            }
            return (0, sql_1.sql)(`(${e.sql}) ILIKE ?`, ...e.bindings, `%${escapeLike(clause.values[0].text)}%`);
        }
        case 'in': {
            const values = clause.values.filter((v) => !isNull(v)).map((v) => typedValue(field, v, clause, ctx));
            const parts = [];
            if (values.length > 0)
                parts.push((0, sql_1.sql)(`(${e.sql}) IN (${values.map(() => '?').join(', ')})`, ...e.bindings, ...values));
            if (clause.values.some(isNull))
                parts.push((0, sql_1.sql)(`(${e.sql}) IS NULL`, ...e.bindings));
            const joined = (0, sql_1.joinSql)(parts, ' OR ');
            return (0, sql_1.sql)(`(${joined.sql})`, ...joined.bindings);
        }
    }
}
/**
 * Parses and compiles a filter expression; clauses are ANDed.
 * @throws AppError validation_error (query `filter`) for syntax errors, unknown fields or operators, bad values.
 */
function compileFilter(expression, ctx) {
    let clauses;
    try {
        clauses = (0, filter_parser_1.parseFilter)(expression);
    }
    catch (e) {
        if (e instanceof filter_parser_1.FilterSyntaxError) {
            throw errors_1.errors.invalid(ctx.location ?? 'query', ctx.param ?? 'filter', `\`${ctx.param ?? 'filter'}\`: ${e.message}.`);
        }
        throw e;
    }
    const where = (0, sql_1.joinSql)(clauses.map((c) => compileClause(c, ctx)), ' AND ');
    return { clauses, where };
}
//# sourceMappingURL=filter.js.map