/**
 * Migration 021 fills the keyword rollups of the responses that exist before it (docs/analytics.md, "Keywords"): on a
 * database of its own (PostgreSQL: a new database; PGlite: the file's own in-memory one), responses are stored, both
 * rollups emptied, and the migration's `up` run again: its backfill gives the same rows the triggers gave.
 */
import { randomBytes } from 'node:crypto';
import knex from 'knex';
import * as m021 from '../../../migrations/20261127_021_keywords';
import { importFixture } from '../../../src/core/import/importer';
import { createDb, migrateLatest, type Db } from '../../../src/db/connection';
import { onEmbeddedDb, openTestDb, testDbUrl } from '../../support/db';
import { databaseUrl } from '../../support/services';
import { everyTypeForm, uid, workspaceWithKey } from '../../support/given';

let db: Db;
let drop: () => Promise<void> = async () => {};

beforeAll(async () => {
  if (onEmbeddedDb()) {
    db = await openTestDb();
    drop = () => db.destroy();
    return;
  }
  const name = `fs_kwbackfill_${randomBytes(6).toString('hex')}`;
  const admin = knex({ client: 'pg', connection: testDbUrl(), pool: { min: 0, max: 1 } });
  await admin.raw('CREATE DATABASE ??', [name]);
  db = createDb({ databaseUrl: databaseUrl(testDbUrl(), name), dataDir: '', poolMax: 2 });
  await migrateLatest(db);
  drop = async () => {
    await db.destroy();
    await admin.raw('DROP DATABASE IF EXISTS ??', [name]);
    await admin.destroy();
  };
});

afterAll(() => drop());

const rollupRows = async (table: string, period: string) =>
  (
    (await db(table)
      .select(
        db.raw(
          `workspace_id || '|' || form_id || '|' || ${period}::text || '|' || question_id || '|' || term || '|' || answers || '|' || scored || '|' || sentiment_sum::text AS r`,
        ),
      )
      .where('answers', '<>', 0)) as Array<{
      r: string;
    }>
  )
    .map((x) => x.r)
    .sort();

it("the migration's backfill gives the rows the triggers kept", async () => {
  const { ws } = await workspaceWithKey(db);
  const form = uid('frm');
  const texts = ['The price is too high', 'Fast delivery, great support', 'Die Preise sind zu hoch', 'slow support'];
  await importFixture(db, {
    forms: [everyTypeForm(ws, form)],
    responses: texts.map((text, i) => ({
      id: uid('rsp'),
      form_id: form,
      score: 5,
      language: i === 2 ? 'de' : 'en',
      created_at: new Date(Date.UTC(2026, i, 3 + i, 10)).toISOString(),
      answers: [
        { question_id: 'q_plan', value: { id: 'opt_pro' } },
        { question_id: 'q_text', value: text },
      ],
    })) as never,
  });
  const daily = await rollupRows('keyword_rollups', 'day');
  const monthly = await rollupRows('keyword_rollups_monthly', 'month');
  expect(daily.length).toBeGreaterThan(10);
  expect(monthly.length).toBe(daily.length);
  await db('keyword_rollups').delete();
  await db('keyword_rollups_monthly').delete();
  await m021.up(db);
  expect(await rollupRows('keyword_rollups', 'day')).toEqual(daily);
  expect(await rollupRows('keyword_rollups_monthly', 'month')).toEqual(monthly);
});
