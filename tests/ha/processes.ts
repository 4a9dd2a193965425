/**
 * Real processes for the failover tests (tests/ha): `redis-server`s on free loopback ports, plain ioredis
 * clients to look into them, and `serve` processes of this checkout; everything started here is killed
 * and its temporary folder removed by `stop()`.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Redis from 'ioredis';
import { nanoid } from 'nanoid';
import { importFixture } from '../../src/core/import/importer';
import type { Db } from '../../src/db/connection';
import { freePort } from '../component/ops/helpers';
import { sleep } from '../component/webhooks/harness';
import { uid } from '../support/given';
import { cliJs } from '../support/cli';

export { freePort, sleep };

const root = path.resolve(__dirname, '../..');

/**
 * True when `redis-server` is on PATH. Without it the file's tests are skipped, except under CI=true,
 * where this throws (naming `what`) so that the run fails instead.
 */
export function redisServerAvailable(what: string): boolean {
  const found = spawnSync('redis-server', ['--version']).status === 0;
  if (!found && process.env.CI === 'true') throw new Error(`redis-server is not on PATH (needed by ${what}; CI=true does not skip it)`);
  return found;
}

/** Polls `probe` every 100 ms (its errors count as "not yet") until it returns a value other than undefined/false. */
export async function until<T>(what: string, ms: number, probe: () => Promise<T | undefined | false>): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe().catch(() => undefined);
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

/** The processes, clients and temporary folder of one test file. */
export class Processes {
  /** A temporary folder (redis-server `--dir`, config files), removed by stop(). */
  readonly tmp = mkdtempSync(path.join(os.tmpdir(), 'fs-ha-'));
  /** The output of every `serve` process started, in order. */
  readonly serveLogs: Array<() => string> = [];
  private readonly children: ChildProcess[] = [];
  private readonly clients: Redis[] = [];
  private readonly redisServers = new Map<number, ChildProcess>();

  /** Starts `cmd` in the checkout's folder with only PATH (or `env`) in its environment; `out()` is its stdout and stderr so far. */
  start(cmd: string, args: string[], env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? '' }): { proc: ChildProcess; out: () => string } {
    const proc = spawn(cmd, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    this.children.push(proc);
    let out = '';
    proc.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    proc.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    return { proc, out: () => out };
  }

  /** A `redis-server` on `port` of the loopback, without persistence, with `extra` arguments. */
  redisServer(port: number, extra: string[] = []): ChildProcess {
    const { proc } = this.start('redis-server', [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--protected-mode',
      'no',
      '--dir',
      this.tmp,
      ...extra,
    ]);
    this.redisServers.set(port, proc);
    return proc;
  }

  /** Kills (SIGKILL) the redis-server this started on `port`. */
  killRedis(port: number): void {
    this.redisServers.get(port)?.kill('SIGKILL');
  }

  /** A plain ioredis client to one server (errors ignored, closed by stop()). */
  client(port: number): Redis {
    const c = new Redis({ host: '127.0.0.1', port, lazyConnect: false, maxRetriesPerRequest: 1, retryStrategy: () => 200 });
    c.on('error', () => undefined);
    this.clients.push(c);
    return c;
  }

  /** Starts `feedback-service serve` on a free port with this database and REDIS_URL; resolves with its base URL once it listens. */
  async serve(databaseUrl: string, redisUrl: string): Promise<string> {
    const port = await freePort();
    const { proc, out } = this.start(process.execPath, [cliJs, 'serve', '--port', String(port)], {
      PATH: process.env.PATH ?? '',
      DATABASE_URL: databaseUrl,
      REDIS_URL: redisUrl,
      LOG_LEVEL: 'info',
    });
    this.serveLogs.push(out);
    await new Promise<void>((resolve, reject) => {
      const timer = setInterval(() => {
        if (out().includes('feedback-service listening')) {
          clearInterval(timer);
          resolve();
        }
      }, 50);
      proc.once('exit', (code) => {
        clearInterval(timer);
        reject(new Error(`serve exited ${code}: ${out()}`));
      });
    });
    return `http://127.0.0.1:${port}`;
  }

  /** Closes the clients, kills every process (SIGKILL) and waits for them, removes the temporary folder. */
  async stop(): Promise<void> {
    await Promise.all(
      this.clients
        .filter((c) => c.status !== 'end')
        .map((c) => (c.status === 'ready' ? c.quit().catch(() => c.disconnect()) : Promise.resolve(c.disconnect()))),
    );
    for (const c of this.children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await Promise.all(this.children.map((c) => (c.exitCode === null && c.signalCode === null ? new Promise((r) => c.once('exit', r)) : Promise.resolve())));
    rmSync(this.tmp, { recursive: true, force: true });
  }
}

/** A new workspace with a datatable `tbl_<workspace id>` (one string field `id`) and an API key for it with `limit` requests per minute, written into `db`. */
export async function apiKey(db: Db, limit: number): Promise<{ ws: string; id: string; secret: string }> {
  const ws = uid('ws');
  const k = { id: uid('key'), secret: `fa_${nanoid(40)}` };
  await importFixture(db, {
    workspaces: [{ id: ws, name: ws, link: ws.toLowerCase().replace(/_/g, '-') }],
    api_keys: [{ id: k.id, name: 'ha', secret: k.secret, workspace_ids: [ws], rate_limit_per_minute: limit }],
    datatables: [{ id: `tbl_${ws}`, workspace_id: ws, name: 'Customers', fields: [{ name: 'id', type: 'string' }] }],
  });
  return { ws, ...k };
}

/** GET of the API key's workspace on the instance at `base`. */
export const getWorkspace = (base: string, k: { ws: string; secret: string }) =>
  fetch(`${base}/api/v1/workspaces/${k.ws}`, { headers: { 'X-API-Key': k.secret } });

/**
 * Continuous load: every instance in `bases` GETs `k`'s workspace again 20 ms after each answer until
 * `stop()`; `answers` holds each answer's status and time in milliseconds.
 */
export function load(bases: string[], k: { ws: string; secret: string }): { answers: Array<{ status: number; ms: number }>; stop(): Promise<void> } {
  const answers: Array<{ status: number; ms: number }> = [];
  let loading = true;
  const loop = async (base: string) => {
    while (loading) {
      const t = Date.now();
      const r = await getWorkspace(base, k);
      await r.arrayBuffer();
      answers.push({ status: r.status, ms: Date.now() - t });
      await sleep(20);
    }
  };
  const loops = bases.map(loop);
  return {
    answers,
    stop: async () => {
      loading = false;
      await Promise.all(loops);
    },
  };
}
