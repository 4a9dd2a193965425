/**
 * What the CLI does before it loads the service (the first import of main.ts, so it runs before express, pg, ioredis or
 * any module of ours but config is required), only when main.ts is the program being run:
 * 1. `serve` and `import` restart once with the heap settings of docs/operations.md ("Memory"; memory-defaults.ts).
 * 2. `serve`, `worker` and `demo` start the OpenTelemetry traces when `OTEL_EXPORTER_OTLP_ENDPOINT` is set
 *    (docs/operations.md, "Traces"): src/platform/tracing.ts registers the HTTP, pg and ioredis instrumentations,
 *    which patch those modules as they are first required, so it must come first. It is required here and nowhere else:
 *    with the variable unset no OpenTelemetry module is loaded. On a Node older than the packages support
 *    (tracing-state.ts, TRACING_MIN_NODE) nothing is loaded either, and the start-up log carries one warning.
 */
import path from 'node:path';
import { tracesRequested } from '../config';
import { nodeSupportsTracing, setTracingState } from '../platform/tracing-state';
import { memoryReexec } from './memory-defaults';

/** The commands that serve requests or deliver webhooks, and so export traces. */
const TRACED_COMMANDS = new Set(['serve', 'worker', 'demo']);

function restartWithMemoryDefaults(): void {
  // @types/node follows Node 20, which has no process.execve.
  const { execve } = process as { execve?: (file: string, args: string[], env: Record<string, string>) => never };
  const reexec = memoryReexec({
    argv: process.argv,
    execArgv: process.execArgv,
    env: process.env,
    execPath: process.execPath,
    canExecve: typeof execve === 'function',
  });
  if (reexec) execve!.call(process, reexec.file, reexec.args, reexec.env);
}

/**
 * Starts the traces for `command` when it is one that serves or delivers and they are asked for (config.ts
 * tracesRequested), or records why not (tracing-state.ts). Also the first thing bench/serve.ts does for its traced app.
 */
export function startTracesFor(command: string | undefined): void {
  if (command === undefined || !TRACED_COMMANDS.has(command)) return;
  const setting = tracesRequested(process.env);
  if (!setting) return;
  if (!nodeSupportsTracing(process.versions.node)) {
    setTracingState({ state: 'unsupported', endpoint: setting.endpoint, node: process.versions.node });
    return;
  }
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when traces are asked for, and before express, pg and ioredis are
  const { startTracing } = require('../platform/tracing') as typeof import('../platform/tracing');
  startTracing(setting);
}

// main.ts under node (dist/src/cli/main.js) or tsx (src/cli/main.ts) is the program: not when a test imports it.
if (require.main?.filename === path.join(__dirname, `main${path.extname(__filename)}`)) {
  restartWithMemoryDefaults();
  startTracesFor(process.argv[2]);
}
