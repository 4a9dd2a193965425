/**
 * The lock file guard .ci/run runs before `npm ci` (tools/check-lockfile.js; docs/development.md,
 * "The lock file"): a lock entry without `version` or `integrity` fails with the entry's name.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const script = path.join(__dirname, '..', '..', 'tools', 'check-lockfile.js');
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a CommonJS script of tools/, without types
const { lockProblems } = require(script) as { lockProblems: (lock: unknown) => string[] };

const complete = {
  lockfileVersion: 3,
  packages: {
    '': { name: 'x', version: '1.0.0' },
    'node_modules/a': { version: '1.2.3', integrity: 'sha512-aaa' },
    'node_modules/b': { version: '2.0.0', resolved: 'git+ssh://git@example.invalid/b.git#0123abc' },
    'node_modules/c': { resolved: 'packages/c', link: true },
  },
};

function runGuard(lock: unknown): { status: number | null; stderr: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lock-'));
  try {
    const file = path.join(dir, 'package-lock.json');
    fs.writeFileSync(file, JSON.stringify(lock));
    const run = spawnSync(process.execPath, [script, file], { encoding: 'utf8' });
    return { status: run.status, stderr: run.stderr };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe('lock file guard', () => {
  it('passes a complete lock and the repository lock', () => {
    expect(lockProblems(complete)).toEqual([]);
    expect(lockProblems(JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'package-lock.json'), 'utf8')))).toEqual([]);
  });

  it('fails, naming the entry, on an entry with no version (the optional binding npm 11.19 refused)', () => {
    const planted = structuredClone(complete) as { packages: Record<string, object> };
    planted.packages['node_modules/x/node_modules/@unrs/resolver-binding-win32-x64-msvc'] = { dev: true, optional: true };
    const run = runGuard(planted);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('lock: node_modules/x/node_modules/@unrs/resolver-binding-win32-x64-msvc: no "version"');
  });

  it('names an entry with no integrity and a resolved address that is not https', () => {
    expect(
      lockProblems({
        packages: {
          'node_modules/d': { version: '1.0.0' },
          'node_modules/e': { version: '1.0.0', integrity: 'sha512-e', resolved: 'http://example.invalid/e-1.0.0.tgz' },
        },
      }),
    ).toEqual(['node_modules/d: no "integrity"', 'node_modules/e: "resolved" is not https, git or file: http://example.invalid/e-1.0.0.tgz']);
  });
});
