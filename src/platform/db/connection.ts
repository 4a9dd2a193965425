/**
 * One knex instance for the whole process, on PostgreSQL (`DATABASE_URL`) or on the embedded PGlite
 * database persisted in `FEEDBACK_DATA_DIR` (CONTRACT section 1). Queries are the same on both.
 */
import fs from 'node:fs';
import knex, { type Knex } from 'knex';
import pg from 'pg';
import { migrations } from '../../../migrations';

// int8 (counts, sums) as JS numbers: our counts stay far below 2^53.
pg.types.setTypeParser(20, (v: string) => Number(v));

import type { Db } from '../../db';

// Db and withTransaction live in src/db (below the core); re-exported for existing imports.
export { type Db, withTransaction } from '../../db';

export interface DbOptions {
  databaseUrl: string | undefined;
  dataDir: string;
  /** Pool size on PostgreSQL (PGlite is always one connection). */
  poolMax?: number;
  /** An already open PGlite instance to use instead of opening `dataDir` (tests). */
  pglite?: unknown;
}

/** Opens the database. With no URL, creates `dataDir` and opens PGlite in it. */
export function createDb(opts: DbOptions): Db {
  if (opts.databaseUrl) {
    return knex({
      client: 'pg',
      connection: { connectionString: opts.databaseUrl },
      pool: { min: 0, max: opts.poolMax ?? 10 },
    });
  }
  // `memory://` opens an in-memory database (the tests' embedded project).
  if (!opts.dataDir.startsWith('memory://')) fs.mkdirSync(opts.dataDir, { recursive: true });
  // knex-pglite is a CommonJS module whose export is the client class itself.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const ClientPGlite = require('knex-pglite') as typeof knex.Client;
  const connection = opts.pglite ? { pglite: opts.pglite } : { filename: opts.dataDir };
  return knex({ client: ClientPGlite, connection: connection as Knex.StaticConnectionConfig });
}

/** True when this knex instance runs on embedded PGlite. */
export function isEmbedded(db: Db): boolean {
  return db.client.config.client !== 'pg';
}

const migrationSource: Knex.MigrationSource<(typeof migrations)[number]> = {
  getMigrations: async () => [...migrations],
  getMigrationName: (m) => m.name,
  getMigration: async (m) => m,
};

/** Applies pending migrations; returns the names applied (empty when up to date). */
export async function migrateLatest(db: Db): Promise<string[]> {
  const [, applied] = (await db.migrate.latest({ migrationSource })) as [number, string[]];
  return applied;
}
