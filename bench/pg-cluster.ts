/**
 * A throw-away PostgreSQL primary with streaming replicas on free loopback ports (docs/operations.md,
 * "Read replicas"), for the replica run of `npm run bench` (bench/replica-run.ts) and the replica test
 * (tests/ha/pg-replica.test.ts).
 *
 * The primary is `initdb` into a temporary folder with `wal_level=replica` and trust for replication from
 * 127.0.0.1; each replica is `pg_basebackup -R -X stream` of it, started with `hot_standby=on`. As root,
 * the folders belong to the `postgres` OS user and every binary runs through `runuser -u postgres --`
 * (PostgreSQL refuses to run as root). Binaries come from PG_BIN, else the newest /usr/lib/postgresql/N/bin,
 * else PATH.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The folder holding initdb, pg_ctl and pg_basebackup, or undefined when they cannot be found. */
export function pgBinDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const has = (dir: string) => ['initdb', 'pg_ctl', 'pg_basebackup'].every((b) => fs.existsSync(path.join(dir, b)));
  if (env.PG_BIN) return has(env.PG_BIN) ? env.PG_BIN : undefined;
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root)
    ? fs
        .readdirSync(root)
        .filter((v) => /^\d+$/.test(v))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  for (const v of versions) if (has(path.join(root, v, 'bin'))) return path.join(root, v, 'bin');
  for (const dir of (env.PATH ?? '').split(':')) if (dir && has(dir)) return dir;
  return undefined;
}

/** A free TCP port on 127.0.0.1 (asked of the kernel, then released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
    s.once('error', reject);
  });
}

export interface PgNode {
  readonly port: number;
  readonly dir: string;
  /** `postgres://postgres@127.0.0.1:PORT/<database>`. */
  url(database?: string): string;
}

export interface PgCluster {
  readonly primary: PgNode;
  readonly replicas: readonly PgNode[];
  /** `pg_ctl stop -m fast` of one node. */
  stop(node: PgNode): Promise<void>;
  /** `pg_ctl start` of a stopped node (waits until it accepts connections). */
  start(node: PgNode): Promise<void>;
  /** Stops every node and removes the folders; never throws. */
  destroy(): Promise<void>;
}

/**
 * Starts a primary and `replicas` streaming replicas (a few seconds with PostgreSQL 15).
 * @param opts.replicaSettings extra postgresql.conf lines of every replica (e.g. `recovery_min_apply_delay = '1s'`).
 * @throws when the binaries are missing (pgBinDir) or a step fails, after removing what it made.
 */
export async function startPgCluster(opts: { replicas?: number; bin?: string; replicaSettings?: readonly string[] } = {}): Promise<PgCluster> {
  const bin = opts.bin ?? pgBinDir();
  if (!bin) throw new Error('initdb, pg_ctl and pg_basebackup not found (set PG_BIN or install the PostgreSQL server package)');
  const asRoot = process.getuid?.() === 0;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fs-pg-cluster-'));
  fs.chmodSync(tmp, 0o755);
  const ids = asRoot ? await owner() : undefined;
  const exec = async (tool: string, args: string[]) => {
    const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', path.join(bin, tool), ...args]] : [path.join(bin, tool), args];
    return run(cmd, argv, { cwd: tmp, timeout: 60_000 });
  };
  const node = (name: string, port: number): PgNode => {
    const dir = path.join(tmp, name);
    return { port, dir, url: (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}` };
  };
  const ctl = (n: PgNode, action: 'start' | 'stop') =>
    exec('pg_ctl', action === 'start' ? ['-D', n.dir, '-l', `${n.dir}.log`, '-w', '-t', '30', 'start'] : ['-D', n.dir, '-m', 'fast', '-w', 'stop']);
  const started: PgNode[] = [];
  const destroy = async () => {
    for (const n of [...started].reverse()) await ctl(n, 'stop').catch(() => undefined);
    fs.rmSync(tmp, { recursive: true, force: true });
  };
  try {
    if (ids) fs.chownSync(tmp, ids.uid, ids.gid);
    const primary = node('primary', await freePort());
    await exec('initdb', ['-D', primary.dir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
    fs.appendFileSync(
      path.join(primary.dir, 'postgresql.conf'),
      [
        `port = ${primary.port}`,
        "listen_addresses = '127.0.0.1'",
        "unix_socket_directories = ''",
        'wal_level = replica',
        'max_wal_senders = 10',
        'fsync = off',
        '',
      ].join('\n'),
    );
    fs.appendFileSync(path.join(primary.dir, 'pg_hba.conf'), 'host replication all 127.0.0.1/32 trust\n');
    await ctl(primary, 'start');
    started.push(primary);
    const replicas: PgNode[] = [];
    for (let i = 0; i < (opts.replicas ?? 1); i++) {
      const replica = node(`replica${i + 1}`, await freePort());
      await exec('pg_basebackup', ['-h', '127.0.0.1', '-p', String(primary.port), '-U', 'postgres', '-D', replica.dir, '-R', '-X', 'stream', '--no-sync']);
      fs.appendFileSync(
        path.join(replica.dir, 'postgresql.conf'),
        [`port = ${replica.port}`, 'hot_standby = on', ...(opts.replicaSettings ?? []), ''].join('\n'),
      );
      await ctl(replica, 'start');
      started.push(replica);
      replicas.push(replica);
    }
    return {
      primary,
      replicas,
      stop: async (n) => void (await ctl(n, 'stop')),
      start: async (n) => void (await ctl(n, 'start')),
      destroy: () => destroy().catch(() => undefined),
    };
  } catch (err) {
    await destroy().catch(() => undefined);
    throw err;
  }
}

/** uid and gid of the `postgres` OS user (root must hand the folders to it). */
async function owner(): Promise<{ uid: number; gid: number }> {
  const [uid, gid] = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])]);
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}
