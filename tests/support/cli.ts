/**
 * Runs the `feedback-service` executable as a child process (`node dist/src/cli/main.js …`, the build
 * tests/support/global-setup.ts makes once per run) against the run's test database, with `input` on its stdin.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { testDbUrl } from './db';

const root = path.resolve(__dirname, '../..');

/**
 * The built executable, what `npm run build` writes and the package's `bin` names. global-setup builds it once per
 * run, so test files never build (several builds at once would write the same files) and children start in about
 * half the time `tsx` takes to compile the sources.
 */
export const cliJs = path.join(root, 'dist/src/cli/main.js');

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function cli(args: string[], input?: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliJs, ...args], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: testDbUrl(), LOG_LEVEL: 'silent' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input ?? '');
  });
}
