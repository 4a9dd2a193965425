/**
 * Processes of the bench: the servers under test, each in a child process (bench/serve.ts), and
 * their memory read from Linux's /proc/<pid>/status (VmRSS: resident now; VmHWM: the peak of
 * VmRSS since the process started). Sizes are in MB (10^6 bytes), as the targets state them.
 */
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { ProfiledMessage, ProfileMessage, ServeMessage } from './serve';

export interface Served {
  url: string;
  pid: number;
  /** Asks the child to close (drain, pools) and waits for it to exit; SIGKILL after 15 s. */
  stop(): Promise<void>;
  /** Starts V8's CPU profiler in the child (bench/profile-steps.ts). */
  profileStart(): void;
  /** Stops the child's CPU profiler and waits until it has written the profile to `file` (a .cpuprofile). */
  profileStop(file: string): Promise<void>;
}

/** Which server bench/serve.ts starts. */
export type ServeMode = 'app' | 'bare' | 'floor';

/** How a server's process runs: its Node binary and node flags (default: the bench's node, no flags). */
export interface Runtime {
  /** Path of the node binary. */
  node: string;
  /** Node/V8 flags before the script, e.g. `--max-semi-space-size=8`. */
  execArgv: readonly string[];
  /** Environment of the server beside the bench's own (the traced app's `OTEL_*`); no `OTEL_*` variable reaches a server but these. */
  env?: Readonly<Record<string, string>>;
}

/**
 * Starts `app` (the service as `feedback-service serve` runs it), `bare` (bench/bare-server.ts) or `floor`
 * (bench/floor-server.ts) on `databaseUrl` in a child process run by `runtime`; its stdout (the app's and the
 * floor's log) goes to /dev/null. A start that fails
 * is tried up to 4 more times, 3 s apart: on a busy machine the app's 2 s database connect timeout
 * can expire while it starts.
 * @param readUrl the app's read replicas (DATABASE_READ_URL, comma-separated; docs/operations.md, "Read replicas").
 * @throws the fifth failure to start (the child's error, or its exit before reporting its URL)
 */
export async function serve(mode: ServeMode, databaseUrl: string, runtime?: Runtime, logLevel = 'info', readUrl?: string): Promise<Served> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await serveOnce(mode, databaseUrl, runtime ?? { node: process.execPath, execArgv: [] }, logLevel, readUrl);
    } catch (e) {
      if (attempt === 5) throw e;
      process.stderr.write(`[bench] ${mode} server did not start (${(e as Error).message.split('\n')[0]}); trying again in 3 s\n`);
      await new Promise((resolve) => setTimeout(resolve, 3000));
    }
  }
}

/** The environment without its `OTEL_*` variables: only the traced app exports traces. */
function withoutOtel(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([k]) => !k.startsWith('OTEL_')));
}

async function serveOnce(mode: ServeMode, databaseUrl: string, runtime: Runtime, logLevel: string, readUrl: string | undefined): Promise<Served> {
  const child: ChildProcess = fork(path.join(__dirname, 'serve.js'), [mode], {
    execPath: runtime.node,
    execArgv: [...runtime.execArgv],
    env: {
      ...withoutOtel(process.env),
      ...runtime.env,
      BENCH_DATABASE_URL: databaseUrl,
      BENCH_REDIS_URL: process.env.REDIS_URL || 'redis://127.0.0.1:6379',
      BENCH_LOG: logLevel,
      BENCH_DATABASE_READ_URL: readUrl ?? '',
    },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const msg = await new Promise<ServeMessage>((resolve, reject) => {
    child.once('message', (m) => resolve(m as ServeMessage));
    child.once('exit', (code) => reject(new Error(`${mode} server exited with ${code}`)));
  });
  if ('error' in msg) throw new Error(`${mode} server failed: ${msg.error}`);
  return {
    url: msg.url,
    pid: child.pid!,
    profileStart: () => child.send('profile-start' satisfies ProfileMessage),
    profileStop: (file) =>
      new Promise<void>((resolve) => {
        const onMessage = (m: unknown) => {
          if ((m as Partial<ProfiledMessage> | null)?.profiled !== file) return;
          child.off('message', onMessage);
          resolve();
        };
        child.on('message', onMessage);
        child.send({ profileStop: file } satisfies ProfileMessage);
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        const t = setTimeout(() => child.kill('SIGKILL'), 15_000);
        child.once('exit', () => {
          clearTimeout(t);
          resolve();
        });
        child.send('close');
      }),
  };
}

/** A field of /proc/<pid>/status in MB (`VmRSS`, `VmHWM`), or NaN when unreadable (process gone, not Linux). */
export function procMemoryMb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  try {
    const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? (Number(m[1]) * 1024) / 1e6 : NaN;
  } catch {
    return NaN;
  }
}

/**
 * The CPU time a process has used so far, in microseconds: user plus system time of all its threads (V8's GC helpers
 * included) from /proc/<pid>/stat, in clock ticks of 10 ms (USER_HZ 100, Linux's value on every common architecture);
 * NaN when unreadable (process gone, not Linux). Unlike a CPU profile's sample times, it is time on a CPU only: a
 * thread that waits for a core on a busy machine does not count.
 */
export function procCpuMicros(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces and parentheses): utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return NaN;
  }
}

/**
 * The local TCP ports of a process's sockets connected to `remotePort` (its PostgreSQL connections for 5432), read
 * from /proc/<pid>/fd (socket inodes) and /proc/<pid>/net/tcp and tcp6; empty when unreadable (process gone, not Linux).
 */
export function procClientPorts(pid: number, remotePort: number): Set<number> {
  const ports = new Set<number>();
  try {
    const inodes = new Set<string>();
    for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
      const m = /^socket:\[(\d+)\]$/.exec(safeReadlink(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]!);
    }
    for (const table of ['tcp', 'tcp6']) {
      const lines = fs.readFileSync(`/proc/${pid}/net/${table}`, 'utf8').split('\n').slice(1);
      for (const line of lines) {
        // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
        const f = line.trim().split(/\s+/);
        if (f.length < 10 || !inodes.has(f[9]!)) continue;
        if (parseInt(f[2]!.split(':')[1]!, 16) === remotePort) ports.add(parseInt(f[1]!.split(':')[1]!, 16));
      }
    }
  } catch {
    /* unreadable: no ports */
  }
  return ports;
}

const safeReadlink = (file: string): string => {
  try {
    return fs.readlinkSync(file);
  } catch {
    return '';
  }
};

/** The node flags of a running process: the arguments of /proc/<pid>/cmdline before the script (undefined when unreadable or exited). */
export function procNodeFlags(pid: number): string[] | undefined {
  try {
    const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    if (cmdline === '') return undefined;
    const args = cmdline.split('\0').slice(1);
    const script = args.findIndex((a) => !a.startsWith('-'));
    return script === -1 ? args : args.slice(0, script);
  } catch {
    return undefined;
  }
}

export interface MemoryWatch {
  /** Stops sampling; the peak in MB of every VmRSS and VmHWM read (NaN when none could be read). */
  stop(): number;
}

/**
 * Samples a process's VmRSS and VmHWM every `everyMs` (default 100 ms). VmHWM already holds the
 * peak between samples, so the result misses at most the growth of the last interval before the
 * process exits.
 */
export function watchMemory(pid: number, everyMs = 100): MemoryWatch {
  let peak = NaN;
  const sample = () => {
    // `!(v <= peak)` also holds while peak is still NaN.
    for (const v of [procMemoryMb(pid, 'VmRSS'), procMemoryMb(pid, 'VmHWM')]) if (Number.isFinite(v) && !(v <= peak)) peak = v;
  };
  sample();
  const t = setInterval(sample, everyMs);
  return {
    stop: () => {
      clearInterval(t);
      sample();
      return peak;
    },
  };
}
