import { splitSqlScript } from '../../migrations/sql-script';

describe('splitSqlScript', () => {
  it('splits statements at line-ending semicolons and keeps dollar-quoted bodies whole', () => {
    const sql = [
      'CREATE TABLE a (x int);',
      '-- a comment;',
      'CREATE FUNCTION f() RETURNS trigger LANGUAGE plpgsql AS $fn$',
      'BEGIN',
      '  RETURN NULL;',
      'END',
      '$fn$;',
      'DROP TABLE b;',
    ].join('\n');
    const parts = splitSqlScript(sql);
    expect(parts).toHaveLength(3);
    expect(parts[1]).toContain('RETURN NULL;');
    expect(parts[2]).toBe('DROP TABLE b;');
  });
});
