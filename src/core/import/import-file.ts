/**
 * `import FILE` (CONTRACT section 1): reads a fixture document from a file or stdin with a streaming
 * JSON parser (stream-json), so a document larger than the biggest V8 string still loads, then hands
 * it to importFixture. A progress bar (bytes read, then records written) goes to stderr on request.
 */
import fs from 'node:fs';
import { pipeline, type Readable } from 'node:stream';
import cliProgress from 'cli-progress';
import type { Db } from '../../db';
import { ImportError, importFixture, type ImportSummary } from './importer';

export interface ImportFileOptions {
  /** Show progress bars on stderr (the CLI passes `process.stderr.isTTY`). */
  progress: boolean;
  /** The instant used for absent `created_at` values; default now. */
  now?: Date;
}

type Token = { name: string; value?: unknown };

/**
 * Builds a value from stream-json tokens (packed keys, strings and numbers), like JSON.parse:
 * a `__proto__` key becomes an own property, never the prototype.
 */
class TokenAssembler {
  private readonly stack: unknown[] = [];
  private current: Record<string, unknown> | unknown[] | undefined;
  private key: string | null = null;
  done = false;
  value: unknown;

  private put(v: unknown): void {
    const c = this.current;
    if (c === undefined) {
      this.value = v;
      this.done = true;
    } else if (Array.isArray(c)) {
      c.push(v);
    } else if (this.key === '__proto__') {
      Object.defineProperty(c, '__proto__', { value: v, enumerable: true, writable: true, configurable: true });
    } else {
      c[this.key!] = v;
    }
  }

  consume(t: Token): void {
    switch (t.name) {
      case 'startObject':
      case 'startArray':
        if (this.current !== undefined) this.stack.push(this.current, this.key);
        this.current = t.name === 'startObject' ? {} : [];
        this.key = null;
        break;
      case 'endObject':
      case 'endArray': {
        const finished = this.current;
        if (this.stack.length > 0) {
          this.key = this.stack.pop() as string | null;
          this.current = this.stack.pop() as Record<string, unknown> | unknown[];
        } else {
          this.current = undefined;
        }
        this.put(finished);
        break;
      }
      case 'keyValue':
        this.key = t.value as string;
        break;
      case 'stringValue':
        this.put(t.value);
        break;
      case 'numberValue':
        this.put(Number(t.value));
        break;
      case 'nullValue':
        this.put(null);
        break;
      case 'trueValue':
        this.put(true);
        break;
      case 'falseValue':
        this.put(false);
        break;
    }
  }
}

function megabytes(bytes: number): string {
  return (bytes / 1_048_576).toFixed(1);
}

/**
 * Parses one JSON document from a byte stream without holding its text in memory.
 * @param onBytes called with the running count of bytes read.
 * @throws ImportError at path `$` when the input is not one well-formed JSON value.
 */
export async function readJsonDocument(source: Readable, onBytes?: (bytes: number) => void): Promise<unknown> {
  // stream-json is an ES module: loaded on use (require(esm), Node >= 20.19) so that this CommonJS
  // module, and the Jest tests importing it, do not depend on ESM support at load time.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { parser } = require('stream-json') as typeof import('stream-json');
  const tokens = parser.asStream({ packValues: true, streamValues: false });
  const asm = new TokenAssembler();
  let bytes = 0;
  if (onBytes) {
    source.on('data', (chunk: Buffer | string) => {
      bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
      onBytes(bytes);
    });
  }
  tokens.on('data', (t: Token) => asm.consume(t));
  await new Promise<void>((resolve, reject) => {
    pipeline(source, tokens, (err) => {
      if (!err) return resolve();
      const code = (err as NodeJS.ErrnoException).code;
      // Errors of the source (a missing file, a closed pipe) are not problems of the document.
      if (typeof code === 'string' && code !== 'ERR_STREAM_PREMATURE_CLOSE') return reject(err);
      reject(new ImportError([{ path: '$', message: `malformed JSON: ${err.message}` }]));
    });
    // pipeline resolves when the parser's writable side finishes; wait for its last tokens too.
  }).then(
    () =>
      new Promise<void>((resolve) => {
        if (tokens.readableEnded) resolve();
        else tokens.once('end', resolve);
      }),
  );
  if (!asm.done) throw new ImportError([{ path: '$', message: 'malformed JSON: the input ended before a complete JSON value' }]);
  return asm.value;
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
