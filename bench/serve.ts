/**
 * Child process of bench/run.ts: starts one server and reports its URL over IPC, so the load
 * generator (autocannon, in the parent) never shares an event loop with the server it measures and
 * the parent can read this process's memory from /proc/<pid>/status.
 *
 *   argv[2]: 'app'  the service exactly as `feedback-service serve` starts it (src/server.ts
 *                   startServer: request timeouts, metrics, webhook worker, JSON logs on stdout,
 *                   which the parent sends to /dev/null);
 *            'bare' the baseline of bench/bare-server.ts;
 *            'floor' the stack floor of bench/floor-server.ts (its request log on stdout, also sent to /dev/null).
 *   env: BENCH_DATABASE_URL, BENCH_REDIS_URL, BENCH_LOG (log level of the app, default 'info'),
 *        BENCH_DATABASE_READ_URL (the app's read replicas, DATABASE_READ_URL; default none), BENCH_STREAMS_PER_KEY (the
 *        app's STREAMS_PER_KEY, bench/live-streams.ts), and for the traced app
 *        the OTEL_* variables (OTEL_EXPORTER_OTLP_ENDPOINT: the app exports traces, as `serve` would),
 *        BENCH_WITHOUT_AUDIT=1 (a diagnostic app for bench/floor-cpu.ts only: recordAudit records nothing, so nothing
 *        is sealed either; it shows what the audit trail costs an upsert, and is never how the service runs).
 *   IPC: sends `{url}` once listening, or `{error}`; on the message 'close' closes and exits 0. bench/profile-steps.ts
 *        also sends 'profile-start' (V8's sampling CPU profiler starts, through node:inspector in this process) and
 *        `{profileStop: file}` (it stops and writes the profile, a .cpuprofile as `node --cpu-prof` writes it, to
 *        `file`), answered `{profiled: file}`: a profile of the load alone, without start-up and warm-up.
 */
// First: the traced app's instrumentations must be registered before express, pg and ioredis load (bench/trace-start.ts).
import './trace-start';
import fs from 'node:fs';
import { Session } from 'node:inspector/promises';
import { loadConfig } from '../src/config';
import { startServer } from '../src/server';
import { startBareServer } from './bare-server';
import { startFloorServer } from './floor-server';

export type ServeMessage = { url: string } | { error: string };

/** Messages of bench/profile-steps.ts: start V8's CPU profiler, stop it and write the profile to `profileStop`. */
export type ProfileMessage = 'profile-start' | { profileStop: string };
/** The answer to `{profileStop}` once the profile is written. */
export type ProfiledMessage = { profiled: string };

/** Starts and stops the CPU profiler of this process on ProfileMessages (node:inspector: no flag, no restart). */
function answerProfileMessages(): void {
  let session: Session | undefined;
  process.on('message', (m: unknown) => {
    if (m === 'profile-start' && !session) {
      const s = (session = new Session());
      s.connect();
      void s.post('Profiler.enable').then(() => s.post('Profiler.start'));
    } else if (m !== null && typeof m === 'object' && 'profileStop' in m && session) {
      const s = session;
      session = undefined;
      const file = String((m as { profileStop: unknown }).profileStop);
      void s.post('Profiler.stop').then(({ profile }) => {
        fs.writeFileSync(file, JSON.stringify(profile));
        s.disconnect();
        process.send?.({ profiled: file } satisfies ProfiledMessage);
      });
    }
  });
}

/**
 * The diagnostic app without its audit trail (BENCH_WITHOUT_AUDIT=1): recordAudit becomes a no-op for every caller, as
 * they call it through the module's exports (CommonJS). bench/floor-cpu.ts `--sides app-without-audit`.
 */
function withoutAuditTrail(): void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the exports object itself is what callers read
  const store = require('../src/core/audit/audit.store') as { recordAudit: (...args: unknown[]) => Promise<void> };
  store.recordAudit = () => Promise.resolve();
}

async function main(): Promise<void> {
  const mode = process.argv[2];
  if (mode === 'app' && process.env.BENCH_WITHOUT_AUDIT === '1') withoutAuditTrail();
  const databaseUrl = process.env.BENCH_DATABASE_URL ?? '';
  const redisUrl = process.env.BENCH_REDIS_URL || 'redis://127.0.0.1:6379';
  const s =
    mode === 'bare'
      ? await startBareServer(databaseUrl)
      : mode === 'floor'
        ? await startFloorServer(databaseUrl, redisUrl)
        : await startServer(
            loadConfig(
              {
                databaseUrl,
                databaseReadUrls: process.env.BENCH_DATABASE_READ_URL ? process.env.BENCH_DATABASE_READ_URL.split(',') : [],
                redisUrl,
                logLevel: process.env.BENCH_LOG ?? 'info',
                port: 0,
                host: '127.0.0.1',
                // The dashboard page counts against the public budget per address, which would cap its latency samples.
                authFailuresPerMinute: 1_000_000,
                // Every load connection comes from 127.0.0.1, as from a proxy: no per-address connection cap.
                connectionsPerAddress: 0,
                // bench/live-streams.ts opens its streams with one key.
                ...(process.env.BENCH_STREAMS_PER_KEY ? { streamsPerKey: Number(process.env.BENCH_STREAMS_PER_KEY) } : {}),
              },
              {},
            ),
          );
  answerProfileMessages();
  process.on('message', (m) => {
    if (m === 'close') void s.close().then(() => process.exit(0));
  });
  process.send?.({ url: s.url } satisfies ServeMessage);
}

main().catch((e: unknown) => {
  process.send?.({ error: e instanceof Error ? (e.stack ?? e.message) : String(e) } satisfies ServeMessage);
  process.exit(1);
});
