/**
 * Smoke test of the built CLI as a new user runs it: no DATABASE_URL, no REDIS_URL (embedded
 * PostgreSQL in a temporary folder, in-process stores); import a fixture, serve, read over HTTP.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { nanoid } from 'nanoid';
import { cliJs as cli } from '../../support/cli';

let dir: string;
let server: ChildProcess | undefined;

function env(): NodeJS.ProcessEnv {
  const e: NodeJS.ProcessEnv = { ...process.env, FEEDBACK_DATA_DIR: path.join(dir, 'data'), LOG_LEVEL: 'info' };
  delete e.DATABASE_URL;
  delete e.REDIS_URL;
  return e;
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fs-smoke-'));
}, 120_000);

afterAll(() => {
  server?.kill('SIGTERM');
  fs.rmSync(dir, { recursive: true, force: true });
});

it('imports a fixture and serves its responses from the embedded database', async () => {
  const secret = `fa_${nanoid(40)}`;
  const fixture = {
    workspaces: [{ id: 'ws_smoke', name: 'Smoke', link: 'smoke' }],
    api_keys: [{ name: 'smoke', secret, workspace_ids: ['ws_smoke'] }],
    forms: [{ id: 'frm_smoke', workspace_id: 'ws_smoke', name: 'NPS', questions: [{ id: 'q1', type: 'nps', title: 'Score?' }] }],
    responses: [
      { id: 'rsp_1', form_id: 'frm_smoke', score: 9, created_at: '2026-01-01T10:00:00Z', answers: [{ question_id: 'q1', value: 9 }] },
      { id: 'rsp_2', form_id: 'frm_smoke', score: 3, created_at: '2026-01-02T10:00:00Z', answers: [{ question_id: 'q1', value: 3 }] },
    ],
  };
  const file = path.join(dir, 'fixture.json');
  fs.writeFileSync(file, JSON.stringify(fixture));
  const summary = JSON.parse(execFileSync('node', [cli, 'import', file], { env: env(), encoding: 'utf8' }));
  expect(summary).toMatchObject({ workspaces: 1, forms: 1, responses: 2 });

  const port = await freePort();
  server = spawn('node', [cli, 'serve', '--port', String(port)], { env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
  const base = `http://127.0.0.1:${port}`;
  await new Promise<void>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`server did not start: ${out}`)), 60_000);
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('listening')) {
        clearTimeout(timer);
        resolve();
      }
    };
    server!.stdout!.on('data', onData);
    server!.stderr!.on('data', onData);
    server!.once('exit', (code) => reject(new Error(`server exited with ${code}: ${out}`)));
  });

  const res = await fetch(`${base}/api/v1/workspaces/ws_smoke/responses?limit=1`, { headers: { 'X-API-Key': secret } });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { data: Array<{ id: string }>; meta: { has_more: boolean }; links: { next: string } };
  expect(body.data.map((r) => r.id)).toEqual(['rsp_2']);
  expect(body.meta.has_more).toBe(true);
  const next = (await (await fetch(body.links.next, { headers: { 'X-API-Key': secret } })).json()) as { data: Array<{ id: string }> };
  expect(next.data.map((r) => r.id)).toEqual(['rsp_1']);

  // The built CLI finds the page templates too (src/pages/templates, resolved from the project root).
  const page = await fetch(`${base}/f/frm_smoke`);
  expect(page.status).toBe(200);
  expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
  expect(await page.text()).toContain('<legend><span class="title">Score?</span> <span class="req">(required)</span></legend>');
}, 120_000);
