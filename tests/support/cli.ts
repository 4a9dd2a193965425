/**
 * Runs the `feedback-service` executable as a child process (`npx tsx src/cli/main.ts …`) against the run's
 * test database, with `input` on its stdin.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { testDbUrl } from './db';

const root = path.resolve(__dirname, '../..');

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function cli(args: string[], input?: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn('npx', ['tsx', 'src/cli/main.ts', ...args], {
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
