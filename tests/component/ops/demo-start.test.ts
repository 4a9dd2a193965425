/**
 * A newcomer's first minutes with `npm run demo` (README.md, "Quickstart"), through the built CLI on an embedded
 * folder of its own: the demo key has its own limit of 600 requests per minute and the banner says so; the
 * banner comes after the start-up log lines, whole; a restart reuses the kept key (demo-key.json, mode 0600)
 * instead of minting another; and `npm run build` does not recompile when nothing changed.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { cliJs } from '../../support/cli';
import { freePort, until } from './helpers';

jest.setTimeout(240_000);

const root = path.resolve(__dirname, '../../..');
const build = () => promisify(execFile)('npm', ['run', 'build', '--silent'], { cwd: root });
let dir: string;
const children: ChildProcess[] = [];

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fs-demo-'));
});

afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Runs `demo` until its banner is out; returns what it printed and the key of the banner, then stops it. */
async function demo(port: number): Promise<{ stdout: string; key: string; ws: string; limit: string | null; keys: string[] }> {
  const child = spawn(process.execPath, [cliJs, 'demo'], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', FEEDBACK_DATA_DIR: path.join(dir, 'data'), PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  const exit = new Promise<number | null>((resolve) => child.on('close', resolve));
  await until(async () => stdout.includes('Press Ctrl+C to stop.') || child.exitCode !== null, 180_000);
  const [, key, ws] = /^ {2}API key {7}(fa_[\w-]+) .*\n.*\n {2}workspace id {2}(ws_\w+)/m.exec(stdout)!;
  const answer = await fetch(`http://127.0.0.1:${port}/api/v1/workspaces/${ws}/api-keys`, { headers: { 'X-API-Key': key!, 'X-API-Style': 'A' } });
  const body = (await answer.json()) as { data: Array<{ name: string; id: string }> };
  child.kill('SIGTERM');
  expect(await exit).toBe(0);
  return { stdout, key: key!, ws: ws!, limit: answer.headers.get('X-RateLimit-Limit'), keys: body.data.filter((k) => k.name === 'demo').map((k) => k.id) };
}

it('gives the demo key 600 requests a minute, prints the banner whole after the logs, and reuses the key on a restart', async () => {
  const first = await demo(await freePort());
  expect(first.limit).toBe('600');
  expect(first.stdout).toMatch(/^ {2}rate limit {4}600 requests per minute for this key \(other keys: RATE_LIMIT_PER_MINUTE, 60\)$/m);
  expect(first.stdout).toContain(`(new; kept in ${path.join(dir, 'data', 'demo-key.json')} for the next start)`);
  // The banner is one block after every start-up log line: from its first line to its last, no JSON line.
  const lines = first.stdout.split('\n');
  const top = lines.findIndex((l) => l.startsWith('feedback-service demo'));
  const bottom = lines.indexOf('Press Ctrl+C to stop.');
  expect(lines.slice(top, bottom).filter((l) => l.startsWith('{'))).toEqual([]);
  expect(lines.findIndex((l) => l.includes('"msg":"feedback-service listening"'))).toBeLessThan(top);
  expect(fs.statSync(path.join(dir, 'data', 'demo-key.json')).mode & 0o777).toBe(0o600);
  expect(first.keys).toHaveLength(1);

  const second = await demo(await freePort());
  expect(second.key).toBe(first.key);
  expect(second.stdout).toContain('(the same as last time; kept in');
  expect(second.keys).toEqual(first.keys);
});

it('npm run build does not recompile when nothing changed', async () => {
  const before = fs.statSync(cliJs).mtimeMs;
  await build();
  expect(fs.statSync(cliJs).mtimeMs).toBe(before);
});
