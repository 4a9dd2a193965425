/**
 * The `filter` expression language (API document, Style B query parameters; docs/api-rules.md, "Filter language"):
 *
 *   expression := clause ("," clause)*
 *   clause     := field op value | field "in" "[" value ("," value)* "]"
 *   field      := name | name "." quoted      (`answers."q:1"`: a question id with other characters)
 *   name       := [A-Za-z_][A-Za-z0-9_.-]*
 *   op         := "=" | "!=" | "~" | ">=" | ">" | "<=" | "<"
 *   value      := bare text up to the next top-level "," (or "]" inside a list), trimmed
 *               | quoted
 *   quoted     := a double-quoted string ("\"" and "\\" escapes) holding commas, brackets or spaces
 *
 * The comparisons (`>=`, `>`, `<=`, `<`) parse for every field; which fields take them is filter.ts's
 * business (answers of number, rating, nps and date questions: docs/api-rules.md, "Filters on answers").
 * Pure: returns an AST; filter.ts checks fields against a whitelist and compiles to SQL.
 * Positions in messages are 1-based character offsets into the expression.
 */

export type FilterOp = '=' | '!=' | '~' | 'in' | '>=' | '>' | '<=' | '<';

/** The comparisons: ordered values only (numbers, dates). */
export const COMPARISON_OPS: readonly FilterOp[] = ['>=', '>', '<=', '<'];

export interface FilterValue {
  text: string;
  /** Quoted values are always text; a bare `null` means "no value". */
  quoted: boolean;
}

export interface FilterClause {
  field: string;
  op: FilterOp;
  values: FilterValue[];
  /** 1-based position of the field name. */
  position: number;
}

export class FilterSyntaxError extends Error {
  constructor(
    message: string,
    readonly position: number,
  ) {
    super(message);
    this.name = 'FilterSyntaxError';
  }
}

const FIELD = /[A-Za-z_][A-Za-z0-9_.-]*/y;

/** @throws FilterSyntaxError naming the bad token and its position. */
export function parseFilter(input: string): FilterClause[] {
  let i = 0;
  const fail = (message: string, at = i): never => {
    throw new FilterSyntaxError(`${message} at position ${at + 1}`, at + 1);
  };
  const skipSpace = () => {
    while (i < input.length && /\s/.test(input[i]!)) i++;
  };
  const near = () => {
    const token = input.slice(i).match(/^\S{1,12}/)?.[0];
    return token === undefined ? 'end of expression' : `"${token}"`;
  };
  /** A double-quoted string at `i` (on its opening quote), unescaped. */
  const readQuoted = (what: string): string => {
    const start = i;
    i++;
    let text = '';
    while (i < input.length && input[i] !== '"') {
      if (input[i] === '\\' && (input[i + 1] === '"' || input[i + 1] === '\\')) i++;
      text += input[i];
      i++;
    }
    if (i >= input.length) fail(`unterminated quoted ${what}`, start);
    i++;
    return text;
  };
  const readValue = (stops: string): FilterValue => {
    skipSpace();
    if (input[i] === '"') return { text: readQuoted('value'), quoted: true };
    const start = i;
    while (i < input.length && !stops.includes(input[i]!)) {
      if (input[i] === '"') fail('a quote may only start a value');
      i++;
    }
    const text = input.slice(start, i).trim();
    if (text === '') fail('missing value', start);
    return { text, quoted: false };
  };

  const clauses: FilterClause[] = [];
  skipSpace();
  if (i >= input.length) fail('empty filter expression', 0);
  for (;;) {
    skipSpace();
    FIELD.lastIndex = i;
    const m = FIELD.exec(input);
    if (!m) fail(`expected a field name, found ${near()}`);
    const position = i + 1;
    let field = m![0];
    i += field.length;
    if (field.endsWith('.') && input[i] === '"') field += readQuoted('field name');
    skipSpace();
    let op: FilterOp;
    const two = input.slice(i, i + 2);
    if (two === '!=' || two === '>=' || two === '<=') {
      op = two;
      i += 2;
    } else if (input[i] === '=' || input[i] === '~' || input[i] === '>' || input[i] === '<') {
      op = input[i] as FilterOp;
      i += 1;
    } else if (/^in(?=[\s[])/i.test(input.slice(i))) {
      op = 'in';
      i += 2;
    } else {
      return fail(`expected an operator (=, !=, ~, in, >=, >, <=, <) after "${field}", found ${near()}`);
    }
    const values: FilterValue[] = [];
    if (op === 'in') {
      skipSpace();
      if (input[i] !== '[') fail(`expected "[" after "in", found ${near()}`);
      i++;
      skipSpace();
      if (input[i] === ']') fail('"in" needs at least one value');
      for (;;) {
        values.push(readValue(',]'));
        skipSpace();
        if (input[i] === ']') {
          i++;
          break;
        }
        if (input[i] !== ',') fail(`expected "," or "]" in the value list, found ${near()}`);
        i++;
      }
    } else {
      values.push(readValue(','));
    }
    clauses.push({ field, op, values, position });
    skipSpace();
    if (i >= input.length) return clauses;
    if (input[i] !== ',') fail(`expected "," between filters, found ${near()}`);
    i++;
  }
}
