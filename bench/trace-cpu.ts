/**
 * The CPU a traced request costs (issue 32; docs/performance.md, "Traces (issue 32)"): the app without traces and the
 * app with them (every request sampled, exporting over OTLP/HTTP to `--otlp`, a receiver you run) side by side on a
 * database seeded by `npm run bench -- --keep`, both under the Style A list load of bench/profile-steps.ts at the same
 * time, round after round. Each round reads each process's CPU time (procs.ts procCpuMicros: user and system time of
 * all its threads, V8's GC helpers included) and the requests it answered.
 *
 *   node dist/bench/trace-cpu.js --database-url URL --otlp URL [--rounds 10] [--duration 6] [--connections 12]
 *                                [--variant NAME:OTEL_X=v,OTEL_Y=w …]
 *
 * Both apps load at once, so a shared machine's load falls on both alike; in runs one after the other (as
 * profile-steps.ts makes them) the same app's CPU per request swung by a third between runs, more than tracing
 * adds. `--variant` adds a traced app with more `OTEL_*` settings (e.g. `bsp:OTEL_BSP_MAX_EXPORT_BATCH_SIZE=2048`) to
 * compare settings in the same rounds. Prints each round's µs per request, then each app's total over all rounds and
 * the untraced app's CPU per request over its own: the ratio a CPU-bound bench row (traces on / off) tends to.
 */
import { Command } from 'commander';
import { MEMORY_DEFAULT_FLAGS } from '../src/cli/memory-defaults';
import { runLoad } from './load';
import { procCpuMicros, serve, type Served } from './procs';
import { workloadOn } from './profile-steps';

interface Contender {
  name: string;
  app: Served;
  /** CPU µs and requests of every round. */
  rounds: Array<{ cpu: number; requests: number }>;
}

interface Options {
  databaseUrl: string;
  otlp: string;
  rounds: number;
  duration: number;
  connections: number;
  variant: string[];
}

/** `name:K=v,K2=w` → [name, {K: v, K2: w}]. */
function parseVariant(spec: string): [string, Record<string, string>] {
  const [name, settings = ''] = spec.split(/:(.*)/s);
  const env = Object.fromEntries(
    settings
      .split(',')
      .filter(Boolean)
      .map((kv) => kv.split(/=(.*)/s).slice(0, 2) as [string, string]),
  );
  return [name!, env];
}

/** The apps: untraced, traced as the bench row runs it, and one per `--variant`. */
async function startContenders(o: Options): Promise<Contender[]> {
  const traced = { OTEL_EXPORTER_OTLP_ENDPOINT: o.otlp, OTEL_TRACES_SAMPLER: 'always_on', OTEL_SERVICE_NAME: 'feedback-trace-cpu' };
  const envs: Array<[string, Record<string, string> | undefined]> = [
    ['untraced', undefined],
    ['traced', traced],
    ...o.variant.map(parseVariant).map(([name, env]): [string, Record<string, string>] => [name, { ...traced, ...env }]),
  ];
  const contenders: Contender[] = [];
  for (const [name, env] of envs) {
    const app = await serve('app', o.databaseUrl, { node: process.execPath, execArgv: MEMORY_DEFAULT_FLAGS, ...(env ? { env } : {}) });
    contenders.push({ name, app, rounds: [] });
  }
  return contenders;
}

const perRequest = (r: { cpu: number; requests: number }) => (r.requests === 0 ? NaN : r.cpu / r.requests);

async function main(): Promise<void> {
  const o = new Command()
    .name('trace-cpu')
    .description('CPU per request of the app with and without traces, side by side under the same load (docs/performance.md).')
    .requiredOption('--database-url <url>', 'a database seeded by `npm run bench -- --keep`')
    .requiredOption('--otlp <url>', 'the OTLP/HTTP endpoint the traced apps export to (a receiver you run)')
    .option('--rounds <n>', 'rounds of load', Number, 10)
    .option('--duration <s>', 'seconds of each round', Number, 6)
    .option('--connections <n>', 'autocannon connections per app', Number, 12)
    .option('--variant <spec...>', 'another traced app: NAME:OTEL_X=v,OTEL_Y=w', [])
    .parse()
    .opts<Options>();
  const w = await workloadOn(o.databaseUrl, 'list');
  const contenders = await startContenders(o);
  try {
    for (const c of contenders) await runLoad(c.name, c.app.url, w, 5, o.connections);
    for (let round = 1; round <= o.rounds; round++) {
      await Promise.all(
        contenders.map(async (c) => {
          const cpu0 = procCpuMicros(c.app.pid);
          const r = await runLoad(c.name, c.app.url, w, o.duration, o.connections);
          if (r.non2xx > 0 || r.errors > 0) throw new Error(`${c.name}: statuses ${JSON.stringify(r.statuses)}, ${r.errors} errors`);
          c.rounds.push({ cpu: procCpuMicros(c.app.pid) - cpu0, requests: r.requests });
        }),
      );
      process.stdout.write(`round ${round}: ${contenders.map((c) => `${c.name} ${perRequest(c.rounds.at(-1)!).toFixed(0)} µs`).join(', ')}\n`);
    }
    const total = (c: Contender) => perRequest(c.rounds.reduce((a, r) => ({ cpu: a.cpu + r.cpu, requests: a.requests + r.requests }), { cpu: 0, requests: 0 }));
    const base = total(contenders[0]!);
    for (const c of contenders) {
      process.stdout.write(`${c.name}: ${total(c).toFixed(0)} µs CPU per request; untraced / ${c.name} = ${(base / total(c)).toFixed(3)}\n`);
    }
  } finally {
    for (const c of contenders) await c.app.stop();
  }
}

if (require.main === module) {
  main().catch((e: unknown) => {
    process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  });
}
