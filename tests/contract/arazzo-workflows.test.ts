/**
 * The Arazzo workflows in contract/ run green with `redocly respect` against the service (docs/contract-checks.md,
 * "In this repository's CI"): the service listens on a random port of the loopback, on the run's database with a
 * fresh workspace from `scenario` (30 responses, a datatable) and a key with exactly the scopes the doc lists;
 * node_modules/.bin/redocly runs as a child process on every workflow file and must exit 0 (its output is in the
 * failure). A run with a wrong key (401 on the first step), or against a server whose 200 does not fit openapi/, must
 * exit non-zero, so a broken answer fails the check.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Config } from '../../src/config';
import { useTestApp } from '../support/app';
import { keyFor, scenario } from '../support/given';

const ROOT = path.resolve(__dirname, '..', '..');
const REDOCLY = path.join(ROOT, 'node_modules', '.bin', 'redocly');
const WORKFLOWS = fs
  .readdirSync(path.join(ROOT, 'contract'))
  .filter((f) => f.endsWith('.arazzo.yaml'))
  .sort();
/** Every scope the four workflows use (docs/contract-checks.md, "The key"). */
const SCOPES = ['workspaces:read', 'responses:read', 'forms:read', 'datatables:read', 'datatables:write'] as const;

// The app's links (links.next, which the Style A reader follows) must name the port it listens on: the
// server listens first, and useTestApp reads these overrides when its own beforeAll builds the app.
const server = http.createServer();
const overrides: Partial<Config> = {};
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  (overrides as { publicUrl?: string }).publicUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
const ctx = useTestApp(overrides);
let key: string;
beforeAll(async () => {
  server.on('request', ctx.app);
  const s = await scenario(ctx.db);
  key = await keyFor(ctx.db, [s.ws], { scopes: [...SCOPES] });
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

interface Run {
  code: number;
  output: string;
}

/** `redocly respect FILE --input apiKey=KEY --server api=URL` on the node running the tests. */
function respect(file: string, apiKey: string, baseUrl = overrides.publicUrl!): Promise<Run> {
  const args = [REDOCLY, 'respect', path.join('contract', file), '--input', `apiKey=${apiKey}`, '--server', `api=${baseUrl}`];
  const env = { ...process.env, NO_COLOR: '1', REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };
  return new Promise((resolve) => {
    // Killed before jest's own 30 s timeout, so a hanging run still fails with its output.
    execFile(process.execPath, args, { cwd: ROOT, env, timeout: 25_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, output: `${stdout}\n${stderr}` });
    });
  });
}

it('finds the workflows', () => {
  expect(WORKFLOWS).toEqual(
    expect.arrayContaining(['idempotent-writer.arazzo.yaml', 'migrating-client.arazzo.yaml', 'style-a-reader.arazzo.yaml', 'style-b-reader.arazzo.yaml']),
  );
});

it.each(WORKFLOWS)('%s runs green', async (file) => {
  const run = await respect(file, key);
  // respect's whole output names the step and the check that failed.
  if (run.code !== 0) throw new Error(`redocly respect ${file} exited ${run.code}:\n${run.output}`);
  expect(run.output).toMatch(/Workflows: 1 passed, 1 total/);
});

it('fails when the service answers wrongly (a wrong key: 401 on the first step)', async () => {
  const run = await respect('style-a-reader.arazzo.yaml', `fa_${'x'.repeat(40)}`);
  expect(run.code).not.toBe(0);
  expect(run.output).toMatch(/Workflows: 1 failed, 1 total/);
});

it('fails when an answer does not fit openapi/ (a 200 without the envelope)', async () => {
  const impostor = http.createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ data: [{ id: 'ws_1' }] }));
  });
  await new Promise<void>((resolve) => impostor.listen(0, '127.0.0.1', resolve));
  try {
    const run = await respect('style-a-reader.arazzo.yaml', key, `http://127.0.0.1:${(impostor.address() as AddressInfo).port}`);
    expect(run.code).not.toBe(0);
    expect(run.output).toMatch(/✗ schema check/);
  } finally {
    await new Promise<void>((resolve) => impostor.close(() => resolve()));
  }
});
