/**
 * Load generation for bench/run.ts: autocannon runs of one workload against one server, and
 * interleaved rounds of several contenders (app, bare, page 1, page 5000…) so that drift on a shared
 * machine (other processes, autovacuum, page cache) spreads over all of them instead of favouring
 * whichever ran last. Figures are requests per second (autocannon's mean of per-second counts) and
 * latencies in milliseconds.
 */
import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';

/** One kind of request, the same for every server it is run against. */
export interface Workload {
  name: string;
  method: 'GET' | 'POST';
  /** Path and query, e.g. `/api/v1/workspaces/ws_1/responses?limit=20`. */
  path: string;
  headers: Record<string, string>;
  /** For POST: a new body per request; `run` distinguishes the runs (e.g. fresh ids to create). */
  body?: (n: number, run: string) => string;
  /** The status every answer must have (a polling client's 304); absent, any 2xx. */
  status?: number;
}

/** How many of a run's answers `w` does not expect (any but `w.status`, else non-2xx), errors included. */
export function unexpectedAnswers(run: LoadRun, w: Workload): number {
  if (w.status === undefined) return run.non2xx + run.errors;
  return run.errors + Object.entries(run.statuses).reduce((n, [status, count]) => n + (status === String(w.status) ? 0 : count), 0);
}

export interface LoadRun {
  workload: string;
  server: string;
  /** Requests per second: mean of autocannon's per-second samples. */
  rps: number;
  requests: number;
  latencyP50: number;
  latencyP99: number;
  /** Answers outside 2xx (each is a failure of the run). */
  non2xx: number;
  /** Connection errors, timeouts included. */
  errors: number;
  /** Answers per HTTP status, e.g. {"200": 5120, "201": 5119}. */
  statuses: Record<string, number>;
}

/**
 * Runs `workload` against `url` for `duration` seconds with `connections` connections; `server` is
 * the label the result carries (e.g. `app`, `bare`).
 * @throws when autocannon itself fails (e.g. the server refuses connections)
 */
export async function runLoad(server: string, url: string, w: Workload, duration: number, connections: number): Promise<LoadRun> {
  const run = randomBytes(4).toString('hex');
  let n = 0;
  const request: autocannon.Request = { method: w.method, path: w.path, headers: w.headers };
  if (w.body) {
    const body = w.body;
    request.setupRequest = (req) => ({ ...req, body: body(n++, run) });
  }
  // A 30 s request timeout (autocannon's default is 10 s): a deep page under 32 connections on 2 cores
  // may queue for seconds; slow is a figure, only a lost answer is a failure.
  const r = (await autocannon({ url, connections, duration, timeout: 30, requests: [request] })) as unknown as autocannon.Result;
  const statuses: Record<string, number> = {};
  for (const [code, s] of Object.entries(r.statusCodeStats ?? {})) statuses[code] = s.count ?? 0;
  return {
    workload: w.name,
    server,
    rps: r.requests.average,
    requests: r.requests.total,
    latencyP50: r.latency.p50,
    latencyP99: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
    statuses,
  };
}

export interface Contender {
  /** Label in the report, e.g. `app` or `bare`. */
  label: string;
  url: string;
  workload: Workload;
}

export interface Interleaved {
  label: string;
  runs: LoadRun[];
  /** Median requests/s over the rounds. */
  medianRps: number;
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length === 0 ? NaN : s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/**
 * A warm-up run per contender (`warmup` seconds, not counted), then `rounds` rounds in which every
 * contender runs once; the order rotates by one each round (A B, B A, A B…) so neither always goes
 * first. A warm-up with a non-2xx answer or an error throws at once: the workload is wrong, not slow
 * (before any load, bench/run.ts also checks one answer of each workload by hand).
 * @param opts.between run before every measured run, not timed (bench/run.ts: the VACUUM autovacuum would have run).
 * @throws Error naming the contender and its statuses when a warm-up answer is not 2xx
 */
export async function interleave(
  contenders: Contender[],
  opts: { rounds: number; duration: number; warmup: number; connections: number; log: (line: string) => void; between?: () => Promise<void> },
): Promise<Interleaved[]> {
  for (const c of contenders) {
    const w = await runLoad(c.label, c.url, c.workload, opts.warmup, opts.connections);
    // No answer at all is allowed: a deep page under 32 connections may take longer than the warm-up.
    if (unexpectedAnswers(w, c.workload) > 0) {
      throw new Error(
        `${c.workload.name} on ${c.label}: warm-up got ${unexpectedAnswers(w, c.workload)} unexpected answers or errors of ${w.requests} (statuses ${JSON.stringify(w.statuses)})`,
      );
    }
  }
  const runs = new Map<string, LoadRun[]>(contenders.map((c) => [c.label, []]));
  for (let round = 0; round < opts.rounds; round++) {
    for (let i = 0; i < contenders.length; i++) {
      const c = contenders[(i + round) % contenders.length]!;
      await opts.between?.();
      const r = await runLoad(c.label, c.url, c.workload, opts.duration, opts.connections);
      runs.get(c.label)!.push(r);
      opts.log(
        `  round ${round + 1}/${opts.rounds} ${c.workload.name} on ${c.label}: ${r.rps.toFixed(0)} req/s, p99 ${r.latencyP99} ms, statuses ${JSON.stringify(r.statuses)}${r.errors ? `, ${r.errors} errors` : ''}`,
      );
    }
  }
  return contenders.map((c) => {
    const rs = runs.get(c.label)!;
    return { label: c.label, runs: rs, medianRps: median(rs.map((r) => r.rps)) };
  });
}
