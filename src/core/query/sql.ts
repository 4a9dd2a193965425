import type { Knex } from 'knex';

/** A parameterised SQL fragment: `sql` uses `?` for values and `??` for identifiers (knex raw syntax). */
export interface Sql {
  sql: string;
  bindings: readonly Knex.RawBinding[];
}

export function sql(text: string, ...bindings: unknown[]): Sql {
  return { sql: text, bindings: bindings as Knex.RawBinding[] };
}

/** Joins fragments with a separator, concatenating their bindings in order. */
export function joinSql(parts: readonly Sql[], separator: string): Sql {
  return { sql: parts.map((p) => p.sql).join(separator), bindings: parts.flatMap((p) => p.bindings) };
}
