/**
 * The import rows of `npm run bench`: writes a fixture of N responses with bench/make-fixture.ts
 * (`node dist/bench/make-fixture.js --responses N --out FILE`), then, once per variant (a node
 * binary, its flags and environment: with and without the memory settings), times
 * `node dist/src/cli/main.js import FILE` against a fresh migrated `fs_bench_*` database, sampling the
 * import process's peak RSS (VmRSS/VmHWM every 100 ms) and the node flags it ran with. The databases
 * and the file are removed afterwards, whatever happens.
 */
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { createDb } from '../src/db/connection';
import { procNodeFlags, watchMemory } from './procs';
import { createBenchDatabase, dropBenchDatabase } from './seed';

/** One way to run the import: `node [...nodeArgs] dist/src/cli/main.js import FILE` with `env` added. */
export interface ImportVariant {
  label: string;
  node: string;
  nodeArgs: readonly string[];
  env: Record<string, string>;
}

export type ImportRun =
  | {
      measured: true;
      label: string;
      /** The node flags the import process had once running (after the CLI's own re-exec, if any). */
      flags: string[];
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
 * The same way to run the import once with sentiment (the default) and once with `SENTIMENT=off` (docs/operations.md,
 * "Sentiment"), in that order: issue 29 asks the import with sentiment to keep at least 0.9x of the rate without it.
 */
export function withAndWithoutSentiment(v: ImportVariant): [ImportVariant, ImportVariant] {
  return [v, { ...v, label: `${v.label}, SENTIMENT=off`, env: { ...v.env, SENTIMENT: 'off' } }];
}

/** Import rate with sentiment / rate without it (both measured), or undefined. */
export function sentimentRatio(withSentiment: ImportRun | undefined, without: ImportRun | undefined): number | undefined {
  return withSentiment?.measured && without?.measured ? withSentiment.rate / without.rate : undefined;
}

/**
 * Measures one import of `responses` responses per variant, in order, from one fixture file.
 * @returns one run per variant, or `[{measured: false}]` when dist/bench/make-fixture.js does not exist (not built yet)
 * @throws when make-fixture or an import exits non-zero (with the tail of its stderr), or when the
 * database holds another number of responses than asked for afterwards
 */
export async function measureImport(opts: {
  serverUrl: string;
  responses: number;
  variants: readonly ImportVariant[];
  log: (line: string) => void;
}): Promise<ImportRun[]> {
  const makeFixture = path.join(__dirname, 'make-fixture.js');
  if (!fs.existsSync(makeFixture)) return [{ measured: false, reason: 'not measured (make-fixture missing)' }];
  const file = path.join(os.tmpdir(), `fs-bench-fixture-${randomBytes(4).toString('hex')}.json`);
  try {
    opts.log(`import: writing a fixture of ${opts.responses.toLocaleString('en-US')} responses…`);
    const t = performance.now();
    await promisify(execFile)(process.execPath, [makeFixture, '--responses', String(opts.responses), '--out', file], { maxBuffer: 64 * 2 ** 20 });
    const fixture = { file, seconds: (performance.now() - t) / 1000, bytes: fs.statSync(file).size };
    opts.log(`import: ${(fixture.bytes / 1e6).toFixed(0)} MB written in ${fixture.seconds.toFixed(1)} s`);
    const runs: ImportRun[] = [];
    for (const v of opts.variants) runs.push(await importOnce(opts, v, fixture));
    return runs;
  } finally {
    fs.rmSync(file, { force: true });
  }
}

async function importOnce(
  opts: { serverUrl: string; responses: number; log: (line: string) => void },
  v: ImportVariant,
  fixture: { file: string; seconds: number; bytes: number },
): Promise<ImportRun> {
  let database: { databaseName: string; databaseUrl: string } | undefined;
  try {
    database = await createBenchDatabase(opts.serverUrl);
    opts.log(`import (${v.label}): into ${database.databaseName}…`);
    const t = performance.now();
    const child = spawn(v.node, [...v.nodeArgs, path.resolve(__dirname, '../src/cli/main.js'), 'import', fixture.file], {
      env: { ...process.env, ...v.env, DATABASE_URL: database.databaseUrl },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const memory = watchMemory(child.pid!);
    // The CLI may replace its process (same PID) with one that has the memory flags: read them once running.
    let flags: string[] = [];
    const flagWatch = setInterval(() => {
      flags = procNodeFlags(child.pid!) ?? flags;
    }, 500);
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
    clearInterval(flagWatch);
    if (code !== 0) throw new Error(`import exited with ${code}: ${stderr}`);

    const db = createDb({ databaseUrl: database.databaseUrl, dataDir: '.data', poolMax: 1 });
    const responses = await db('responses')
      .count({ n: '*' })
      .first()
      .then((r) => Number((r as { n: unknown }).n))
      .finally(() => db.destroy());
    if (responses !== opts.responses) throw new Error(`import wrote ${responses} responses, the fixture was asked for ${opts.responses}`);
    return {
      measured: true,
      label: v.label,
      flags,
      responses,
      fixtureBytes: fixture.bytes,
      fixtureSeconds: fixture.seconds,
      seconds,
      rate: responses / seconds,
      peakRssMb,
    };
  } finally {
    if (database) await dropBenchDatabase(opts.serverUrl, database.databaseName);
  }
}
