/**
 * The fields a list can sort and filter on: API name → SQL expression and type. Every list has a
 * whitelist of these; user input only ever selects from it, never reaches SQL text.
 */
import type { Sql } from './sql';

export type FieldType = 'text' | 'number' | 'boolean' | 'timestamp';

export interface ListField {
  /** Canonical API name (snake_case), e.g. `created_at`, or a datatable column name. */
  name: string;
  expr: Sql;
  type: FieldType;
  /** Whether the expression can be NULL (keyset conditions then treat NULL as "after everything"). */
  nullable: boolean;
  /**
   * Text fields with a closed set of values (the responses' `sentiment` labels): a filter value outside it is a 400
   * naming the values, and `~` (contains) does not apply.
   */
  values?: readonly string[];
}

export type SortDirection = 'asc' | 'desc';

export interface SortKey {
  field: ListField;
  dir: SortDirection;
}

/** camelCase → snake_case (`createdAt` → `created_at`): both spellings are accepted (docs/api-rules.md, "Sorting"). */
export function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** snake_case → camelCase (`created_at` → `createdAt`): the Style B spelling of a Style A name (docs/api-rules.md, "Sorting"). */
export function camelCase(name: string): string {
  return name.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
}

/** Finds a field by exact name, then by its snake_case spelling. */
export function lookupField(fields: ReadonlyMap<string, ListField>, name: string): ListField | undefined {
  return fields.get(name) ?? fields.get(snakeCase(name));
}

export function fieldMap(fields: readonly ListField[]): ReadonlyMap<string, ListField> {
  return new Map(fields.map((f) => [f.name, f]));
}
