import fc from 'fast-check';
import { AppError } from '../../src/core/errors';
import { fieldMap, type ListField } from '../../src/core/query/fields';
import { compileFilter } from '../../src/core/query/filter';
import { parseFilter, type FilterClause, type FilterOp, type FilterValue } from '../../src/core/query/filter-parser';
import { sql } from '../../src/core/query/sql';

const FIELDS: ListField[] = [
  { name: 'name', expr: sql('??', 'name'), type: 'text', nullable: true },
  { name: 'city', expr: sql('??', 'city'), type: 'text', nullable: true },
  { name: 'score', expr: sql('??', 'score'), type: 'number', nullable: false },
  { name: 'seats', expr: sql('(data ->> ?)::numeric', 'seats'), type: 'number', nullable: true },
];
const FIELD_MAP = fieldMap(FIELDS);
const TEXT_FIELDS = ['name', 'city'];
const NUMBER_FIELDS = ['score', 'seats'];

/** A value that cannot be written bare: it would be cut, trimmed or misread by the parser. */
const needsQuotes = (text: string) => text === '' || text !== text.trim() || /[,[\]"]/.test(text);

const printValue = (v: FilterValue) => (v.quoted ? `"${v.text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"` : v.text);

// Text values mix plain words with the characters that need quoting or escaping.
const textValue: fc.Arbitrary<FilterValue> = fc
  .tuple(
    fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.string({ unit: 'binary', maxLength: 8 }),
      fc.stringMatching(/^[A-Za-z0-9@._-]{1,10}$/),
      fc.constantFrom('null', 'NULL', 'a,b', '[x]', ' padded ', 'say "hi"', 'back\\slash', 'end\\', 'in', '~', '!=', ''),
    ),
    fc.boolean(),
  )
  .map(([text, quote]) => ({ text, quoted: quote || needsQuotes(text) }));

const numberValue: fc.Arbitrary<FilterValue> = fc
  .oneof(fc.integer({ min: -1000, max: 1000 }).map(String), fc.double({ min: -1e6, max: 1e6, noNaN: true }).map(String))
  .map((text) => ({ text, quoted: false }));

type GenClause = Omit<FilterClause, 'position'>;

const clause: fc.Arbitrary<GenClause> = fc.oneof(
  fc.record({
    field: fc.constantFrom(...TEXT_FIELDS),
    op: fc.constantFrom<FilterOp>('=', '!=', '~'),
    values: textValue.map((v) => [v]),
  }),
  fc.record({
    field: fc.constantFrom(...TEXT_FIELDS),
    op: fc.constant<FilterOp>('in'),
    values: fc.array(textValue, { minLength: 1, maxLength: 4 }),
  }),
  fc
    .record({
      field: fc.constantFrom(...NUMBER_FIELDS),
      op: fc.constantFrom<FilterOp>('=', '!=', 'in'),
      values: fc.array(numberValue, { minLength: 1, maxLength: 4 }),
    })
    .map((c) => (c.op === 'in' ? c : { ...c, values: c.values.slice(0, 1) })),
);

const space = fc.constantFrom('', ' ', '  ', '\t', ' \n ');
const someSpace = fc.constantFrom(' ', '  ', '\t');

/** Prints clauses with random spacing and returns the expression and each clause's 1-based position. */
const expression = fc.array(fc.tuple(clause, space, space, someSpace, space, space), { minLength: 1, maxLength: 5 }).map((items) => {
  let text = '';
  const clauses: FilterClause[] = [];
  items.forEach(([c, before, afterField, beforeIn, afterOp, afterValue], i) => {
    if (i > 0) text += ',';
    text += before;
    clauses.push({ ...c, position: text.length + 1 });
    text += c.field;
    if (c.op === 'in') {
      // "in" needs a separator from the field name; values are separated by commas with spacing.
      text += `${beforeIn}in${afterOp}[${afterOp}${c.values.map(printValue).join(`${afterOp},${afterValue}`)}${afterValue}]`;
    } else {
      text += `${afterField}${c.op}${afterOp}${printValue(c.values[0]!)}`;
    }
    text += afterValue;
  });
  return { text, clauses };
});

describe('filter expressions (property-based)', () => {
  it('parse back to the clauses they were printed from', () => {
    fc.assert(
      fc.property(expression, ({ text, clauses }) => {
        expect(parseFilter(text)).toEqual(clauses);
      }),
      { numRuns: 500 },
    );
  });

  it('compile every generated expression, with one binding per placeholder', () => {
    fc.assert(
      fc.property(expression, ({ text }) => {
        const { where } = compileFilter(text, { fields: FIELD_MAP });
        // `??` (identifier) and `?` (value) each consume one binding, in order.
        expect((where.sql.match(/\?\??/g) ?? []).length).toBe(where.bindings.length);
      }),
      { numRuns: 300 },
    );
  });

  const validationOnly = (input: string) => {
    try {
      compileFilter(input, { fields: FIELD_MAP });
    } catch (e) {
      expect(e).toBeInstanceOf(AppError);
      expect(e).toMatchObject({ code: 'validation_error', status: 400 });
      expect((e as AppError).details).toEqual([expect.objectContaining({ location: 'query', field: 'filter' })]);
    }
  };

  it('compileFilter throws nothing but a validation_error on arbitrary strings', () => {
    fc.assert(fc.property(fc.string({ maxLength: 60 }), validationOnly), { numRuns: 2000 });
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 40 }), validationOnly), { numRuns: 500 });
  });

  it('compileFilter throws nothing but a validation_error on near-miss expressions', () => {
    const token = fc.constantFrom(
      'name',
      'score',
      'seats',
      'nope',
      'in',
      'IN',
      '=',
      '!=',
      '~',
      '!',
      '[',
      ']',
      ',',
      '"',
      '\\',
      ' ',
      '1',
      '-2.5',
      'null',
      'x y',
      '\t',
    );
    fc.assert(
      fc.property(
        fc.array(token, { maxLength: 14 }).map((t) => t.join('')),
        validationOnly,
      ),
      { numRuns: 3000 },
    );
  });
});
