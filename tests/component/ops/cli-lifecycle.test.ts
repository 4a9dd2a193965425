/**
 * Start-up and shutdown through the built executable (README.md, "Configuration"; docs/operations.md, "Shutdown and drain";
 * `npm run build`, then `node dist/src/cli/main.js`):
 * a bad setting exits 1 with one line naming it; `serve --help` lists the settings; SIGTERM finishes the
 * request in flight, refuses new connections and exits 0; a second signal exits at once; `demo` prints how to
 * mint a dashboard link, and each demo form's link opens its charts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { SETTINGS } from '../../../src/config';
import { cliJs } from '../../support/cli';
import { testDbUrl } from '../../support/db';
import { ownDatabase } from '../webhooks/harness';
import { freePort, until } from './helpers';

jest.setTimeout(120_000);

const root = path.resolve(__dirname, '../../..');

interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

const children: ChildProcess[] = [];
// A test that fails half way must not leave a server running.
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

function run(args: string[], env: Record<string, string>): { child: ChildProcess; exit: Promise<Exit> } {
  const child = spawn(process.execPath, [cliJs, ...args], {
    cwd: root,
    // Only what the test sets: no DATABASE_URL or REDIS_URL of the machine leaks in.
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const exit = new Promise<Exit>((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
  return { child, exit };
}

describe('start-up configuration checks', () => {
  it('exits 1 with one line naming PORT when it is not a port number', async () => {
    const { exit } = run(['serve'], { PORT: 'abc' });
    const r = await exit;
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('error: PORT must be an integer 1-65535, got "abc"\n');
    expect(r.stdout).toBe('');
  });

  it('names DATABASE_URL when it is not a PostgreSQL URL', async () => {
    const r = await run(['serve'], { DATABASE_URL: 'mysql://db/x' }).exit;
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('error: DATABASE_URL must be a URL starting with postgres:// or postgresql://, got "mysql://db/x"\n');
  });

  it('serve --help lists every environment setting with its default', async () => {
    const r = await run(['serve', '--help'], {}).exit;
    expect(r.code).toBe(0);
    for (const s of SETTINGS) {
      expect(r.stdout).toMatch(new RegExp(`^ {2}${s.name} +.*\\(default: ${s.fallback.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\)$`, 'm'));
    }
    expect(r.stdout).toMatch(/^ {2}PORT +listen port, 1-65535 \(default: 3000\)$/m);
    // Issue 26 item 6: the memory setting is listed, and the retry schedule's default is the schedule itself.
    expect(r.stdout).toMatch(/^ {2}FEEDBACK_MEMORY_DEFAULTS +"off": serve and import keep V8's own heap sizes .*\(default: on\)$/m);
    expect(r.stdout).toMatch(/^ {2}WEBHOOK_RETRY_SCHEDULE +comma-separated seconds before each webhook retry \(default: 5,300,1800,7200,18000,36000,36000\)$/m);
  });
});

describe('graceful shutdown', () => {
  const serve = async () => {
    const port = await freePort();
    const proc = run(['serve', '--no-worker'], { DATABASE_URL: testDbUrl(), PORT: String(port) });
    await until(async () => {
      if (proc.child.exitCode !== null) throw new Error(`serve exited: ${(await proc.exit).stderr}`);
      return fetch(`http://127.0.0.1:${port}/healthz`).then(
        (r) => r.ok,
        () => false,
      );
    }, 30_000);
    return { ...proc, port };
  };

  /** Opens a POST whose body is only half sent: the request stays in flight until `finish()`. */
  const slowRequest = async (port: number) => {
    const socket = net.connect(port, '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    let answer = '';
    socket.on('data', (c: Buffer) => (answer += c.toString()));
    socket.on('error', () => undefined);
    const body = '{"name":"in flight"}';
    socket.write(
      `POST /api/v1/workspaces/ws_x/api-keys HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`,
    );
    // Let the server parse the head first: until then the connection is idle and shutdown may close it.
    await new Promise((r) => setTimeout(r, 300));
    return {
      finish: () => socket.write(body.slice(5)),
      answered: () => new Promise<string>((resolve) => socket.once('close', () => resolve(answer))),
    };
  };

  const refused = (port: number) =>
    new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1');
      s.once('connect', () => (s.destroy(), resolve(false)));
      s.once('error', () => resolve(true));
    });

  it('on SIGTERM stops accepting, finishes the request in flight and exits 0', async () => {
    const { child, exit, port } = await serve();
    const slow = await slowRequest(port);
    const answered = slow.answered();
    child.kill('SIGTERM');
    await until(() => refused(port), 5000);
    expect(child.exitCode).toBeNull();
    slow.finish();
    const answer = await answered;
    expect(answer).toMatch(/^HTTP\/1\.1 401 /);
    expect(answer).toMatch(/\r\nConnection: close\r\n/i);
    expect(answer).toContain('"code":"invalid_api_key"');
    const r = await exit;
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
  });

  it('exits at once on a second signal while a request is still in flight', async () => {
    const { child, exit, port } = await serve();
    await slowRequest(port);
    child.kill('SIGTERM');
    await until(() => refused(port), 5000);
    const started = Date.now();
    child.kill('SIGINT');
    const r = await exit;
    expect(Date.now() - started).toBeLessThan(1000);
    expect(r.code).toBe(1);
  });
});

describe('demo', () => {
  // The quickstart's second half: the demo prints how to mint a dashboard link, and every demo form's link
  // opens a page with its charts (docs/analytics.md, "Dashboard links").
  it('prints a dashboard-link command; that link and one for every demo form open the charts', async () => {
    const own = await ownDatabase();
    try {
      const port = await freePort();
      // The demo keeps its key in FEEDBACK_DATA_DIR: a folder of the test's, not the checkout's .data.
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fs-demo-pg-'));
      const { child, exit } = run(['demo'], { DATABASE_URL: own.url, PORT: String(port), FEEDBACK_DATA_DIR: dataDir });
      let out = '';
      child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
      await until(async () => out.includes('Press Ctrl+C to stop.') || child.exitCode !== null, 90_000);
      const mint = /curl -s -X POST -H 'X-API-Key: (fa_[\w-]+)' '(\S+\/workspaces\/(ws_\w+)\/forms\/\w+\/dashboard-links)'/.exec(out);
      expect(mint).not.toBeNull();
      const [, key, printed, ws] = mint!;
      const api = (p: string, init: RequestInit = {}) => fetch(p, { ...init, headers: { 'X-API-Key': key!, 'X-API-Style': 'A' } });
      const forms = ((await (await api(`http://127.0.0.1:${port}/api/v1/workspaces/${ws}/forms`)).json()) as { data: Array<{ id: string }> }).data;
      const urls = [printed!, ...forms.map((f) => `http://127.0.0.1:${port}/api/v1/workspaces/${ws}/forms/${f.id}/dashboard-links`)];
      expect(forms.length).toBeGreaterThan(1);
      for (const url of urls) {
        const minted = await api(url, { method: 'POST' });
        expect(minted.status).toBe(201);
        const page = await fetch(((await minted.json()) as { data: { url: string } }).data.url);
        expect(page.status).toBe(200);
        const html = await page.text();
        // The over-time chart and at least one question chart, each an image with its figures.
        expect(html.match(/<svg[^>]*role="img"/g)?.length ?? 0).toBeGreaterThanOrEqual(2);
        expect(html).toContain('<details');
      }
      child.kill('SIGTERM');
      expect((await exit).code).toBe(0);
    } finally {
      await own.drop();
    }
  });
});
