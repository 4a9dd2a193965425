/**
 * SQL scripts for the migrations, which import nothing from src/ (a migration keeps its meaning when
 * the code changes): `runSqlScript` runs a script of our own one statement at a time, since PGlite (like
 * any extended-protocol client) takes a single statement per query. Our scripts end statements with `;`
 * at the end of a line; dollar-quoted bodies (`$fn$ … $fn$`) are kept whole; they must not contain `?`
 * (knex would read it as a binding). `splitStatements` splits a foreign script (pg-boss's) anywhere.
 */
import type { Knex } from 'knex';

/** Our scripts' statements (see above). */
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

/**
 * Splits a SQL script into single statements at `;` outside quotes, comments and dollar-quoted
 * bodies. Needed because PGlite (extended protocol) runs one statement per query.
 */
export function splitStatements(sqlText: string): string[] {
  const out: string[] = [];
  let start = 0;
  let i = 0;
  const n = sqlText.length;
  while (i < n) {
    const c = sqlText[i]!;
    if (c === "'" || c === '"') {
      const end = sqlText.indexOf(c, i + 1);
      i = end < 0 ? n : end + 1;
    } else if (c === '-' && sqlText[i + 1] === '-') {
      const end = sqlText.indexOf('\n', i);
      i = end < 0 ? n : end + 1;
    } else if (c === '$') {
      const m = /^\$[A-Za-z_]*\$/.exec(sqlText.slice(i));
      if (m) {
        const end = sqlText.indexOf(m[0], i + m[0].length);
        i = end < 0 ? n : end + m[0].length;
      } else i++;
    } else if (c === ';') {
      const stmt = sqlText.slice(start, i).trim();
      if (stmt) out.push(stmt);
      start = ++i;
    } else i++;
  }
  const rest = sqlText.slice(start).trim();
  if (rest) out.push(rest);
  return out;
}

/** The options of a pg-boss 10 queue (`pgboss.create_queue`), as the migrations that create one pass them. */
export interface QueueOptions {
  retryLimit: number;
  retryDelay: number;
  expireInSeconds: number;
  /** Minutes a job never started is kept. */
  retentionMinutes: number;
}

/** Creates a pg-boss queue (`standard` policy, no retry backoff) with `options`. */
export async function createJobQueue(knex: Knex, name: string, options: QueueOptions): Promise<void> {
  const json = JSON.stringify({ policy: 'standard', retryBackoff: false, ...options });
  await knex.raw(`SELECT pgboss.create_queue('${name}', '${json}'::json)`);
}

/** Deletes a pg-boss queue and its jobs (a migration's `down`). */
export async function deleteJobQueue(knex: Knex, name: string): Promise<void> {
  await knex.raw(`SELECT pgboss.delete_queue('${name}')`);
}
