/**
 * The database errors that become 503 service_unavailable (docs/operations.md, "Outages"), produced for real:
 * a connection cut mid-query, a backend terminated by the server (57P01 as on a restart), a statement
 * timeout, a refused connection, a full pool; and the errors that must stay what they are.
 */
import knex from 'knex';
import { createDb, type Db } from '../../../src/db/connection';
import { isDatabaseUnavailable } from '../../../src/platform/error-handler';
import { openTestDb, testDbUrl } from '../../support/db';
import { freePort, TcpProxy, urlOnPort } from './helpers';

let db: Db;
beforeAll(async () => {
  db = await openTestDb();
});
afterAll(async () => {
  await db.destroy();
});

const failure = async (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    () => new Error('did not fail'),
    (e: unknown) => e,
  );

it('a connection cut while a query runs', async () => {
  const target = new URL(testDbUrl());
  const proxy = new TcpProxy(await freePort(), { host: target.hostname, port: Number(target.port || 5432) });
  await proxy.start();
  const viaProxy = createDb({ databaseUrl: urlOnPort(testDbUrl(), proxy.port), dataDir: '', requestTimeouts: true });
  try {
    await viaProxy.raw('select 1');
    const running = failure(viaProxy.raw('select pg_sleep(5)'));
    await new Promise((r) => setTimeout(r, 200));
    await proxy.stop();
    expect(isDatabaseUnavailable(await running)).toBe(true);
    expect(isDatabaseUnavailable(await failure(viaProxy.raw('select 1')))).toBe(true);
  } finally {
    await viaProxy.destroy();
    await proxy.stop();
  }
});

it('a backend terminated by the server (57P01, as when PostgreSQL restarts)', async () => {
  const victim = createDb({ databaseUrl: testDbUrl(), dataDir: '', poolMax: 1, requestTimeouts: true });
  try {
    const { rows } = (await victim.raw('select pg_backend_pid() as pid')) as { rows: Array<{ pid: number }> };
    const running = failure(victim.raw('select pg_sleep(5)'));
    await new Promise((r) => setTimeout(r, 200));
    await db.raw('select pg_terminate_backend(?)', [rows[0]!.pid]);
    const err = (await running) as { code?: string };
    expect(err.code).toBe('57P01');
    expect(isDatabaseUnavailable(err)).toBe(true);
    // The pool replaces the dead connection by itself (a request racing the socket's end may still get a 503).
    let after = await failure(victim.raw('select 1 as one'));
    if (after instanceof Error && after.message !== 'did not fail') {
      expect(isDatabaseUnavailable(after)).toBe(true);
      after = await failure(victim.raw('select 1 as one'));
    }
    expect((after as Error).message).toBe('did not fail');
  } finally {
    await victim.destroy();
  }
});

it('a statement timeout (57014), a refused connection and a full pool', async () => {
  const timeout = await failure(
    db.transaction(async (trx) => {
      await trx.raw('set local statement_timeout = 50');
      await trx.raw('select pg_sleep(1)');
    }),
  );
  expect((timeout as { code?: string }).code).toBe('57014');
  expect(isDatabaseUnavailable(timeout)).toBe(true);

  const refused = createDb({ databaseUrl: urlOnPort(testDbUrl(), await freePort()), dataDir: '', requestTimeouts: true });
  try {
    expect(isDatabaseUnavailable(await failure(refused.raw('select 1')))).toBe(true);
  } finally {
    await refused.destroy();
  }

  const quiet = { warn: () => undefined };
  const tiny = knex({ client: 'pg', connection: testDbUrl(), pool: { min: 0, max: 1 }, acquireConnectionTimeout: 100, log: quiet });
  try {
    // The pool's one connection is opened first: opening it on a busy machine can take longer than the 100 ms,
    // so a timed-out first try is tried again (the pool goes on opening the connection meanwhile).
    for (let tries = 1; ; tries++) {
      const opened = await failure(tiny.raw('select 1'));
      if ((opened as Error).message === 'did not fail') break;
      if ((opened as Error).name !== 'KnexTimeoutError' || tries === 50) throw opened;
    }
    const held = tiny.raw('select pg_sleep(0.5)').then(() => undefined); // then() runs it now
    const full = await failure(tiny.raw('select 1'));
    expect((full as Error).name).toBe('KnexTimeoutError');
    expect(isDatabaseUnavailable(full)).toBe(true);
    await held;
  } finally {
    await tiny.destroy();
  }
});

it('leaves other errors alone (a unique violation, a syntax error, a plain bug)', async () => {
  expect(isDatabaseUnavailable(await failure(db.raw('select from nowhere_at_all')))).toBe(false);
  expect(isDatabaseUnavailable({ code: '23505', message: 'duplicate key value violates unique constraint' })).toBe(false);
  expect(isDatabaseUnavailable(new TypeError("Cannot read properties of undefined (reading 'id')"))).toBe(false);
  expect(isDatabaseUnavailable(undefined)).toBe(false);
});

it('serving connections carry the 10 s statement_timeout; batch connections (migrate, import, seed) none', async () => {
  const serving = createDb({ databaseUrl: testDbUrl(), dataDir: '', requestTimeouts: true });
  try {
    const show = async (d: Db) => ((await d.raw('show statement_timeout')) as { rows: Array<{ statement_timeout: string }> }).rows[0]!.statement_timeout;
    expect(await show(serving)).toBe('10s');
    expect(await show(db)).toBe('0');
  } finally {
    await serving.destroy();
  }
});
