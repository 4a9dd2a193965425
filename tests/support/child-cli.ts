/**
 * The `feedback-service` CLI as child processes (`node dist/src/cli/main.js …`, tests/support/cli.ts cliJs): one node
 * process each, so SIGKILL hits the server itself. Shared by the tests that kill, restart or race real processes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { cliJs } from './cli';

const root = path.resolve(__dirname, '../..');

export interface Child {
  proc: ChildProcess;
  output: () => string;
  /** Resolves when the output contains `text`. */
  waitFor(text: string, ms?: number): Promise<void>;
  exited: Promise<number | null>;
}

/**
 * Spawns `feedback-service` children with the test's environment plus `baseEnv` plus each call's `env` (an undefined
 * value removes the variable; REDIS_URL is removed unless `baseEnv` or `env` gives it); `killAll` (for an afterAll) ends
 * those still running.
 */
export function childProcesses(baseEnv: Record<string, string> = {}) {
  const children: ChildProcess[] = [];
  function cli(args: string[], env: Record<string, string | undefined>): Child {
    const e: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'info', ...baseEnv, ...env };
    // REDIS_URL of the test's own environment never leaks into a child: only one given here reaches it.
    const redis = env.REDIS_URL ?? baseEnv.REDIS_URL;
    for (const k of [...(redis === undefined ? ['REDIS_URL'] : []), ...Object.keys(env).filter((k) => env[k] === undefined)]) delete e[k];
    const proc = spawn(process.execPath, [cliJs, ...args], { cwd: root, env: e, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(proc);
    let out = '';
    const listeners: Array<() => void> = [];
    const onData = (c: Buffer) => {
      out += c.toString();
      listeners.forEach((l) => l());
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
    return {
      proc,
      output: () => out,
      exited,
      waitFor(text, ms = 30_000) {
        return new Promise((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`no "${text}" within ${ms} ms: ${out}`)), ms);
          const check = () => {
            if (out.includes(text)) {
              clearTimeout(timer);
              resolve();
            }
          };
          listeners.push(check);
          void exited.then((code) => {
            if (!out.includes(text)) {
              clearTimeout(timer);
              reject(new Error(`exited with ${code} before "${text}": ${out}`));
            }
          });
          check();
        });
      },
    };
  }
  return {
    cli,
    killAll(): void {
      for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    },
  };
}
