/**
 * Runs a script of SQL statements one by one: PGlite (like any extended-protocol client) takes a
 * single statement per query. Statements end with `;` at the end of a line; dollar-quoted bodies
 * (`$fn$ … $fn$`) are kept whole. Scripts must not contain `?` (knex would read it as a binding).
 */
import type { Knex } from 'knex';

export function splitSqlScript(sql: string): string[] {
  const statements: string[] = [];
  let current: string[] = [];
  let inBody = false;
  for (const line of sql.split('\n')) {
    current.push(line);
    if ((line.match(/\$fn\$/g) ?? []).length % 2 === 1) inBody = !inBody;
    if (!inBody && /;\s*$/.test(line)) {
      const stmt = current.join('\n').trim();
      if (stmt.replace(/--.*$/gm, '').trim()) statements.push(stmt);
      current = [];
    }
  }
  const rest = current.join('\n').replace(/--.*$/gm, '').trim();
  if (rest) statements.push(rest);
  return statements;
}

export async function runSqlScript(knex: Knex, sql: string): Promise<void> {
  for (const stmt of splitSqlScript(sql)) await knex.raw(stmt);
}
