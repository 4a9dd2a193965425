/**
 * One process owns the embedded database folder (docs/operations.md, "One process per data directory"). PGlite
 * has no lock of its own: two processes writing one folder can corrupt it, and a key written behind a server's
 * back stays unknown to it until a restart. So every process that opens `FEEDBACK_DATA_DIR` holds a lock on it:
 *
 * - the lock is proper-lockfile's: the folder `feedback-service.lock` in the data directory (mkdir is atomic),
 *   its mtime refreshed every LOCK_UPDATE_MS; one not refreshed for LOCK_STALE_MS is stale and taken over;
 * - the holder writes `feedback-service.owner.json` beside it (pid, host, command), so a refusal names it;
 * - a lock whose recorded holder is a process of this host that no longer runs (killed with SIGKILL, the
 *   machine lost power) is taken over at once instead of after LOCK_STALE_MS.
 *
 * A process opens the folder several times (`demo`: once to seed, then the server): the lock is counted per
 * process and released when the last holder lets go, and on exit.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import lockfile from 'proper-lockfile';

/** A lock not refreshed for this long is stale. Long, because a big PGlite statement blocks the event loop that refreshes it. */
export const LOCK_STALE_MS = 60_000;
const LOCK_UPDATE_MS = 10_000;
const LOCK_NAME = 'feedback-service.lock';
const OWNER_NAME = 'feedback-service.owner.json';

/** Who holds a data directory, as its holder wrote it. */
interface Owner {
  pid: number;
  host: string;
  command: string;
}

/** Another process holds the data directory; the message is the one line the CLI prints. */
export class DataDirLockedError extends Error {
  constructor(dataDir: string, owner: Owner | undefined) {
    const who = owner
      ? `process ${owner.pid}${owner.host === os.hostname() ? '' : ` on ${owner.host}`} (feedback-service ${owner.command})`
      : 'another process';
    super(
      `the data directory ${dataDir} is in use by ${who}: stop it first, or let it do the work through its API (e.g. POST /api/v1/workspaces/{ws}/api-keys creates a key)`,
    );
    this.name = 'DataDirLockedError';
  }
}

const held = new Map<string, { count: number; release: () => void }>();

function readOwner(dataDir: string): Owner | undefined {
  try {
    const o = JSON.parse(fs.readFileSync(path.join(dataDir, OWNER_NAME), 'utf8')) as Partial<Owner>;
    if (typeof o.pid === 'number' && typeof o.host === 'string') return { pid: o.pid, host: o.host, command: String(o.command ?? '') };
  } catch {
    // Not written yet, or by nothing: the refusal says "another process".
  }
  return undefined;
}

/** Whether a process of this host with that pid runs (EPERM: it runs as another user). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function tryLock(dataDir: string): () => void {
  return lockfile.lockSync(dataDir, {
    lockfilePath: path.join(dataDir, LOCK_NAME),
    realpath: false,
    stale: LOCK_STALE_MS,
    update: LOCK_UPDATE_MS,
    onCompromised: (err: Error) => {
      // Someone removed or took over the lock while we still write: going on could corrupt the database.
      process.stderr.write(`error: lost the lock on the data directory ${dataDir} (${err.message}); stopping\n`);
      process.exit(1);
    },
  });
}

function acquire(dataDir: string): () => void {
  try {
    return tryLock(dataDir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ELOCKED') throw e;
    const owner = readOwner(dataDir);
    const dead = owner !== undefined && owner.host === os.hostname() && owner.pid !== process.pid && !running(owner.pid);
    if (!dead) throw new DataDirLockedError(dataDir, owner);
    // Its holder is gone without releasing it: take it over now rather than after LOCK_STALE_MS.
    fs.rmSync(path.join(dataDir, LOCK_NAME), { recursive: true, force: true });
    try {
      return tryLock(dataDir);
    } catch (again) {
      if ((again as NodeJS.ErrnoException).code === 'ELOCKED') throw new DataDirLockedError(dataDir, readOwner(dataDir));
      throw again;
    }
  }
}

/**
 * Takes the lock of an embedded data directory (absolute path; created when missing) for this process, or
 * another reference to it when this process holds it already.
 * @returns the release of this reference (idempotent); the lock itself goes when the last one is released.
 * @throws DataDirLockedError when another live process holds it; an fs error when the folder cannot be written.
 */
export function lockDataDir(dataDir: string): () => void {
  fs.mkdirSync(dataDir, { recursive: true });
  let entry = held.get(dataDir);
  if (!entry) {
    const unlock = acquire(dataDir);
    const owner: Owner = { pid: process.pid, host: os.hostname(), command: process.argv.slice(2).join(' ') };
    fs.writeFileSync(path.join(dataDir, OWNER_NAME), `${JSON.stringify(owner)}\n`);
    entry = {
      count: 0,
      release: () => {
        fs.rmSync(path.join(dataDir, OWNER_NAME), { force: true });
        unlock();
      },
    };
    held.set(dataDir, entry);
  }
  entry.count += 1;
  let released = false;
  const current = entry;
  return () => {
    if (released) return;
    released = true;
    current.count -= 1;
    if (current.count === 0 && held.get(dataDir) === current) {
      held.delete(dataDir);
      current.release();
    }
  };
}
