"use strict";
/**
 * The `filter` expression language (API document, Style B query parameters; CONTRACT section 7):
 *
 *   expression := clause ("," clause)*
 *   clause     := field op value | field "in" "[" value ("," value)* "]"
 *   op         := "=" | "!=" | "~"
 *   value      := bare text up to the next top-level "," (or "]" inside a list), trimmed
 *               | a double-quoted string ("\"" and "\\" escapes) holding commas, brackets or spaces
 *
 * Pure: returns an AST; filter.ts checks fields against a whitelist and compiles to SQL.
 * Positions in messages are 1-based character offsets into the expression.
 */
Object.defineProperty(exports, "__esModule", { value: true });
exports.FilterSyntaxError = void 0;
exports.parseFilter = parseFilter;
class FilterSyntaxError extends Error {
    position;
    constructor(message, position) {
        super(message);
        this.position = position;
        this.name = 'FilterSyntaxError';
    }
}
exports.FilterSyntaxError = FilterSyntaxError;
const FIELD = /[A-Za-z_][A-Za-z0-9_.-]*/y;
/** @throws FilterSyntaxError naming the bad token and its position. */
function parseFilter(input) {
    let i = 0;
    const fail = (message, at = i) => {
        throw new FilterSyntaxError(`${message} at position ${at + 1}`, at + 1);
    };
    const skipSpace = () => {
        while (i < input.length && /\s/.test(input[i]))
            i++;
    };
    const near = () => {
        const token = input.slice(i).match(/^\S{1,12}/)?.[0];
        return token === undefined ? 'end of expression' : `"${token}"`;
    };
    const readValue = (stops) => {
        skipSpace();
        if (input[i] === '"') {
            const start = i;
            i++;
            let text = '';
            while (i < input.length && input[i] !== '"') {
                if (input[i] === '\\' && (input[i + 1] === '"' || input[i + 1] === '\\'))
                    i++;
                text += input[i];
                i++;
            }
            if (i >= input.length)
                fail('unterminated quoted value', start);
            i++;
            return { text, quoted: true };
        }
        const start = i;
        while (i < input.length && !stops.includes(input[i])) {
            if (input[i] === '"')
                fail('a quote may only start a value');
            i++;
        }
        const text = input.slice(start, i).trim();
        if (text === '')
            fail('missing value', start);
        return { text, quoted: false };
    };
    const clauses = [];
    skipSpace();
    if (i >= input.length)
        fail('empty filter expression', 0);
    for (;;) {
        skipSpace();
        FIELD.lastIndex = i;
        const m = FIELD.exec(input);
        if (!m)
            fail(`expected a field name, found ${near()}`);
        const position = i + 1;
        const field = m[0];
        i += field.length;
        skipSpace();
        let op;
        if (input.startsWith('!=', i)) {
            op = '!=';
            i += 2;
        }
        else if (input[i] === '=' || input[i] === '~') {
            op = input[i];
            i += 1;
        }
        else if (/^in(?=[\s[])/i.test(input.slice(i))) {
            op = 'in';
            i += 2;
        }
        else {
            return fail(`expected an operator (=, !=, ~, in) after "${field}", found ${near()}`);
        }
        const values = [];
        if (op === 'in') {
            skipSpace();
            if (input[i] !== '[')
                fail(`expected "[" after "in", found ${near()}`);
            i++;
            skipSpace();
            if (input[i] === ']')
                fail('"in" needs at least one value');
            for (;;) {
                values.push(readValue(',]'));
                skipSpace();
                if (input[i] === ']') {
                    i++;
                    break;
                }
                if (input[i] !== ',')
                    fail(`expected "," or "]" in the value list, found ${near()}`);
                i++;
            }
        }
        else {
            values.push(readValue(','));
        }
        clauses.push({ field, op, values, position });
        skipSpace();
        if (i >= input.length)
            return clauses;
        if (input[i] !== ',')
            fail(`expected "," between filters, found ${near()}`);
        i++;
    }
}
//# sourceMappingURL=filter-parser.js.map