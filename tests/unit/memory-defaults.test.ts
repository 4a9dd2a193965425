/**
 * The heap settings `serve` and `import` start with (docs/operations.md, "Memory"): when they apply,
 * and that the CLI really restarts with them (same PID) where node has `process.execve`.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MEMORY_DEFAULT_FLAGS, MEMORY_DEFAULTS_MARK, memoryReexec, type ProcessFacts } from '../../src/cli/memory-defaults';

jest.setTimeout(60_000);

const facts = (over: Partial<ProcessFacts> = {}): ProcessFacts => ({
  argv: ['/usr/bin/node', '/app/dist/src/cli.js', 'serve', '--migrate'],
  execArgv: [],
  env: { PATH: '/usr/bin', PORT: '3000' },
  execPath: '/usr/bin/node',
  canExecve: true,
  ...over,
});

describe('memoryReexec', () => {
  it('restarts `serve` with the flags before the script, keeping node flags, arguments and environment', () => {
    expect(MEMORY_DEFAULT_FLAGS).toEqual(['--max-semi-space-size=16', '--max-old-space-size=384']);
    expect(memoryReexec(facts({ execArgv: ['--enable-source-maps'] }))).toEqual({
      file: '/usr/bin/node',
      args: ['/usr/bin/node', '--enable-source-maps', '--max-semi-space-size=16', '--max-old-space-size=384', '/app/dist/src/cli.js', 'serve', '--migrate'],
      env: { PATH: '/usr/bin', PORT: '3000', [MEMORY_DEFAULTS_MARK]: '--max-semi-space-size=16 --max-old-space-size=384' },
    });
  });

  it('restarts `import` too, also when NODE_OPTIONS holds flags that do not size the heap', () => {
    const r = memoryReexec(
      facts({ argv: ['/usr/bin/node', 'cli.js', 'import', '-'], env: { NODE_OPTIONS: '--enable-source-maps --max-http-header-size=32768' } }),
    );
    expect(r?.args).toEqual(['/usr/bin/node', '--max-semi-space-size=16', '--max-old-space-size=384', 'cli.js', 'import', '-']);
    expect(r?.env.NODE_OPTIONS).toBe('--enable-source-maps --max-http-header-size=32768');
  });

  it.each([
    ['another command', facts({ argv: ['/usr/bin/node', 'cli.js', 'migrate'] })],
    ['no command', facts({ argv: ['/usr/bin/node', 'cli.js'] })],
    ['a heap flag in NODE_OPTIONS', facts({ env: { NODE_OPTIONS: '--enable-source-maps --max-old-space-size=512' } })],
    ['a heap flag written with underscores', facts({ env: { NODE_OPTIONS: '--max_semi_space_size=16' } })],
    ['a young-generation flag', facts({ env: { NODE_OPTIONS: '--max-young-generation-size=24' } })],
    ['a heap flag on the node command line', facts({ execArgv: ['--max-semi-space-size=2'] })],
    ['FEEDBACK_MEMORY_DEFAULTS=off', facts({ env: { FEEDBACK_MEMORY_DEFAULTS: 'off' } })],
    ['the process already restarted', facts({ env: { [MEMORY_DEFAULTS_MARK]: '--max-semi-space-size=16' } })],
    ['no process.execve (Node 20)', facts({ canExecve: false })],
  ])('leaves the process as it is with %s', (_, f) => {
    expect(memoryReexec(f)).toBeUndefined();
  });
});

describe('the CLI process', () => {
  const root = path.resolve(__dirname, '../..');
  const canExecve = typeof (process as { execve?: unknown }).execve === 'function';
  let probe: string;
  beforeAll(() => {
    // Preloaded in every start of the process: prints its PID and heap flags (main thread only: tsx's hooks run in a worker).
    probe = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'memory-defaults-')), 'probe.js');
    fs.writeFileSync(
      probe,
      "if (require('node:worker_threads').isMainThread) process.stderr.write(`started ${process.pid} ${JSON.stringify(process.execArgv.filter((a) => a.startsWith('--max')))}\\n`);\n",
    );
  });
  afterAll(() => fs.rmSync(path.dirname(probe), { recursive: true, force: true }));

  /** The `started …` lines of `import` of a missing file against a closed port (fails at once, exit 1). */
  const starts = (env: Record<string, string>) =>
    new Promise<string[]>((resolve, reject) => {
      const child = spawn(process.execPath, ['--require', probe, '--import', 'tsx', 'src/cli/main.ts', 'import', '/nonexistent.json'], {
        cwd: root,
        env: { PATH: process.env.PATH ?? '', DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none', ...env },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      child.on('error', reject);
      child.on('close', (code) => {
        expect(code).toBe(1);
        resolve(
          stderr
            .split('\n')
            .filter((l) => l.startsWith('started '))
            .map((l) => l.replace(String(child.pid), 'PID')),
        );
      });
    });

  it(canExecve ? 'restarts `import` in the same process with the flags' : 'runs `import` as started (no process.execve on this node)', async () => {
    expect(await starts({})).toEqual(
      canExecve ? ['started PID []', 'started PID ["--max-semi-space-size=16","--max-old-space-size=384"]'] : ['started PID []'],
    );
  });

  it('keeps the operator’s own heap flags from NODE_OPTIONS and adds none', async () => {
    expect(await starts({ NODE_OPTIONS: '--max-old-space-size=300' })).toEqual(['started PID []']);
  });
});
