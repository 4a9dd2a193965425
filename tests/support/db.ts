/**
 * The run's test database, one handle per test file. Two jest projects (jest.config.js):
 * - `postgres`: the PostgreSQL database created and migrated by global-setup (TEST_DB_URL);
 * - `pglite`: an in-memory embedded database (PGlite, the same createDb code path `serve` uses without
 *   DATABASE_URL) opened and migrated per test file, so both databases must answer alike (docs/api-rules.md, "Both databases answer alike").
 */
import { createDb, migrateLatest, type Db } from '../../src/db/connection';

/** Set by tests/support/worker-environment.js (one per jest worker): here, a dump of the worker's first migrated database. */
interface WorkerShared {
  pgliteDump?: Uint8Array;
}

/** True in the `pglite` jest project (tests/support/use-pglite.ts sets it). */
export const onEmbeddedDb = () => process.env.TEST_DB_KIND === 'pglite';

export function testDbUrl(): string {
  const url = process.env.TEST_DB_URL;
  if (!url) throw new Error('TEST_DB_URL is not set: run the tests through jest (global-setup creates it).');
  return url;
}

export async function openTestDb(): Promise<Db> {
  if (onEmbeddedDb()) {
    const worker = (globalThis as { __workerShared?: WorkerShared }).__workerShared;
    const dump = worker?.pgliteDump;
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only on the embedded-database project (PGlite is large)
    const { PGlite } = require('@electric-sql/pglite') as typeof import('@electric-sql/pglite');
    const pglite = await PGlite.create({
      dataDir: 'memory://',
      // After the worker's first file: start from its migrated database instead of migrating again.
      ...(dump ? { loadDataDir: new Blob([dump]) } : {}),
    });
    const db = createDb({ databaseUrl: undefined, dataDir: 'memory://', pglite });
    await migrateLatest(db);
    if (worker && !dump) worker.pgliteDump = new Uint8Array(await (await pglite.dumpDataDir('none')).arrayBuffer());
    return db;
  }
  return createDb({ databaseUrl: testDbUrl(), dataDir: '', poolMax: 5 });
}
