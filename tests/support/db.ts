/** The run's test database (created and migrated by global-setup), one knex pool per test file. */
import { createDb, type Db } from '../../src/platform/db/connection';

export function testDbUrl(): string {
  const url = process.env.TEST_DB_URL;
  if (!url) throw new Error('TEST_DB_URL is not set: run the tests through jest (global-setup creates it).');
  return url;
}

export function openTestDb(): Db {
  return createDb({ databaseUrl: testDbUrl(), dataDir: '', poolMax: 5 });
}
