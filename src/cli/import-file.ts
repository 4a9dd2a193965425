/**
 * `import FILE` (docs/import.md, "Running an import"): the CLI side of an import. Opens the file (stdin for `-`, first
 * spooled to a temporary file, since the importer reads the document more than once) as a JSON source
 * for the core's importer, and draws the progress bar (records written and rows per second) on stderr
 * on request.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import cliProgress from 'cli-progress';
import type { Db } from '../db';
import { importFixtureSource, type ImportSummary } from '../core/import/importer';
import { jsonSource } from '../core/import/json-scanner';

export interface ImportFileOptions {
  /** Show a progress bar on stderr (the CLI passes `process.stderr.isTTY`). */
  progress: boolean;
  /** The instant used for absent `created_at` values; default now. */
  now?: Date;
}

/** Bytes per read: large chunks keep the scanner's per-chunk work small. */
const READ_CHUNK = 1 << 20;

/** Copies stdin to a new temporary file. @returns its path and a function that removes it. */
async function spoolStdin(): Promise<{ file: string; remove: () => void }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'feedback-import-'));
  const remove = () => fs.rmSync(dir, { recursive: true, force: true });
  const file = path.join(dir, 'stdin.json');
  try {
    await pipeline(process.stdin, fs.createWriteStream(file));
  } catch (e) {
    remove();
    throw e;
  }
  return { file, remove };
}

/**
 * A progress callback drawing `Importing [bar] n/total records | rows/s` on stderr, then, while the
 * staged rows are moved into their tables (one long statement), a line saying so.
 */
function progressBar(): { onProgress: (done: number, total: number, phase?: 'staging' | 'moving') => void; stop: () => void } {
  const bar = new cliProgress.SingleBar(
    {
      format: '{phase} [{bar}] {percentage}% | {value}/{total} records | {rate} rows/s | {duration_formatted}',
      stream: process.stderr,
      hideCursor: true,
      clearOnComplete: false,
      fps: 10,
    },
    cliProgress.Presets.shades_classic,
  );
  let started: number | undefined;
  return {
    onProgress: (done, total, phase) => {
      if (started === undefined) {
        started = Date.now();
        bar.start(total, done, { rate: 0, phase: 'Importing' });
      }
      const seconds = (Date.now() - started) / 1000;
      const rate = seconds > 0 ? Math.round(done / seconds) : 0;
      // The last step is one statement with no progress of its own: say what it is waiting for.
      bar.update(done, phase === 'moving' ? { rate, phase: 'Indexing and counting staged rows (one statement) …' } : { rate });
    },
    stop: () => {
      if (started !== undefined) bar.stop();
    },
  };
}

/**
 * Imports a fixture file (`-` for stdin) in one transaction (docs/import.md, "Running an import").
 * @returns the import summary.
 * @throws ImportError for malformed JSON (path `$`) or any problem of the document (nothing written);
 * Error (with the file name) when the file cannot be read.
 */
export async function importFixtureFile(db: Db, file: string, opts: ImportFileOptions): Promise<ImportSummary> {
  let spooled: { file: string; remove: () => void } | undefined;
  if (file === '-') {
    spooled = await spoolStdin();
  } else {
    try {
      fs.accessSync(file, fs.constants.R_OK);
    } catch (e) {
      throw new Error(`cannot read "${file}": ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`, { cause: e });
    }
  }
  const source = jsonSource(() => fs.createReadStream(spooled?.file ?? file, { highWaterMark: READ_CHUNK }));
  const bar = opts.progress ? progressBar() : undefined;
  try {
    return await importFixtureSource(db, source, { now: opts.now, onProgress: bar?.onProgress });
  } finally {
    bar?.stop();
    spooled?.remove();
  }
}
