/**
 * `import FILE` (CONTRACT section 1): the CLI side of an import. Opens the file (or stdin for `-`),
 * reads it with the core's streaming reader (src/core/import/read-json.ts) and hands the document to
 * importFixture. A progress bar (bytes read, then records written) goes to stderr on request.
 */
import fs from 'node:fs';
import type { Readable } from 'node:stream';
import cliProgress from 'cli-progress';
import type { Db } from '../db';
import { importFixture, type ImportSummary } from '../core/import/importer';
import { readJsonDocument } from '../core/import/read-json';

export interface ImportFileOptions {
  /** Show progress bars on stderr (the CLI passes `process.stderr.isTTY`). */
  progress: boolean;
  /** The instant used for absent `created_at` values; default now. */
  now?: Date;
}

function megabytes(bytes: number): string {
  return (bytes / 1_048_576).toFixed(1);
}

/**
 * Imports a fixture file (`-` for stdin) in one transaction (CONTRACT sections 1 and 9).
 * With `progress`, shows on stderr a bar of bytes read (of the file size; a counter for stdin),
 * then a bar of records written.
 * @returns the import summary.
 * @throws ImportError for malformed JSON (path `$`, the parser's message) or any problem of the
 * document (nothing written); Error (with the file name) when the file cannot be read.
 */
export async function importFixtureFile(db: Db, file: string, opts: ImportFileOptions): Promise<ImportSummary> {
  let source: Readable;
  let size: number | undefined;
  if (file === '-') {
    source = process.stdin;
  } else {
    try {
      size = fs.statSync(file).size;
    } catch (e) {
      throw new Error(`cannot read "${file}": ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`);
    }
    source = fs.createReadStream(file);
  }

  let bar: cliProgress.SingleBar | undefined;
  const startBar = (format: string, total: number) => {
    bar = new cliProgress.SingleBar(
      { format, stream: process.stderr, hideCursor: true, clearOnComplete: false, etaBuffer: 50, fps: 10 },
      cliProgress.Presets.shades_classic,
    );
    bar.start(total, 0, { mb: '0.0', totalMb: size === undefined ? '?' : megabytes(size) });
  };
  const stopBar = () => {
    bar?.stop();
    bar = undefined;
  };

  try {
    if (opts.progress) {
      startBar(
        size === undefined
          ? 'Reading  {mb} MB'
          : 'Reading  [{bar}] {percentage}% | {mb}/{totalMb} MB',
        size ?? 0,
      );
    }
    const doc = await readJsonDocument(
      source,
      opts.progress ? (bytes) => bar?.update(size === undefined ? 0 : Math.min(bytes, size), { mb: megabytes(bytes) }) : undefined,
    );
    stopBar();
    let started = false;
    return await importFixture(db, doc, {
      now: opts.now,
      onProgress: opts.progress
        ? (done, total) => {
            if (!started) {
              startBar('Writing  [{bar}] {percentage}% | {value}/{total} records | {duration_formatted}', total);
              started = true;
            }
            bar?.update(done);
          }
        : undefined,
    });
  } finally {
    stopBar();
  }
}
