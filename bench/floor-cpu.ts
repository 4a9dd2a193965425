/**
 * The CPU an upsert (or a list request) costs the app against the stack floor (issue 28; docs/performance.md, "A full
 * 1,000,000 run after the gathered seal"): the app and the floor side by side on a database seeded by
 * `npm run bench -- --keep`, both under the same workload of bench/profile-steps.ts at the same time, round after round.
 * Each round reads, per server, its process's CPU (procs.ts procCpuMicros) and the CPU of ITS PostgreSQL backends (the
 * backends whose client ports are the server's own connections: procClientPorts, pg_stat_activity, /proc/<pid>/stat),
 * and the requests it answered. Before each round every table with dead rows is vacuumed (seed.ts vacuumDeadRows), as
 * in the bench's upsert row.
 *
 *   node dist/bench/floor-cpu.js --database-url URL [--workload upsert|list] [--rounds 4] [--duration 8] [--connections 16]
 *                                [--sides app,floor,app-without-audit,app-v8-defaults]
 *
 * Sides (default `app,floor`): `app` as `serve` runs it (its memory settings), `floor` (bench/floor-server.ts, the same
 * settings), and two diagnostic apps that account for a gap: `app-without-audit` (the app with recordAudit a no-op:
 * bench/serve.ts BENCH_WITHOUT_AUDIT; what the audit trail costs an upsert) and `app-v8-defaults` (the app with V8's own
 * heap sizes; what the memory settings cost).
 *
 * Prints each round's Node and PostgreSQL µs per request per server, then the totals and the floor's CPU over each
 * other side's: the ratio a CPU-bound bench row (app / floor req/s on two cores) tends to. All load at once, so a shared
 * machine's noise falls on all alike (bench/trace-cpu.ts does the same for traces).
 */
import { Command } from 'commander';
import { MEMORY_DEFAULT_FLAGS } from '../src/cli/memory-defaults';
import { createDb, type Db } from '../src/db/connection';
import { runLoad } from './load';
import { procClientPorts, procCpuMicros, serve, type Runtime, type Served } from './procs';
import { workloadOn } from './profile-steps';
import { vacuumDeadRows } from './seed';

interface Options {
  databaseUrl: string;
  workload: 'list' | 'upsert';
  rounds: number;
  duration: number;
  connections: number;
  sides: string;
}

/** How each side is started: server mode and runtime (node flags, environment). */
const SIDES = {
  app: { mode: 'app', runtime: { node: process.execPath, execArgv: MEMORY_DEFAULT_FLAGS } },
  floor: { mode: 'floor', runtime: { node: process.execPath, execArgv: MEMORY_DEFAULT_FLAGS } },
  'app-without-audit': { mode: 'app', runtime: { node: process.execPath, execArgv: MEMORY_DEFAULT_FLAGS, env: { BENCH_WITHOUT_AUDIT: '1' } } },
  'app-v8-defaults': { mode: 'app', runtime: { node: process.execPath, execArgv: [] } },
} as const satisfies Record<string, { mode: 'app' | 'floor'; runtime: Runtime }>;
type SideName = keyof typeof SIDES;

interface Side {
  name: SideName;
  server: Served;
  /** Node µs, PostgreSQL µs and requests summed over the rounds. */
  node: number;
  pg: number;
  requests: number;
}

/** CPU µs of the PostgreSQL backends serving `server`'s connections (PostgreSQL on this machine, port 5432). */
async function backendsCpu(db: Db, server: Served): Promise<number> {
  const ports = procClientPorts(server.pid, 5432);
  const { rows } = (await db.raw('SELECT pid, client_port FROM pg_stat_activity WHERE client_port IS NOT NULL')) as {
    rows: Array<{ pid: number; client_port: number }>;
  };
  return rows.filter((r) => ports.has(r.client_port)).reduce((sum, r) => sum + procCpuMicros(r.pid), 0);
}

async function main(): Promise<void> {
  const o = new Command()
    .name('floor-cpu')
    .description('CPU per request of the app and the stack floor, side by side under the same load (docs/performance.md).')
    .requiredOption('--database-url <url>', 'a database seeded by `npm run bench -- --keep` (PostgreSQL on this machine)')
    .option('--workload <w>', 'upsert or list', 'upsert')
    .option('--rounds <n>', 'rounds of load', Number, 4)
    .option('--duration <s>', 'seconds of each round', Number, 8)
    .option('--connections <n>', 'autocannon connections per server', Number, 16)
    .option('--sides <list>', `comma-separated, among ${Object.keys(SIDES).join(', ')}; must hold floor`, 'app,floor')
    .parse()
    .opts<Options>();
  const names = o.sides.split(',').map((n) => n.trim());
  const unknown = names.filter((n) => !(n in SIDES));
  if (unknown.length > 0 || !names.includes('floor'))
    throw new Error(`--sides: ${unknown.join(', ') || 'floor is missing'}; known: ${Object.keys(SIDES).join(', ')}`);
  const w = await workloadOn(o.databaseUrl, o.workload);
  const db = createDb({ databaseUrl: o.databaseUrl, dataDir: '.data', poolMax: 2 });
  const sides: Side[] = [];
  try {
    for (const name of names as SideName[]) {
      const { mode, runtime } = SIDES[name];
      sides.push({ name, server: await serve(mode, o.databaseUrl, runtime), node: 0, pg: 0, requests: 0 });
    }
    await Promise.all(sides.map((s) => runLoad(s.name, s.server.url, w, 3, o.connections)));
    for (let round = 1; round <= o.rounds; round++) {
      await vacuumDeadRows(db);
      const before = await Promise.all(sides.map(async (s) => ({ node: procCpuMicros(s.server.pid), pg: await backendsCpu(db, s.server) })));
      const runs = await Promise.all(sides.map((s) => runLoad(s.name, s.server.url, w, o.duration, o.connections)));
      const line: string[] = [];
      for (const [i, s] of sides.entries()) {
        const r = runs[i]!;
        if (r.non2xx > 0 || r.errors > 0) throw new Error(`${s.name}: statuses ${JSON.stringify(r.statuses)}, ${r.errors} errors`);
        const node = procCpuMicros(s.server.pid) - before[i]!.node;
        const pg = (await backendsCpu(db, s.server)) - before[i]!.pg;
        Object.assign(s, { node: s.node + node, pg: s.pg + pg, requests: s.requests + r.requests });
        line.push(`${s.name} ${r.rps.toFixed(0)} req/s, Node ${(node / r.requests).toFixed(0)} µs, PostgreSQL ${(pg / r.requests).toFixed(0)} µs`);
      }
      process.stdout.write(`round ${round}: ${line.join('; ')}\n`);
    }
    const sum = (s: Side) => (s.node + s.pg) / s.requests;
    for (const s of sides) {
      process.stdout.write(
        `${s.name}: Node ${(s.node / s.requests).toFixed(0)} + PostgreSQL ${(s.pg / s.requests).toFixed(0)} = ${sum(s).toFixed(0)} µs per request\n`,
      );
    }
    const floor = sides.find((s) => s.name === 'floor')!;
    for (const s of sides.filter((s) => s !== floor)) {
      process.stdout.write(`floor / ${s.name} CPU per request: ${(sum(floor) / sum(s)).toFixed(3)}\n`);
    }
  } finally {
    await Promise.all(sides.map((s) => s.server.stop()));
    await db.destroy();
  }
}

if (require.main === module) {
  main().catch((e: unknown) => {
    process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  });
}
