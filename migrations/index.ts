/**
 * The ordered list of migrations, imported statically so the same list runs from TypeScript (tests)
 * and from the compiled build, on PostgreSQL and on embedded PGlite alike.
 */
import type { Knex } from 'knex';
import * as m001 from './20261122_001_schema';
import * as m004 from './20261123_004_webhook_delivery';

export interface Migration {
  name: string;
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

export const migrations: readonly Migration[] = [
  { name: '20261122_001_schema', ...m001 },
  { name: '20261123_004_webhook_delivery', ...m004 },
];
