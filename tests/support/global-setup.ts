/**
 * Once per test run: build the executable (`npm run build`, dist/: tests/support/cli.ts cliJs), find PostgreSQL and
 * Redis, create a fresh database with a random name, migrate it.
 * Workers read TEST_DB_URL and TEST_REDIS_URL; isolation inside the database is a fresh workspace per test.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import knex from 'knex';
import { createDb, migrateLatest } from '../../src/db/connection';
import { databaseUrl, findServices } from './services';

export default async function globalSetup(): Promise<void> {
  // Incremental (tsc -b): a few seconds from a fresh clone, well under one when nothing changed.
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: path.resolve(__dirname, '../..'), stdio: 'inherit' });
  const services = await findServices();
  const name = `fs_test_${randomBytes(6).toString('hex')}`;
  const admin = knex({ client: 'pg', connection: services.postgresAdminUrl, pool: { min: 0, max: 1 } });
  try {
    await admin.raw('CREATE DATABASE ??', [name]);
  } finally {
    await admin.destroy();
  }
  const url = databaseUrl(services.postgresAdminUrl, name);
  const db = createDb({ databaseUrl: url, dataDir: '' });
  try {
    await migrateLatest(db);
  } finally {
    await db.destroy();
  }
  process.env.TEST_DB_URL = url;
  process.env.TEST_DB_NAME = name;
  process.env.TEST_PG_ADMIN_URL = services.postgresAdminUrl;
  process.env.TEST_REDIS_URL = services.redisUrl;
  (globalThis as Record<string, unknown>).__feedbackServices = services;
}
