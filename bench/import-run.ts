/**
 * The import row of `npm run bench`: writes a fixture of N responses with bench/make-fixture.ts
 * (`node dist/bench/make-fixture.js --responses N --out FILE`), then times
 * `node dist/src/cli.js import FILE` against a fresh migrated `fs_bench_*` database, sampling the
 * import process's peak RSS (VmRSS/VmHWM every 100 ms). The database and the file are removed
 * afterwards, whatever happens.
 */
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { createDb } from '../src/platform/db/connection';
import { watchMemory } from './procs';
import { createBenchDatabase, dropBenchDatabase } from './seed';

export type ImportRun =
  | {
      measured: true;
      /** Responses in the database after the import (counted, not taken from the summary). */
      responses: number;
      fixtureBytes: number;
      /** Wall time of writing the fixture (not part of the target). */
      fixtureSeconds: number;
      /** Wall time of the import process, from spawn to exit (start-up and migration check included). */
      seconds: number;
      /** responses / seconds. */
      rate: number;
      /** Peak RSS of the import process in MB. */
      peakRssMb: number;
    }
  | { measured: false; reason: string };

/**
 * Measures one import of `responses` responses.
 * @returns `{measured: false}` when dist/bench/make-fixture.js does not exist (not built yet)
 * @throws when make-fixture or the import exits non-zero (with the tail of its stderr), or when the
 * database holds another number of responses than asked for afterwards
 */
export async function measureImport(opts: { serverUrl: string; responses: number; log: (line: string) => void }): Promise<ImportRun> {
  const makeFixture = path.join(__dirname, 'make-fixture.js');
  if (!fs.existsSync(makeFixture)) return { measured: false, reason: 'not measured (make-fixture missing)' };
  const file = path.join(os.tmpdir(), `fs-bench-fixture-${randomBytes(4).toString('hex')}.json`);
  let database: { databaseName: string; databaseUrl: string } | undefined;
  try {
    opts.log(`import: writing a fixture of ${opts.responses.toLocaleString('en-US')} responses…`);
    let t = performance.now();
    await promisify(execFile)(process.execPath, [makeFixture, '--responses', String(opts.responses), '--out', file], { maxBuffer: 64 * 2 ** 20 });
    const fixtureSeconds = (performance.now() - t) / 1000;
    const fixtureBytes = fs.statSync(file).size;
    database = await createBenchDatabase(opts.serverUrl);
    opts.log(`import: ${(fixtureBytes / 1e6).toFixed(0)} MB written in ${fixtureSeconds.toFixed(1)} s; importing into ${database.databaseName}…`);

    t = performance.now();
    const child = spawn(process.execPath, [path.resolve(__dirname, '../src/cli.js'), 'import', file], {
      env: { ...process.env, DATABASE_URL: database.databaseUrl },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const memory = watchMemory(child.pid!);
    let stderr = '';
    child.stderr!.on('data', (c: Buffer) => {
      stderr = (stderr + c.toString('utf8')).slice(-4000);
    });
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', resolve);
    });
    const seconds = (performance.now() - t) / 1000;
    const peakRssMb = memory.stop();
    if (code !== 0) throw new Error(`import exited with ${code}: ${stderr}`);

    const db = createDb({ databaseUrl: database.databaseUrl, dataDir: '.data', poolMax: 1 });
    const responses = await db('responses')
      .count({ n: '*' })
      .first()
      .then((r) => Number((r as { n: unknown }).n))
      .finally(() => db.destroy());
    if (responses !== opts.responses) throw new Error(`import wrote ${responses} responses, the fixture was asked for ${opts.responses}`);
    return { measured: true, responses, fixtureBytes, fixtureSeconds, seconds, rate: responses / seconds, peakRssMb };
  } finally {
    fs.rmSync(file, { force: true });
    if (database) await dropBenchDatabase(opts.serverUrl, database.databaseName);
  }
}
