/**
 * Once per test run: find PostgreSQL and Redis, create a fresh database with a random name, migrate it.
 * Workers read TEST_DB_URL and TEST_REDIS_URL; isolation inside the database is a fresh workspace per test.
 */
import { randomBytes } from 'node:crypto';
import knex from 'knex';
import { createDb, migrateLatest } from '../../src/db/connection';
import { databaseUrl, findServices } from './services';

export default async function globalSetup(): Promise<void> {
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
