/**
 * Where `npm run demo` keeps its key between restarts (README.md, "Quickstart"): `demo-key.json` in
 * FEEDBACK_DATA_DIR, readable by its owner only (mode 0600), holding the secret and the key's id. A restart
 * offers it to createDemoKey, which reuses the key only while it is a usable demo key of this database.
 */
import fs from 'node:fs';
import path from 'node:path';

export const DEMO_KEY_FILE = 'demo-key.json';

/** The kept demo key of `dataDir`, or undefined when there is none (or it cannot be read). */
export function readDemoKey(dataDir: string): { id: string; secret: string } | undefined {
  try {
    const kept = JSON.parse(fs.readFileSync(path.join(dataDir, DEMO_KEY_FILE), 'utf8')) as { id?: unknown; secret?: unknown };
    if (typeof kept.id === 'string' && typeof kept.secret === 'string') return { id: kept.id, secret: kept.secret };
  } catch {
    // No file yet, or not ours: a new key is minted and written.
  }
  return undefined;
}

/** Keeps the demo key in `dataDir` (created when missing), mode 0600 even when the file was there before. */
export function writeDemoKey(dataDir: string, key: { id: string; secret: string }): void {
  fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, DEMO_KEY_FILE);
  fs.writeFileSync(file, `${JSON.stringify({ id: key.id, secret: key.secret })}\n`, { mode: 0o600 });
  fs.chmodSync(file, 0o600);
}
