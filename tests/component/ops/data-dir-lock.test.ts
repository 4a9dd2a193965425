/**
 * One process owns the embedded data directory (docs/operations.md, "One process per data directory"), with real
 * processes of the built CLI: while `serve` has FEEDBACK_DATA_DIR open, `keys create`, `seed`, `import`,
 * `keys report` and `migrate` on the same folder exit 1 with one line naming the server's pid and what to do,
 * and write nothing; once the server stops, the same command works and the server starts again on the
 * folder; a lock left by a killed server does not block the next process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { nanoid } from 'nanoid';
import { cliJs } from '../../support/cli';
import { freePort, until } from './helpers';

jest.setTimeout(180_000);

const root = path.resolve(__dirname, '../../..');
const secret = `fa_${nanoid(40)}`;
let dir: string;
let dataDir: string;
let fixture: string;
const children: ChildProcess[] = [];

interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

function start(args: string[]): { child: ChildProcess; exit: Promise<Exit> } {
  const child = spawn(process.execPath, [cliJs, ...args], {
    cwd: root,
    // Embedded database, in-process stores: nothing of the machine's DATABASE_URL or REDIS_URL.
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', FEEDBACK_DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  return { child, exit: new Promise<Exit>((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr }))) };
}

const run = (args: string[]) => start(args).exit;

async function serve(): Promise<{ child: ChildProcess; exit: Promise<Exit>; port: number }> {
  const port = await freePort();
  const proc = start(['serve', '--no-worker', '--port', String(port)]);
  await until(async () => {
    if (proc.child.exitCode !== null) throw new Error(`serve exited: ${(await proc.exit).stderr}`);
    return fetch(`http://127.0.0.1:${port}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
  }, 60_000);
  return { ...proc, port };
}

const workspaces = (port: number, key: string) =>
  fetch(`http://127.0.0.1:${port}/api/v1/workspaces`, { headers: { 'X-API-Key': key } }).then(async (r) => ({
    status: r.status,
    body: (await r.json()) as { data?: Array<{ id: string }> },
  }));

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fs-lock-'));
  dataDir = path.join(dir, 'data');
  fixture = path.join(dir, 'fixture.json');
  fs.writeFileSync(
    fixture,
    JSON.stringify({ workspaces: [{ id: 'ws_lock', name: 'Lock', link: 'lock' }], api_keys: [{ name: 'k', secret, workspace_ids: ['ws_lock'] }] }),
  );
  const imported = await run(['import', fixture]);
  expect(imported.stderr).toBe('');
  expect(imported.code).toBe(0);
});

afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
});

it('refuses every writer while serve holds the folder, and lets it in once serve has stopped', async () => {
  const server = await serve();
  const refusal =
    `error: the data directory ${dataDir} is in use by process ${server.child.pid} (feedback-service serve --no-worker --port ${server.port}): ` +
    'stop it first, or let it do the work through its API (e.g. POST /api/v1/workspaces/{ws}/api-keys creates a key)\n';
  for (const args of [
    ['keys', 'create', '--workspace', 'ws_lock'],
    ['seed', '--demo'],
    ['import', fixture],
    ['keys', 'report', '--key-id', 'key_x'],
    ['migrate'],
  ]) {
    const r = await run(args);
    expect({ args, code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({ args, code: 1, stdout: '', stderr: refusal });
  }
  // The server still answers from an intact database.
  expect(await workspaces(server.port, secret)).toMatchObject({ status: 200, body: { data: [{ id: 'ws_lock' }] } });

  server.child.kill('SIGTERM');
  expect((await server.exit).code).toBe(0);
  expect(fs.existsSync(path.join(dataDir, 'feedback-service.lock'))).toBe(false);
  const created = await run(['keys', 'create', '--workspace', 'ws_lock']);
  expect(created.stderr).toBe('');
  expect(created.code).toBe(0);
  const key = (JSON.parse(created.stdout) as { secret: string }).secret;

  const again = await serve();
  expect(await workspaces(again.port, key)).toMatchObject({ status: 200, body: { data: [{ id: 'ws_lock' }] } });
  again.child.kill('SIGTERM');
  expect((await again.exit).code).toBe(0);
});

it('takes over the lock of a server that was killed', async () => {
  const server = await serve();
  server.child.kill('SIGKILL');
  await server.exit;
  // The killed server could not remove its lock.
  expect(fs.existsSync(path.join(dataDir, 'feedback-service.lock'))).toBe(true);
  const started = Date.now();
  const r = await run(['keys', 'create', '--workspace', 'ws_lock']);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  expect(Date.now() - started).toBeLessThan(30_000);
});
