/**
 * The V8 heap settings `serve` and `import` start with (docs/operations.md, "Memory"; measured in
 * docs/performance.md). V8 sizes its heap when the process starts: `v8.setFlagsFromString` later
 * changes nothing (measured: the young generation kept its default size), so the CLI replaces its
 * own process with the same command plus these flags (`process.execve`, Node ≥ 22.15: same PID, same
 * stdio and signals) before it does anything else.
 *
 * Not applied when the operator chose for themselves: any V8 heap flag in NODE_OPTIONS or on the node
 * command line, or FEEDBACK_MEMORY_DEFAULTS=off. Not applied on Node 20 either (no `process.execve`;
 * a child process would cost more memory than the flags save): set NODE_OPTIONS there.
 */

/**
 * The flags (MB), measured on Node 24 with 1,000,000 responses (docs/performance.md): semi-spaces of
 * 16 MB (Node 20's default) instead of Node 24's 32 MB, and an old generation limit of 384 MB instead
 * of V8's ~4 GB, which makes V8 collect sooner (its heap growing factor shrinks with the limit). Both
 * processes live on far less: `serve` ~30 MB of heap after a full collection; the import's id tables
 * are typed arrays, outside this limit. 8 MB semi-spaces saved little more and cost more speed.
 */
export const MEMORY_DEFAULT_FLAGS: readonly string[] = ['--max-semi-space-size=16', '--max-old-space-size=384'];

/** The commands that run long or hold much data, and so start with the flags. */
const COMMANDS = new Set(['serve', 'import']);

/** V8 flags that size the heap; one of them set by the operator turns the defaults off. */
export const HEAP_FLAG = /(^|\s)--(max|min)[-_](semi[-_]space|old[-_]space|young[-_]generation|heap)[-_]size\b|(^|\s)--semi[-_]space[-_]growth[-_]factor\b/;

/** Marks the re-executed process, so it never re-executes again. */
export const MEMORY_DEFAULTS_MARK = 'FEEDBACK_MEMORY_DEFAULTS_APPLIED';

export interface ProcessFacts {
  /** process.argv: node, the script, then the command and its arguments. */
  argv: readonly string[];
  /** process.execArgv: node's own flags (e.g. tsx's loader), kept in the new process. */
  execArgv: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  execPath: string;
  /** Whether `process.execve` exists (Node ≥ 22.15 / 23.11, not on Windows). */
  canExecve: boolean;
}

/**
 * The `execve` call that adds MEMORY_DEFAULT_FLAGS, or undefined when the process should go on as
 * it is: another command, already applied, the operator's own heap flags or FEEDBACK_MEMORY_DEFAULTS=off,
 * or no `process.execve`.
 * @returns `{file, args, env}`: args is the whole argv of the new process (args[0] is the node binary)
 */
export function memoryReexec(p: ProcessFacts): { file: string; args: string[]; env: Record<string, string> } | undefined {
  const command = p.argv[2];
  if (command === undefined || !COMMANDS.has(command)) return undefined;
  if (p.env[MEMORY_DEFAULTS_MARK] !== undefined || p.env.FEEDBACK_MEMORY_DEFAULTS === 'off' || !p.canExecve) return undefined;
  if (HEAP_FLAG.test(p.env.NODE_OPTIONS ?? '') || p.execArgv.some((a) => HEAP_FLAG.test(a))) return undefined;
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(p.env)) if (v !== undefined) env[k] = v;
  env[MEMORY_DEFAULTS_MARK] = MEMORY_DEFAULT_FLAGS.join(' ');
  return { file: p.execPath, args: [p.execPath, ...p.execArgv, ...MEMORY_DEFAULT_FLAGS, ...p.argv.slice(1)], env };
}
