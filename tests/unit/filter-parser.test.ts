import { FilterSyntaxError, parseFilter } from '../../src/core/query/filter-parser';

const bare = (text: string) => ({ text, quoted: false });
const quoted = (text: string) => ({ text, quoted: true });

/** Runs the parser and returns the FilterSyntaxError it throws. */
function syntaxError(input: string): FilterSyntaxError {
  try {
    parseFilter(input);
  } catch (e) {
    if (e instanceof FilterSyntaxError) return e;
    throw e;
  }
  throw new Error(`parsed without error: ${input}`);
}

describe('parseFilter operators', () => {
  it.each([
    ['score=9', 'score', '=', [bare('9')]],
    ['score!=9', 'score', '!=', [bare('9')]],
    ['email~example', 'email', '~', [bare('example')]],
    ['form_id in [a,b,c]', 'form_id', 'in', [bare('a'), bare('b'), bare('c')]],
    ['form_id IN [a]', 'form_id', 'in', [bare('a')]],
    ['form_id in[a]', 'form_id', 'in', [bare('a')]],
  ])('parses %p', (input, field, op, values) => {
    expect(parseFilter(input)).toEqual([{ field, op, values, position: 1 }]);
  });

  it('reads a field that starts with "in" as a field, not the operator', () => {
    expect(parseFilter('index = 3')).toEqual([{ field: 'index', op: '=', values: [bare('3')], position: 1 }]);
    expect(parseFilter('in = 3')).toEqual([{ field: 'in', op: '=', values: [bare('3')], position: 1 }]);
  });

  it('accepts dotted and dashed field names', () => {
    expect(parseFilter('a.b-c = 1')[0]!.field).toBe('a.b-c');
  });

  it('keeps a bare null distinguishable from a quoted "null"', () => {
    expect(parseFilter('email_id = null, row_id = "null"').map((c) => c.values[0])).toEqual([bare('null'), quoted('null')]);
  });
});

describe('parseFilter values and whitespace', () => {
  it('trims bare values but keeps inner spaces', () => {
    expect(parseFilter('  name  =   Ada Lovelace   ')[0]!.values).toEqual([bare('Ada Lovelace')]);
  });

  it('allows space around every token', () => {
    expect(parseFilter(' a = 1 ,\tb != 2 ,\n c ~ x , d in [ 1 , 2 ] ')).toEqual([
      { field: 'a', op: '=', values: [bare('1')], position: 2 },
      { field: 'b', op: '!=', values: [bare('2')], position: 10 },
      { field: 'c', op: '~', values: [bare('x')], position: 20 },
      { field: 'd', op: 'in', values: [bare('1'), bare('2')], position: 28 },
    ]);
  });

  it('holds commas, brackets and spaces in quoted values', () => {
    expect(parseFilter('name = "Doe, John [jr] "')[0]!.values).toEqual([quoted('Doe, John [jr] ')]);
    expect(parseFilter('tag in ["a,b", "[c]", " d "]')[0]!.values).toEqual([quoted('a,b'), quoted('[c]'), quoted(' d ')]);
  });

  it('unescapes \\" and \\\\ inside quotes and keeps other backslashes', () => {
    expect(parseFilter('q = "say \\"hi\\""')[0]!.values).toEqual([quoted('say "hi"')]);
    expect(parseFilter('q = "a\\\\b"')[0]!.values).toEqual([quoted('a\\b')]);
    expect(parseFilter('q = "a\\nb"')[0]!.values).toEqual([quoted('a\\nb')]);
  });

  it('accepts an empty quoted value', () => {
    expect(parseFilter('q = ""')[0]!.values).toEqual([quoted('')]);
  });

  it('lets a bare value hold brackets outside a list', () => {
    expect(parseFilter('q = a]b[')[0]!.values).toEqual([bare('a]b[')]);
  });

  it('mixes quoted and bare values in one list', () => {
    expect(parseFilter('x in [1, "two, three", 4]')[0]!.values).toEqual([bare('1'), quoted('two, three'), bare('4')]);
  });

  it('parses several clauses in order with their positions', () => {
    const clauses = parseFilter('form_id = frm_1, score in [9, 10], respondent_email ~ "@example.com"');
    expect(clauses.map((c) => [c.field, c.op, c.values.map((v) => v.text), c.position])).toEqual([
      ['form_id', '=', ['frm_1'], 1],
      ['score', 'in', ['9', '10'], 18],
      ['respondent_email', '~', ['@example.com'], 36],
    ]);
  });
});

describe('comparisons and answer fields (docs/api-rules.md, "Filters on answers")', () => {
  it.each([
    ['answers.q_rating >= 4', 'answers.q_rating', '>=', '4'],
    ['answers.q_rating>4', 'answers.q_rating', '>', '4'],
    ['answers.q_date <= 2026-01-31', 'answers.q_date', '<=', '2026-01-31'],
    ['answers.q_num < "-1.5"', 'answers.q_num', '<', '-1.5'],
    ['answers.q-1.x != null', 'answers.q-1.x', '!=', 'null'],
    ['answers."q:1 [a], b" = opt_pro', 'answers.q:1 [a], b', '=', 'opt_pro'],
    ['answers."say \\"hi\\"" ~ x', 'answers.say "hi"', '~', 'x'],
  ])('parses %p', (input, field, op, value) => {
    const [clause] = parseFilter(input);
    expect([clause!.field, clause!.op, clause!.values[0]!.text, clause!.position]).toEqual([field, op, value, 1]);
  });

  it('reads a value starting with ">" or "=" after an operator as text', () => {
    expect(parseFilter('score >> 1')[0]).toMatchObject({ op: '>', values: [{ text: '> 1' }] });
    expect(parseFilter('a <= =1')[0]).toMatchObject({ op: '<=', values: [{ text: '=1' }] });
  });
});

describe('parseFilter errors name the token and its 1-based position', () => {
  it.each([
    ['', /empty filter expression at position 1/, 1],
    ['   ', /empty filter expression at position 1/, 1],
    ['score ^ 3', /expected an operator \(=, !=, ~, in, >=, >, <=, <\) after "score", found "\^" at position 7/, 7],
    ['answers."q_1 = 3', /unterminated quoted field name at position 9/, 9],
    ['score', /expected an operator .* found end of expression at position 6/, 6],
    ['= 3', /expected a field name, found "=" at position 1/, 1],
    ['a = 1,', /expected a field name, found end of expression at position 7/, 7],
    ['a = 1,, b = 2', /expected a field name, found "," at position 7/, 7],
    ['a =', /missing value at position 4/, 4],
    ['a = , b = 1', /missing value at position 5/, 5],
    ['a = "open', /unterminated quoted value at position 5/, 5],
    ['a = x"y', /a quote may only start a value at position 6/, 6],
    ['a = "x" y', /expected "," between filters, found "y" at position 9/, 9],
    ['a in 1', /expected "\[" after "in", found "1" at position 6/, 6],
    ['a in []', /"in" needs at least one value at position 7/, 7],
    ['a in [1, 2', /expected "," or "\]" in the value list, found end of expression at position 11/, 11],
    ['a in [1 2', /expected "," or "\]" in the value list, found end of expression at position 10/, 10],
    ['a in ["x" y]', /expected "," or "\]" in the value list, found "y\]" at position 11/, 11],
    ['a in [1,]', /missing value at position 9/, 9],
  ])('rejects %p', (input, message, position) => {
    const e = syntaxError(input);
    expect(e.message).toMatch(message);
    expect(e.position).toBe(position);
  });
});
