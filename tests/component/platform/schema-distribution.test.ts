/**
 * The schema stays distributable by workspace (docs/operations.md, running PostgreSQL as Citus): in
 * every tenant table (a table of the public schema with a `workspace_id` column) the primary key,
 * every unique index and every foreign key to another tenant table include `workspace_id`.
 * Read from the catalog of the migrated test database, so a new migration that breaks the rule fails here.
 */
import { openTestDb } from '../../support/db';

let db: Awaited<ReturnType<typeof openTestDb>>;
beforeAll(async () => {
  db = await openTestDb();
});
afterAll(async () => {
  await db.destroy();
});

async function tenantTables(): Promise<string[]> {
  const { rows } = (await db.raw(
    `SELECT c.table_name
       FROM information_schema.columns c
       JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
      WHERE c.table_schema = 'public' AND c.column_name = 'workspace_id' AND t.table_type = 'BASE TABLE'
      ORDER BY 1`,
  )) as { rows: Array<{ table_name: string }> };
  return rows.map((r) => r.table_name);
}

describe('the schema is distributable by workspace_id', () => {
  it('has tenant tables to check', async () => {
    expect(await tenantTables()).toEqual(expect.arrayContaining(['responses', 'datatable_rows', 'email_events', 'forms']));
  });

  it('leads with workspace_id in every primary key and unique index of a tenant table', async () => {
    const tables = await tenantTables();
    const { rows } = (await db.raw(
      `SELECT t.relname AS table_name, i.relname AS index_name,
              ARRAY(SELECT a.attname FROM unnest(x.indkey) k JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k) AS columns
         FROM pg_index x
         JOIN pg_class i ON i.oid = x.indexrelid
         JOIN pg_class t ON t.oid = x.indrelid
         JOIN pg_namespace n ON n.oid = t.relnamespace
        WHERE n.nspname = 'public' AND x.indisunique AND t.relname = ANY(?)`,
      [tables],
    )) as { rows: Array<{ table_name: string; index_name: string; columns: string[] }> };
    expect(rows.length).toBeGreaterThanOrEqual(tables.length);
    const offenders = rows.filter((r) => !r.columns.includes('workspace_id')).map((r) => `${r.table_name}.${r.index_name}`);
    expect(offenders).toEqual([]);
  });

  it('includes workspace_id in every foreign key between tenant tables', async () => {
    const tables = await tenantTables();
    const { rows } = (await db.raw(
      `SELECT src.relname AS table_name, con.conname AS name, dst.relname AS target,
              ARRAY(SELECT a.attname FROM unnest(con.conkey) k JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k) AS columns
         FROM pg_constraint con
         JOIN pg_class src ON src.oid = con.conrelid
         JOIN pg_class dst ON dst.oid = con.confrelid
         JOIN pg_namespace n ON n.oid = src.relnamespace
        WHERE n.nspname = 'public' AND con.contype = 'f' AND src.relname = ANY(?) AND dst.relname = ANY(?)`,
      [tables, tables],
    )) as { rows: Array<{ table_name: string; name: string; target: string; columns: string[] }> };
    expect(rows.length).toBeGreaterThan(0);
    const offenders = rows.filter((r) => !r.columns.includes('workspace_id')).map((r) => `${r.table_name}.${r.name} → ${r.target}`);
    expect(offenders).toEqual([]);
  });
});
