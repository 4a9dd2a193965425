/** Drops the run's database (and stops any containers the setup started). */
import knex from 'knex';
import type { Services } from './services';

export default async function globalTeardown(): Promise<void> {
  const name = process.env.TEST_DB_NAME;
  const adminUrl = process.env.TEST_PG_ADMIN_URL;
  if (name && adminUrl) {
    const admin = knex({ client: 'pg', connection: adminUrl, pool: { min: 0, max: 1 } });
    try {
      await admin.raw('DROP DATABASE IF EXISTS ?? WITH (FORCE)', [name]);
    } finally {
      await admin.destroy();
    }
  }
  const services = (globalThis as Record<string, unknown>).__feedbackServices as Services | undefined;
  await services?.stop();
}
