/**
 * Links users can reach (README.md, "Configuration", PUBLIC_URL): a server listening on a wildcard address
 * (HOST=0.0.0.0, as in docker-compose.yml) without PUBLIC_URL warns once at start and mints links on
 * http://localhost:{PORT}, never on http://0.0.0.0:{PORT}. The built CLI on an embedded folder of its own.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { nanoid } from 'nanoid';
import { cliJs } from '../../support/cli';
import { freePort, until } from './helpers';

jest.setTimeout(120_000);

const root = path.resolve(__dirname, '../../..');
let dir: string;
let server: ChildProcess | undefined;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fs-public-url-'));
});

afterAll(() => {
  if (server && server.exitCode === null) server.kill('SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
});

it('warns once and mints links on http://localhost:{PORT} when HOST is 0.0.0.0 and PUBLIC_URL is unset', async () => {
  const secret = `fa_${nanoid(40)}`;
  const fixture = path.join(dir, 'fixture.json');
  fs.writeFileSync(
    fixture,
    JSON.stringify({
      workspaces: [{ id: 'ws_pub', name: 'Pub', link: 'pub' }],
      api_keys: [{ name: 'k', secret, workspace_ids: ['ws_pub'] }],
      forms: [{ id: 'frm_pub', workspace_id: 'ws_pub', name: 'NPS', questions: [{ id: 'q1', type: 'nps', title: 'Score?' }] }],
    }),
  );
  const env = { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', FEEDBACK_DATA_DIR: path.join(dir, 'data') };
  await promisify(execFile)(process.execPath, [cliJs, 'import', fixture], { cwd: root, env });
  const port = await freePort();
  server = spawn(process.execPath, [cliJs, 'serve', '--no-worker'], {
    cwd: root,
    env: { ...env, HOST: '0.0.0.0', PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  server.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  const exit = new Promise<number | null>((resolve) => server!.on('close', resolve));
  await until(
    () =>
      fetch(`http://127.0.0.1:${port}/healthz`).then(
        (r) => r.ok,
        () => false,
      ),
    60_000,
  );

  const minted = await fetch(`http://127.0.0.1:${port}/api/v1/workspaces/ws_pub/forms/frm_pub/dashboard-links`, {
    method: 'POST',
    headers: { 'X-API-Key': secret },
  });
  expect(minted.status).toBe(201);
  expect(((await minted.json()) as { data: { url: string } }).data.url).toMatch(new RegExp(`^http://localhost:${port}/d/[\\w.-]+$`));

  server.kill('SIGTERM');
  expect(await exit).toBe(0);
  const warnings = stdout
    .split('\n')
    .filter((l) => l.includes('PUBLIC_URL'))
    .map((l) => JSON.parse(l) as { level: number; msg: string; publicUrl: string });
  expect(warnings).toEqual([
    expect.objectContaining({
      level: 40,
      msg: 'HOST is a wildcard address and PUBLIC_URL is unset: links are built on localhost; set PUBLIC_URL to the address users reach',
      publicUrl: `http://localhost:${port}`,
    }),
  ]);
});
