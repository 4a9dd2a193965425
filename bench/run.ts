/**
 * `npm run bench`: measures every target of issue 11 in ONE run, on one seeded database, side by
 * side with the baseline of bench/bare-server.ts and the stack floor of bench/floor-server.ts (the
 * app's own packages, express, the validator, knex, the Redis limiter and pino, serving the same two
 * operations with the core's SQL, and nothing of the service's own work), and prints a Markdown table
 * with a verdict per target (also written to bench/results/node<major>.md, one file per runtime).
 * See docs/performance.md.
 *
 * The servers and the import run on `--node` (or BENCH_NODE; default: the node running the bench),
 * with the memory settings the CLI applies (src/cli/memory-defaults.ts, or `--memory-flags`) and again
 * with V8's defaults: the list, the upsert, the peak RSS and the import are measured both ways. The
 * floor runs with the memory settings (as the app it is compared with), the bare server with V8's defaults.
 *
 * On a fresh database `fs_bench_*` (bench/seed.ts, `--responses`, default 1,000,000) or a kept one
 * (`--database-url`):
 *   1. Style A list (`form_id` + `score_gte`, limit 20): app vs bare vs floor, interleaved rounds, median
 *      req/s, ratios app / bare, app / floor and floor / bare; and the same app with traces on (every request
 *      sampled, exported over OTLP/HTTP to a sink in this process, traceSink) / the app: issue 32's ≥ 0.85x;
 *   1b. (issue 31 item 4) a polling client: the same list with its unchanged `If-None-Match` (every answer a 304
 *      that runs no list query) vs the bare server's full list, interleaved (target above 1.0x);
 *   2. Style A upsert of one row (POST rows with `data.id`; half updates of 10,000 existing ids,
 *      half new ids): app vs bare vs floor, interleaved, the same ratios;
 *   3. Style B page 5,000 vs page 1 with `form_id` + `filter=score in [7,8,9,10]`, interleaved, ratio;
 *   3b. (issue 29) the plain Style A list of the largest form vs the same list with `answer=q_plan:opt_pro`, a
 *      Style B page 1 with `filter=answers.q_score >= 9` and a search first page `q=slow`, interleaved on the app;
 *   4. peak RSS of a fresh app process under 64 connections (list and upsert at once);
 *   5. import of N responses (bench/import-run.ts; `--skip-import`);
 * then the details: latency of single requests, per-question analytics flatness, exports
 * (`--skip-export`) and the query plans of the measured lists. The database is dropped unless `--keep`.
 * Last, the read-replica rows (bench/replica-run.ts, `--replica-responses`, default 200,000; `--skip-replica`):
 * a primary and a streaming replica of their own, the app with and without DATABASE_READ_URL.
 * `--replica-only` runs only those rows and writes bench/results/replica-node<major>.md.
 *
 * Every answer of every load run must be 2xx: a warm-up that is not fails the run at once, a
 * measured run that is not makes its row "invalid" and the process exit 1 after the report.
 * Servers run in child processes (bench/serve.ts); autocannon runs here. Never part of the jest suite.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import { HEAP_FLAG, MEMORY_DEFAULT_FLAGS } from '../src/cli/memory-defaults';
import { createApiKey } from '../src/core/api-keys/create-api-key';
import { importFixture } from '../src/core/import/importer';
import { encodeCursor } from '../src/core/query/keyset';
import { parseSort, sortSignature } from '../src/core/query/sort';
import { listResponsesKeyset, listResponsesOffset, RESPONSE_ID_FIELD, RESPONSE_SORT_FIELDS } from '../src/core/responses/responses.store';
import { createDb, type Db } from '../src/db/connection';
import { nodeSupportsTracing, TRACING_MIN_NODE } from '../src/platform/tracing-state';
import { explainWhat, measureExport, measureLatency, type ExportRun, type Latency, type Plan } from './details';
import { measureImport, sentimentRatio, withAndWithoutSentiment, type ImportRun, type ImportVariant } from './import-run';
import { measureReplica } from './replica-run';
import { interleave, median, runLoad, unexpectedAnswers, type Interleaved, type LoadRun, type Workload } from './load';
import { serve, watchMemory, type Runtime, type ServeMode, type Served } from './procs';
import { DEFAULT_SERVER_URL, dropBenchDatabase, seed, vacuumDeadRows, withDatabase } from './seed';

interface Options {
  responses: number;
  duration: number;
  rounds: number;
  warmup: number;
  connections: number;
  rssConnections: number;
  pageLimit?: number;
  samples: number;
  offsetSamples: number;
  databaseUrl?: string;
  keep: boolean;
  skipImport: boolean;
  skipExport: boolean;
  skipDetails: boolean;
  node: string;
  memoryFlags: string;
  replicaResponses: number;
  skipReplica: boolean;
  replicaOnly: boolean;
}

const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);
const int = (v: string) => Number.parseInt(v, 10);
const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** Rows of the upsert table that exist before the load: every other request updates one of them. */
const UPSERT_POOL = 10_000;
const LIST_SCORE_GTE = 9;
const DEFAULTS = 'app, V8 defaults';
const TRACED = 'app, traces on';
const FLOOR = 'floor';
const PAGE_FILTER = 'score in [7,8,9,10]';
const DEEP_PAGE = 5000;
const PLANS = ['free', 'basic', 'pro', 'enterprise'];
/** Issue 29 item 5: a choice answer (Style A), a rating answer (Style B; the bench forms' rating question is the NPS `q_score`) and a search. */
const ANSWER_CHOICE = 'q_plan:opt_pro';
const ANSWER_PAGE_FILTER = 'answers.q_score >= 9';
const SEARCH_Q = 'slow';

/**
 * The issue 29 rows: each list beside the plain Style A list of the same form in the same interleaved run, as a
 * throughput ratio (≥ 0.5x) and a median-p50 latency ratio (≤ 2x): "within 2x".
 */
function answerRows(runs: Interleaved[]): TargetRow[] {
  const [plain, ...others] = runs;
  const p50 = (x: Interleaved) => median(x.runs.map((r) => r.latencyP50));
  return others.map((r) => {
    const name = r.runs[0]?.workload ?? r.label;
    const rps = r.medianRps / plain!.medianRps;
    const lat = p50(r) / p50(plain!);
    return {
      what: `${name}, req/s and p50`,
      app: `${fmt(r.medianRps)} req/s, p50 ${fmt(p50(r), 1)} ms`,
      baseline: `plain list ${fmt(plain!.medianRps)} req/s, p50 ${fmt(p50(plain!), 1)} ms`,
      ratio: `${rps.toFixed(2)}x req/s, ${lat.toFixed(2)}x p50`,
      target: 'within 2x of the plain list (≥ 0.5x req/s, ≤ 2x p50)',
      verdict: verdict(rps >= 0.5 && lat <= 2, problemOf(runsOf(plain!, r))),
    };
  });
}

/** The peak RSS of one fresh server process under the mixed list + upsert load. */
interface PeakRun {
  label: string;
  runs: LoadRun[];
  peakMb: number;
}

/** One line of the targets table. */
interface TargetRow {
  what: string;
  app: string;
  baseline: string;
  ratio: string;
  target: string;
  verdict: string;
}

/** `met` / `not met`, or `invalid` when a load run behind the figure failed: `problem` says how. */
function verdict(ok: boolean, problem?: string): string {
  if (problem) return `**invalid** (${problem})`;
  return ok ? 'met' : '**not met**';
}

/**
 * What failed in some load runs: answers outside 2xx and errors (timeouts included); with
 * `needAnswers`, also a run that got no answer at all (a slow comparison run is just a low figure,
 * but the peak-RSS load must really run both workloads).
 */
function problemOf(runs: LoadRun[], needAnswers = false): string | undefined {
  const bad = runs.reduce((a, r) => a + r.non2xx + r.errors, 0);
  const empty = needAnswers ? runs.filter((r) => r.requests === 0).map((r) => r.workload) : [];
  const parts = [bad > 0 ? `${fmt(bad)} non-2xx or errors` : '', empty.length > 0 ? `no answer to ${empty.join(', ')}` : ''];
  return parts.filter(Boolean).join('; ') || undefined;
}

const runsOf = (...xs: Interleaved[]) => xs.flatMap((x) => x.runs);

function loadRows(runs: Interleaved[]): string[] {
  return runs.flatMap((c) =>
    c.runs.map(
      (r, i) =>
        `| ${r.workload} | ${c.label} | ${i + 1} | ${fmt(r.rps)} | ${r.latencyP50} | ${r.latencyP99} | ${fmt(r.requests)} | ${Object.entries(r.statuses)
          .map(([s, n]) => `${s}: ${fmt(n)}`)
          .join(', ')} | ${r.errors} |`,
    ),
  );
}

/**
 * The key structure of an answer: its top-level keys, those of `meta` and `links`, and those of its first item
 * (`data[0]`, or `data` itself for one resource), e.g. `data,links,meta,request_id | meta: has_more,limit | …`.
 */
function shapeOf(body: { data?: unknown; meta?: unknown; links?: unknown }): string {
  const keys = (x: unknown) => (x !== null && typeof x === 'object' ? Object.keys(x).sort().join(',') : String(x));
  const item: unknown = Array.isArray(body.data) ? body.data[0] : body.data;
  return `${keys(body)} | meta: ${keys(body.meta)} | links: ${keys(body.links)} | item: ${keys(item)}`;
}

/** Fetches once and checks the status; returns the parsed body. */
async function probe(
  url: string,
  init: RequestInit,
  expect: number[],
  what: string,
): Promise<{ data?: unknown; meta?: Record<string, unknown>; links?: Record<string, unknown> }> {
  const res = await fetch(url, init);
  const text = await res.text();
  if (!expect.includes(res.status))
    throw new Error(`${what}: ${init.method ?? 'GET'} ${url} → ${res.status} (expected ${expect.join('/')}) ${text.slice(0, 500)}`);
  return JSON.parse(text) as { data?: unknown; meta?: Record<string, unknown>; links?: Record<string, unknown> };
}

async function main(): Promise<void> {
  const program = new Command()
    .name('bench')
    .description('Measure every target of issue 11 in one run against a bare node:http + pg server.')
    .option('--responses <n>', 'responses to seed (and to import)', int, 1_000_000)
    .option('--duration <s>', 'seconds per measured load run', int, 10)
    .option('--rounds <n>', 'interleaved rounds per comparison', int, 3)
    .option('--warmup <s>', 'seconds of the warm-up run per contender', int, 3)
    .option('--connections <n>', 'autocannon connections of the comparisons', int, 32)
    .option('--rss-connections <n>', 'connections of the peak-RSS load (half list, half upsert)', int, 64)
    .option(
      '--page-limit <n>',
      'Style B `limit` of the page 1 / page 5000 row (default 20, as the Style A list: at 1M, page 5000 is then a real page, rows 99,981-100,000 of ~224,000 matches; the API default 50 would be past the last page)',
      int,
      20,
    )
    .option('--samples <n>', 'requests per latency figure', int, 50)
    .option('--offset-samples <n>', 'requests per latency figure of the page=5000 cases', int, 15)
    .option('--database-url <url>', 'reuse this already seeded bench database instead of seeding')
    .option('--keep', 'keep the seeded database', false)
    .option('--skip-import', 'skip the import row', false)
    .option('--skip-export', 'skip the export measurements', false)
    .option('--skip-details', 'skip latency, analytics, exports and plans (targets only)', false)
    .option(
      '--node <path>',
      'node binary of the servers and the import (default: BENCH_NODE, else the node running the bench)',
      process.env.BENCH_NODE || process.execPath,
    )
    .option('--replica-responses <n>', 'responses seeded for the read-replica rows (on a primary and replica of their own)', int, 200_000)
    .option('--skip-replica', 'skip the read-replica rows', false)
    .option('--replica-only', 'run only the read-replica rows (report: bench/results/replica-node<major>.md)', false)
    .option(
      '--memory-flags <flags>',
      'the memory settings measured against V8 defaults (default: what `serve` and `import` apply)',
      MEMORY_DEFAULT_FLAGS.join(' '),
    )
    .parse();
  const o = program.opts<Options>();
  if (HEAP_FLAG.test(process.env.NODE_OPTIONS ?? '')) {
    throw new Error('NODE_OPTIONS sets V8 heap flags: they would apply to both sides of the memory comparison; unset them and use --memory-flags');
  }
  const [nodeVersion, execve] = execFileSync(o.node, ['-p', 'process.version + " " + typeof process.execve'], { encoding: 'utf8' }).trim().split(' ');
  const memoryFlags = o.memoryFlags.split(/\s+/).filter(Boolean);
  const tracesMeasured = nodeSupportsTracing(nodeVersion!.replace(/^v/, ''));
  const withSettings: Runtime = { node: o.node, execArgv: memoryFlags };
  const v8Defaults: Runtime = { node: o.node, execArgv: [] };
  // The CLI adds its own defaults where node has process.execve: the import then runs as an operator starts it.
  const cliApplies = execve === 'function' && o.memoryFlags === MEMORY_DEFAULT_FLAGS.join(' ');
  // With and without sentiment side by side (issue 29: with ≥ 0.9x without), then V8's own heap sizes.
  const importVariants: ImportVariant[] = [
    ...withAndWithoutSentiment({ label: 'memory settings', node: o.node, nodeArgs: cliApplies ? [] : memoryFlags, env: {} }),
    { label: 'V8 defaults', node: o.node, nodeArgs: [], env: { FEEDBACK_MEMORY_DEFAULTS: 'off' } },
  ];
  log(`servers and import on ${o.node} (${nodeVersion}); memory settings: ${memoryFlags.join(' ')}${cliApplies ? ' (the import gets them from the CLI)' : ''}`);
  const replicaRun = () =>
    measureReplica({
      responses: o.replicaResponses,
      duration: o.duration,
      rounds: o.rounds,
      warmup: o.warmup,
      connections: o.connections,
      runtime: withSettings,
      log,
    });
  if (o.replicaOnly) {
    const started = Date.now();
    const r = await replicaRun();
    const head = [
      '# feedback-service benchmark: read replicas',
      '',
      `Generated by \`npm run bench -- ${process.argv.slice(2).join(' ')}\` (bench/run.ts, bench/replica-run.ts) on ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC in ${((Date.now() - started) / 1000).toFixed(0)} s; ${os.cpus().length} CPU cores, Node ${nodeVersion} for the servers; load average (1 min) at the end ${os.loadavg()[0]!.toFixed(2)}.`,
      '',
    ];
    writeReport(`replica-node${nodeVersion!.replace(/^v/, '').split('.')[0]}.md`, [...head, ...r.lines].join('\n') + '\n', r.failed);
    return;
  }
  const serverUrl = process.env.DATABASE_URL || DEFAULT_SERVER_URL;
  const started = Date.now();
  const loadBefore = os.loadavg();

  let databaseUrl: string;
  let databaseName: string | undefined;
  let seededIn: number | undefined;
  let keyFromSeed: string | undefined;
  if (o.databaseUrl) {
    databaseUrl = o.databaseUrl;
  } else {
    const s = await seed({ responses: o.responses, serverUrl });
    databaseUrl = s.databaseUrl;
    databaseName = s.databaseName;
    seededIn = s.seconds;
    keyFromSeed = s.apiKey;
    log(`seeded ${fmt(s.responses)} responses in ${s.seconds.toFixed(1)} s`);
  }
  const db = createDb({ databaseUrl, dataDir: '.data', poolMax: 2 });
  let report: string;
  let failed: boolean;
  try {
    const ws = (await db('workspaces').where('id', 'like', 'ws_bench%').orderBy('created_at', 'desc').first('id')) as { id: string } | undefined;
    if (!ws) throw new Error('no ws_bench* workspace in this database: seed it with bench/seed.ts first');
    const workspaceId = ws.id;
    // The limiter still counts every request in Redis; its budget is far above what 2 cores can send.
    const key = keyFromSeed ?? (await createApiKey(db, { name: 'bench', workspaceIds: [workspaceId], rateLimitPerMinute: 10_000_000 })).secret;
    const forms = (await db('response_counts')
      .where('workspace_id', workspaceId)
      .groupBy('form_id')
      .select('form_id', db.raw('sum(responses)::bigint AS n'))
      .orderBy('n', 'desc')) as Array<{ form_id: string; n: string }>;
    const total = forms.reduce((a, f) => a + Number(f.n), 0);
    const bigForm = forms[0]!.form_id;
    log(`workspace ${workspaceId}: ${fmt(total)} responses in ${forms.length} forms`);

    // The upsert table: UPSERT_POOL rows c-0 … c-9999 (a fresh table per run, also on a kept database).
    const datatableId = `tbl_bench${Date.now().toString(36)}`;
    await importFixture(db, {
      datatables: [
        {
          id: datatableId,
          workspace_id: workspaceId,
          name: 'Bench customers',
          fields: [
            { name: 'id', type: 'string' },
            { name: 'plan', type: 'string' },
            { name: 'seats', type: 'number' },
          ],
          rows: Array.from({ length: UPSERT_POOL }, (_, i) => ({ data: { id: `c-${i}`, plan: PLANS[i % 4], seats: 1 + (i % 50) } })),
        },
      ],
    });

    const base = `/api/v1/workspaces/${workspaceId}`;
    const auth = { 'X-API-Key': key };
    const pageQuery = (page: number) =>
      `${base}/responses?page=${page}&form_id=${bigForm}&filter=${encodeURIComponent(PAGE_FILTER)}${o.pageLimit ? `&limit=${o.pageLimit}` : ''}`;
    const listW: Workload = {
      name: 'Style A list',
      method: 'GET',
      path: `${base}/responses?form_id=${bigForm}&score_gte=${LIST_SCORE_GTE}&limit=20`,
      headers: auth,
    };
    const upsertW: Workload = {
      name: 'Style A upsert',
      method: 'POST',
      path: `${base}/datatables/${datatableId}/rows`,
      headers: { ...auth, 'content-type': 'application/json' },
      // Even requests update one of the existing ids, odd ones create a new id (unique per run).
      body: (n, run) => JSON.stringify({ data: { id: n % 2 === 0 ? `c-${(n >> 1) % UPSERT_POOL}` : `n-${run}-${n}`, plan: PLANS[n % 4], seats: n % 97 } }),
    };
    const page1W: Workload = { name: 'Style B page 1', method: 'GET', path: pageQuery(1), headers: auth };
    const styleA = { ...auth, 'X-API-Style': 'A' };
    const answerWs: Workload[] = [
      { name: 'Style A list, plain (`form_id`, limit 20)', method: 'GET', path: `${base}/responses?form_id=${bigForm}&limit=20`, headers: styleA },
      {
        name: `Style A list, \`answer=${ANSWER_CHOICE}\``,
        method: 'GET',
        path: `${base}/responses?form_id=${bigForm}&answer=${encodeURIComponent(ANSWER_CHOICE)}&limit=20`,
        headers: styleA,
      },
      {
        name: `Style B page 1, \`filter=${ANSWER_PAGE_FILTER}\` (with filtered_total)`,
        method: 'GET',
        path: `${base}/responses?form_id=${bigForm}&filter=${encodeURIComponent(ANSWER_PAGE_FILTER)}&limit=20`,
        headers: auth,
      },
      {
        name: `Search first page, \`q=${SEARCH_Q}\` (Style A, with excerpts)`,
        method: 'GET',
        path: `${base}/responses?form_id=${bigForm}&q=${SEARCH_Q}&limit=20`,
        headers: styleA,
      },
    ];
    const pageDeepW: Workload = { name: `Style B page ${DEEP_PAGE}`, method: 'GET', path: pageQuery(DEEP_PAGE), headers: auth };
    const lo = { rounds: o.rounds, duration: o.duration, warmup: o.warmup, connections: o.connections, log };

    // ---- 1-3: app, bare and the stack floor side by side
    log('starting the app, the bare server and the stack floor…');
    // One after the other: the app's start (2 s database connect timeout) suffers from a concurrent start.
    const servers: Served[] = [];
    const startOne = (mode: ServeMode, runtime: Runtime) =>
      serve(mode, databaseUrl, runtime).then(
        (s) => (servers.push(s), s),
        async (e: unknown) => {
          await Promise.all(servers.map((x) => x.stop()));
          throw e;
        },
      );
    const app = await startOne('app', withSettings);
    const appDefaults = await startOne('app', v8Defaults);
    const bare = await startOne('bare', v8Defaults);
    // With the app's memory settings: app / floor then compares the same runtime.
    const floor = await startOne('floor', withSettings);
    // The same app exporting every request's trace (100 % sampled) to a sink in this process (docs/operations.md,
    // "Traces"); not on a Node older than the OpenTelemetry packages support, where the app runs without traces.
    const sink = await traceSink();
    const traced = tracesMeasured
      ? await startOne('app', {
          ...withSettings,
          env: { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, OTEL_TRACES_SAMPLER: 'always_on', OTEL_SERVICE_NAME: 'feedback-bench' },
        })
      : undefined;
    let list: Interleaved[];
    let conditional: Interleaved[];
    let upsert: Interleaved[];
    let pages: Interleaved[];
    let pageItems: { first: number; deep: number; filteredTotal: number };
    let traceExports = { requests: 0, bytes: 0 };
    let answerRuns: Interleaved[];
    try {
      // The same list from every server, and every upsert path answering 201 then 200; the floor answers both in
      // the app's envelope (the bare server answers a smaller one: no links, no request_id).
      const [a, b, c, f, t] = await Promise.all(
        [app, bare, appDefaults, floor, traced ?? app].map((s) => probe(s.url + listW.path, { headers: auth }, [200], 'list')),
      );
      const ids = (x: { data?: unknown }) => (x.data as Array<{ id: string }>).map((r) => r.id).join(',');
      if (ids(a!) !== ids(b!) || ids(c!) !== ids(b!) || ids(f!) !== ids(b!) || ids(t!) !== ids(b!) || (a!.data as unknown[]).length !== 20)
        throw new Error(`the app, the bare server and the floor list different rows:\n${ids(a!)}\n${ids(b!)}\n${ids(f!)}`);
      if (shapeOf(f!) !== shapeOf(a!)) throw new Error(`the floor's list answer is not shaped as the app's:\n${shapeOf(a!)}\n${shapeOf(f!)}`);
      const created = new Map<Served, string>();
      for (const s of [app, appDefaults, bare, floor]) {
        const init = { method: 'POST', headers: upsertW.headers, body: JSON.stringify({ data: { id: `probe-${s.pid}`, plan: 'pro' } }) };
        created.set(s, shapeOf(await probe(s.url + upsertW.path, init, [201], 'upsert (create)')));
        await probe(s.url + upsertW.path, init, [200], 'upsert (update)');
      }
      if (created.get(floor) !== created.get(app))
        throw new Error(`the floor's upsert answer is not shaped as the app's:\n${created.get(app)}\n${created.get(floor)}`);
      const [p1, pDeep] = [
        await probe(app.url + page1W.path, { headers: auth }, [200], 'page 1'),
        await probe(app.url + pageDeepW.path, { headers: auth }, [200], 'deep page'),
      ];
      pageItems = { first: (p1.data as unknown[]).length, deep: (pDeep.data as unknown[]).length, filteredTotal: Number(p1.meta?.filtered_total) };
      if (pageItems.first === 0) throw new Error('Style B page 1 is empty: nothing to measure');

      log(`list: app vs bare vs floor, ${o.rounds} rounds of ${o.duration} s, ${o.connections} connections…`);
      const contenders = (w: Workload) => [
        { label: 'app', url: app.url, workload: w },
        { label: 'bare', url: bare.url, workload: w },
        { label: DEFAULTS, url: appDefaults.url, workload: w },
        { label: FLOOR, url: floor.url, workload: w },
      ];
      list = await interleave([...contenders(listW), ...(traced ? [{ label: TRACED, url: traced.url, workload: listW }] : [])], lo);
      traceExports = { requests: sink.requests(), bytes: sink.bytes() };
      // A polling client (docs/api-rules.md, "Conditional requests"): the unchanged list's tag in If-None-Match, so
      // every answer is a 304 that runs no list query, against the bare server's full list. Before the upsert
      // writes, so the tag stays for the whole run.
      const tagged = await fetch(app.url + listW.path, { headers: auth });
      const etag = tagged.headers.get('etag');
      if (tagged.status !== 200 || !etag) throw new Error(`the list answered ${tagged.status} without an ETag`);
      log("conditional list: the app answering 304 vs the bare server's full list…");
      conditional = await interleave(
        [
          {
            label: 'app (304)',
            url: app.url,
            workload: { ...listW, name: 'Style A list, If-None-Match', headers: { ...auth, 'If-None-Match': etag }, status: 304 },
          },
          { label: 'bare', url: bare.url, workload: listW },
        ],
        lo,
      );
      log('upsert: app vs bare vs floor…');
      // Each contender starts from the same clean tables: the runs before left dead rows that a server's autovacuum
      // would remove within a minute, and this PostgreSQL may run with it off (the app's audit seal updates each record
      // once, so it alone would step over a growing heap of dead rows, round after round).
      upsert = await interleave(contenders(upsertW), { ...lo, between: () => vacuumDeadRows(db) });
      log(`Style B: page 1 vs page ${DEEP_PAGE} on the app…`);
      pages = await interleave(
        [
          { label: 'app (page 1)', url: app.url, workload: page1W },
          { label: `app (page ${DEEP_PAGE})`, url: app.url, workload: pageDeepW },
        ],
        lo,
      );
      for (const w of answerWs) {
        const body = await probe(app.url + w.path, { headers: w.headers }, [200], w.name);
        if ((body.data as unknown[]).length === 0) throw new Error(`${w.name} is empty: nothing to measure`);
      }
      log('answers and search: the plain Style A list beside the answer filters and the search, on the app…');
      answerRuns = await interleave(
        // Distinct labels: interleave keeps one result per label.
        answerWs.map((w, i) => ({ label: `app #${i + 1}`, url: app.url, workload: w })),
        lo,
      );
    } finally {
      await Promise.all(servers.map((s) => s.stop()));
      await sink.close();
    }

    // ---- 4: peak RSS of a fresh process under rssConnections connections: the app both ways, and the bare server
    log(`peak RSS: a fresh process under ${o.rssConnections} connections (list + upsert), ${o.duration} s each…`);
    const peakOf = async (label: string, mode: ServeMode, runtime: Runtime): Promise<PeakRun> => {
      const s = await serve(mode, databaseUrl, runtime);
      try {
        const watch = watchMemory(s.pid);
        // One request of each first, as the comparisons had: the validator compiles a route's schemas on
        // its first request, which on a busy machine can outlast a short run. VmHWM still covers it.
        await probe(s.url + listW.path, { headers: auth }, [200], 'list');
        await probe(s.url + upsertW.path, { method: 'POST', headers: upsertW.headers, body: upsertW.body!(0, `rss-probe-${s.pid}`) }, [200, 201], 'upsert');
        const half = Math.floor(o.rssConnections / 2);
        const runs = await Promise.all([runLoad(label, s.url, listW, o.duration, o.rssConnections - half), runLoad(label, s.url, upsertW, o.duration, half)]);
        const peakMb = watch.stop();
        log(`  ${label}: peak ${peakMb.toFixed(0)} MB; ${runs.map((r) => `${r.workload} ${fmt(r.rps)} req/s`).join(', ')}`);
        return { label, runs, peakMb };
      } finally {
        await s.stop();
      }
    };
    const peaks = [await peakOf('app', 'app', withSettings), await peakOf(DEFAULTS, 'app', v8Defaults), await peakOf('bare', 'bare', v8Defaults)];
    const [rssApp, rssDefaults, rssBare] = peaks;

    // ---- 5: import, with the memory settings and with V8 defaults
    let imports: ImportRun[] = importVariants.map(() => ({ measured: false, reason: 'skipped (--skip-import)' }));
    if (!o.skipImport) {
      imports = await measureImport({ serverUrl, responses: o.responses, variants: importVariants, log });
      for (const r of imports)
        log(
          r.measured
            ? `  ${r.label}: ${fmt(r.rate)} responses/s, peak RSS ${r.peakRssMb.toFixed(0)} MB, flags ${r.flags.join(' ') || 'none'}`
            : `  import: ${r.reason}`,
        );
    }
    const [imported, importedNoSentiment, importedDefaults] = imports;

    // ---- details
    const details = o.skipDetails ? undefined : await measureDetails(db, databaseUrl, withSettings, key, workspaceId, forms, o, { listW, page1W, pageDeepW });

    // ---- verdicts
    const [listApp, listBare, listDefaults, listFloor, listTraced] = list;
    const [upApp, upBare, upDefaults, upFloor] = upsert;
    const [condApp, condBare] = conditional;
    const condRatio = condApp!.medianRps / condBare!.medianRps;
    // Every answer of the polling client must be a 304 (autocannon counts it as non-2xx), every bare one a 2xx.
    const condOther = condApp!.runs.reduce((n, r) => n + unexpectedAnswers(r, { ...listW, status: 304 }), 0);
    const condProblem =
      [condOther > 0 ? `${fmt(condOther)} answers other than 304` : '', problemOf(condBare!.runs) ?? ''].filter(Boolean).join('; ') || undefined;
    const [pageFirst, pageDeep] = pages;
    const listRatio = listApp!.medianRps / listBare!.medianRps;
    const upRatio = upApp!.medianRps / upBare!.medianRps;
    const listToFloor = listApp!.medianRps / listFloor!.medianRps;
    const upToFloor = upApp!.medianRps / upFloor!.medianRps;
    const pageRatio = pageDeep!.medianRps / pageFirst!.medianRps;
    const tracedRatio = listTraced ? listTraced.medianRps / listApp!.medianRps : NaN;
    const targets: TargetRow[] = [
      {
        what: `Style A list (\`form_id\` + \`score_gte=${LIST_SCORE_GTE}\`, limit 20), req/s`,
        app: fmt(listApp!.medianRps),
        baseline: `bare ${fmt(listBare!.medianRps)}`,
        ratio: `${listRatio.toFixed(2)}x`,
        target: '≥ 0.8x bare',
        verdict: verdict(listRatio >= 0.8, problemOf(runsOf(listApp!, listBare!))),
      },
      {
        what: 'Style A list polled with `If-None-Match` (unchanged: 304, no list query), req/s',
        app: fmt(condApp!.medianRps),
        baseline: `bare full list ${fmt(condBare!.medianRps)}`,
        ratio: `${condRatio.toFixed(2)}x`,
        target: '> 1.0x bare',
        verdict: verdict(condRatio > 1, condProblem),
      },
      {
        what: 'Style A upsert of one row (POST rows, `data.id`), req/s',
        app: fmt(upApp!.medianRps),
        baseline: `bare ${fmt(upBare!.medianRps)}`,
        ratio: `${upRatio.toFixed(2)}x`,
        target: '≥ 0.7x bare',
        verdict: verdict(upRatio >= 0.7, problemOf(runsOf(upApp!, upBare!))),
      },
      {
        what: 'Style A list, app / stack floor, req/s',
        app: fmt(listApp!.medianRps),
        baseline: `floor ${fmt(listFloor!.medianRps)}`,
        ratio: `${listToFloor.toFixed(2)}x`,
        target: '≥ 0.9x floor',
        verdict: verdict(listToFloor >= 0.9, problemOf(runsOf(listApp!, listFloor!))),
      },
      listTraced
        ? {
            what: `Style A list, traces on (100 % sampled, OTLP/HTTP to a local sink: ${fmt(traceExports.requests)} exports, ${fmt(traceExports.bytes / 1e6, 1)} MB) / traces off, req/s`,
            app: fmt(listTraced.medianRps),
            baseline: `off ${fmt(listApp!.medianRps)}`,
            ratio: `${tracedRatio.toFixed(2)}x`,
            target: '≥ 0.85x off',
            verdict: verdict(tracedRatio >= 0.85, traceExports.requests > 0 ? problemOf(runsOf(listTraced, listApp!)) : 'no trace was exported'),
          }
        : {
            what: 'Style A list, traces on / traces off, req/s',
            app: '—',
            baseline: '—',
            ratio: '—',
            target: '≥ 0.85x off',
            verdict: `not measured (traces need Node ${TRACING_MIN_NODE} or newer)`,
          },
      {
        what: 'Style A upsert, app / stack floor, req/s',
        app: fmt(upApp!.medianRps),
        baseline: `floor ${fmt(upFloor!.medianRps)}`,
        ratio: `${upToFloor.toFixed(2)}x`,
        target: '≥ 0.9x floor',
        verdict: verdict(upToFloor >= 0.9, problemOf(runsOf(upApp!, upFloor!))),
      },
      {
        what: `Style B page ${fmt(DEEP_PAGE)} (\`form_id\` + \`filter=${PAGE_FILTER}\`${o.pageLimit ? `, limit ${o.pageLimit}` : ''}), req/s`,
        app: `page ${fmt(DEEP_PAGE)}: ${fmt(pageDeep!.medianRps, 1)}${pageItems.deep === 0 ? ' (past the last page)' : ''}`,
        baseline: `page 1: ${fmt(pageFirst!.medianRps, 1)}`,
        ratio: `${pageRatio.toFixed(2)}x`,
        target: '≥ 0.5x page 1',
        verdict: verdict(pageRatio >= 0.5, problemOf(runsOf(pageFirst!, pageDeep!))),
      },
      ...answerRows(answerRuns),
      ...importRows(imported!, o.responses),
      sentimentRow(imported, importedNoSentiment),
      {
        what: `Peak RSS of \`serve\` under ${o.rssConnections} connections`,
        app: `${rssApp!.peakMb.toFixed(0)} MB`,
        baseline: `bare ${rssBare!.peakMb.toFixed(0)} MB`,
        ratio: '—',
        target: '< 200 MB',
        verdict: verdict(rssApp!.peakMb < 200, problemOf(rssApp!.runs, true)),
      },
    ];
    // The V8-defaults side has no target, but a failed load run there is just as invalid.
    failed =
      targets.some((t) => t.verdict.startsWith('**invalid')) ||
      problemOf(runsOf(listDefaults!, upDefaults!)) !== undefined ||
      problemOf([...rssDefaults!.runs, ...rssBare!.runs], true) !== undefined;

    // ---- report
    const [pgVersion] = ((await db.raw('SHOW server_version')) as { rows: Array<{ server_version: string }> }).rows;
    const [sharedBuffers] = ((await db.raw('SHOW shared_buffers')) as { rows: Array<{ shared_buffers: string }> }).rows;
    const sizes =
      (
        await db.raw<{ rows: Array<{ heap?: string; indexes?: string }> }>(
          `SELECT pg_size_pretty(pg_table_size('responses')) AS heap, pg_size_pretty(pg_indexes_size('responses')) AS indexes`,
        )
      ).rows[0] ?? {};
    const cpus = os.cpus();
    const loadAfter = os.loadavg();
    const lines: string[] = [];
    const out = (s = '') => lines.push(s);
    out('# feedback-service benchmark');
    out();
    out(
      `Generated by \`npm run bench -- ${process.argv.slice(2).join(' ')}\` (bench/run.ts) on ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC in ${((Date.now() - started) / 1000).toFixed(0)} s.`,
    );
    out();
    out(
      `- Machine: ${cpus.length} CPU cores (${cpus[0]?.model.trim() ?? 'unknown'}), ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB RAM; Node ${nodeVersion} for the servers and the import (${o.node}; the bench and autocannon: ${process.version}); PostgreSQL ${pgVersion?.server_version ?? '?'} (shared_buffers ${sharedBuffers?.shared_buffers ?? '?'}); Redis local. Database, Redis, servers and load generator share the machine.`,
    );
    out(
      `- Load average (1 min) before / after the run: ${loadBefore[0]!.toFixed(2)} / ${loadAfter[0]!.toFixed(2)} (a quiet run stays near the bench's own load).`,
    );
    out(
      `- Data: ${fmt(total)} responses in 1 workspace, ${forms.length} forms (largest ${fmt(Number(forms[0]!.n))}, the one every list uses); responses heap ${sizes.heap}, indexes ${sizes.indexes}.${seededIn !== undefined ? ` Seeded in ${seededIn.toFixed(0)} s.` : ''} Upsert table: ${fmt(UPSERT_POOL)} rows before the load.`,
    );
    out(
      `- Load: autocannon, ${o.connections} connections, ${o.rounds} interleaved rounds of ${o.duration} s after a ${o.warmup} s warm-up per contender; figures are medians over the rounds. App: \`feedback-service serve\` (src/server.ts \`startServer\`: auth, rate limit counted in Redis, validator, JSON logs at info to /dev/null, metrics, webhook worker). Bare: bench/bare-server.ts (node:http + pg, API key checked in PostgreSQL per request). Floor: bench/floor-server.ts (the app's packages alone: express, the validator on openapi/, knex + pg running the core's store functions, the Redis rate limit, a pino line per request; API key checked in PostgreSQL per request). Each with a pool of 10 PostgreSQL connections, in its own process.`,
    );
    out();
    out(
      `- Memory settings: \`${memoryFlags.join(' ')}\`, what \`serve\` and \`import\` apply (src/cli/memory-defaults.ts). "app", the floor and the targets run with them; "${DEFAULTS}" is the same app with V8's own heap sizes; the bare server runs with V8's defaults.`,
    );
    out();
    out('## Targets (issue 11)');
    out();
    out('| What | App | Baseline | Ratio | Target | Verdict |');
    out('|---|---:|---:|---:|---|---|');
    for (const t of targets) out(`| ${t.what} | ${t.app} | ${t.baseline} | ${t.ratio} | ${t.target} | ${t.verdict} |`);
    out();
    out(
      `Style B rows: page 1 holds ${pageItems.first} responses, page ${fmt(DEEP_PAGE)} holds ${pageItems.deep}, of ${fmt(pageItems.filteredTotal)} matching (\`filtered_total\`).${pageItems.deep === 0 ? ` Page ${fmt(DEEP_PAGE)} is past the last page: the figure is the cost of walking every match to find that out (\`--page-limit\` sets a smaller page).` : ''}`,
    );
    out();
    out('## The stack floor');
    out();
    out(
      'Req/s, medians of the same interleaved rounds. The floor is what the app could reach on its own packages without its own work (key cache, access and scope checks, style selection, metrics, usage counts, idempotency…); floor / bare is what the packages cost against node:http + pg.',
    );
    out();
    out('| Workload | App | Floor | Bare | App / floor | Floor / bare |');
    out('|---|---:|---:|---:|---:|---:|');
    for (const [name, appRun, floorRun, bareRun] of [
      ['Style A list', listApp!, listFloor!, listBare!],
      ['Style A upsert', upApp!, upFloor!, upBare!],
    ] as const) {
      const ratio = (x: Interleaved, y: Interleaved) => {
        const problem = problemOf(runsOf(x, y));
        return problem ? `**invalid** (${problem})` : `${(x.medianRps / y.medianRps).toFixed(2)}x`;
      };
      out(
        `| ${name} | ${fmt(appRun.medianRps)} | ${fmt(floorRun.medianRps)} | ${fmt(bareRun.medianRps)} | ${ratio(appRun, floorRun)} | ${ratio(floorRun, bareRun)} |`,
      );
    }
    out();
    out('## Memory settings against V8 defaults');
    out();
    const flagsOf = (r: ImportRun | undefined) => (r?.measured ? (r.flags.length > 0 ? `\`${r.flags.join(' ')}\`` : 'none') : '—');
    const rateOf = (r: ImportRun | undefined) => (r?.measured ? `${fmt(r.rate)} responses/s` : (r?.reason ?? '—'));
    const importPeakOf = (r: ImportRun | undefined) => (r?.measured ? `${r.peakRssMb.toFixed(0)} MB` : '—');
    out(`| What | With \`${memoryFlags.join(' ')}\` | V8 defaults |`);
    out('|---|---:|---:|');
    out(
      `| Style A list, req/s (ratio to bare) | ${fmt(listApp!.medianRps)} (${listRatio.toFixed(2)}x) | ${fmt(listDefaults!.medianRps)} (${(listDefaults!.medianRps / listBare!.medianRps).toFixed(2)}x) |`,
    );
    out(
      `| Style A upsert, req/s (ratio to bare) | ${fmt(upApp!.medianRps)} (${upRatio.toFixed(2)}x) | ${fmt(upDefaults!.medianRps)} (${(upDefaults!.medianRps / upBare!.medianRps).toFixed(2)}x) |`,
    );
    out(`| Peak RSS of \`serve\` under ${o.rssConnections} connections | ${rssApp!.peakMb.toFixed(0)} MB | ${rssDefaults!.peakMb.toFixed(0)} MB |`);
    out(`| Import of ${fmt(o.responses)} responses, rate | ${rateOf(imported)} | ${rateOf(importedDefaults)} |`);
    out(`| Import, peak RSS | ${importPeakOf(imported)} | ${importPeakOf(importedDefaults)} |`);
    out(
      `| Node flags of the import process (read from /proc while it ran) | ${flagsOf(imported)}${cliApplies ? ' (added by the CLI)' : ' (on its command line)'} | ${flagsOf(importedDefaults)} (\`FEEDBACK_MEMORY_DEFAULTS=off\`) |`,
    );
    out();
    out(`The bare server under the same peak-RSS load (V8 defaults): ${rssBare!.peakMb.toFixed(0)} MB.`);
    out();
    out('## Load runs');
    out();
    out('| Workload | Server | Round | Req/s | p50 (ms) | p99 (ms) | Requests | Statuses | Errors |');
    out('|---|---|---:|---:|---:|---:|---:|---|---:|');
    for (const l of loadRows([...list, ...conditional, ...upsert, ...pages, ...answerRuns])) out(l);
    for (const r of peaks.flatMap((p) => p.runs)) {
      out(
        `| ${r.workload} (RSS load) | ${r.server} | — | ${fmt(r.rps)} | ${r.latencyP50} | ${r.latencyP99} | ${fmt(r.requests)} | ${Object.entries(r.statuses)
          .map(([s, n]) => `${s}: ${fmt(n)}`)
          .join(', ')} | ${r.errors} |`,
      );
    }
    out();
    out(
      `Upserts: even requests update one of the ${fmt(UPSERT_POOL)} existing ids (200), odd ones create a new id (201). Peak RSS: a fresh process (app, ${DEFAULTS}, bare, one after the other), ${o.rssConnections - Math.floor(o.rssConnections / 2)} connections listing and ${Math.floor(o.rssConnections / 2)} upserting at once; VmRSS and VmHWM of /proc/<pid>/status read every 100 ms (MB = 10^6 bytes).`,
    );
    out();
    const measuredImports = imports.filter((r): r is Extract<ImportRun, { measured: true }> => r.measured);
    if (measuredImports.length > 0) {
      const f = measuredImports[0]!;
      out('## Import');
      out();
      out(
        `\`node dist/src/cli/main.js import\` of a bench/make-fixture.ts document of ${fmt(f.responses)} responses (${fmt(f.fixtureBytes / 1e6)} MB, written in ${f.fixtureSeconds.toFixed(1)} s) into a fresh migrated database, once per row:`,
      );
      out();
      for (const r of measuredImports)
        out(
          `- ${r.label}: ${r.seconds.toFixed(1)} s from spawn to exit, ${fmt(r.rate)} responses/s, peak RSS ${r.peakRssMb.toFixed(0)} MB; node flags ${flagsOf(r)}.`,
        );
      out();
    }
    if (details) lines.push(...detailsReport(details, o));
    if (!o.skipReplica) {
      const r = await replicaRun();
      lines.push(...r.lines);
      failed ||= r.failed;
    }
    report = lines.join('\n') + '\n';
  } finally {
    await db.destroy();
    if (databaseName && !o.keep) {
      await dropBenchDatabase(serverUrl, databaseName);
      log(`dropped ${databaseName}`);
    } else if (databaseName) {
      log(`kept: --database-url ${withDatabase(serverUrl, databaseName)}`);
    }
  }
  writeReport(`node${nodeVersion!.replace(/^v/, '').split('.')[0]}.md`, report, failed);
}

/** Prints the report, writes it to bench/results/`name`, and sets exit code 1 when a run `failed`. */
function writeReport(name: string, report: string, failed: boolean): void {
  process.stdout.write(report);
  const file = path.resolve(__dirname, '../../bench/results', name);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, report);
  log(`wrote ${file}`);
  if (failed) {
    log('FAILED: a load run got answers outside 2xx or errors, or the peak-RSS load got no answer (see the Load runs table)');
    process.exitCode = 1;
  }
}

/** The import with sentiment against the same import with `SENTIMENT=off` (issue 29 item 5: at least 0.9x). */
function sentimentRow(withSentiment: ImportRun | undefined, without: ImportRun | undefined): TargetRow {
  const what = 'Import with sentiment vs `SENTIMENT=off`, rate';
  const ratio = sentimentRatio(withSentiment, without);
  if (ratio === undefined || !withSentiment?.measured || !without?.measured) {
    return { what, app: 'not measured', baseline: '—', ratio: '—', target: '≥ 0.9x without', verdict: 'not measured' };
  }
  return {
    what,
    app: `${fmt(withSentiment.rate)} responses/s`,
    baseline: `${fmt(without.rate)} responses/s without`,
    ratio: `${ratio.toFixed(2)}x`,
    target: '≥ 0.9x without',
    verdict: verdict(ratio >= 0.9),
  };
}

function importRows(imported: ImportRun, responses: number): TargetRow[] {
  const what = `Import of ${fmt(responses)} responses`;
  if (!imported.measured) {
    return [{ what, app: imported.reason, baseline: '—', ratio: '—', target: '≥ 25,000 responses/s, < 300 MB peak RSS', verdict: 'not measured' }];
  }
  return [
    {
      what: `${what}, rate`,
      app: `${fmt(imported.rate)} responses/s`,
      baseline: '—',
      ratio: '—',
      target: '≥ 25,000 responses/s',
      verdict: verdict(imported.rate >= 25_000),
    },
    {
      what: `${what}, peak RSS`,
      app: `${imported.peakRssMb.toFixed(0)} MB`,
      baseline: '—',
      ratio: '—',
      target: '< 300 MB',
      verdict: verdict(imported.peakRssMb < 300),
    },
  ];
}

// ------------------------------------------------------------------------------------------------
// Details: latency of single requests, analytics flatness, exports, plans (one app process).

interface Details {
  latencies: Latency[];
  analytics: Latency[];
  exports: ExportRun[];
  plans: Plan[];
  deepDepth: number;
  /** The dashboard page's first view (every chart rendered), ms. */
  dashboardFirstMs: number;
}

async function measureDetails(
  db: Db,
  databaseUrl: string,
  runtime: Runtime,
  key: string,
  workspaceId: string,
  forms: Array<{ form_id: string; n: string }>,
  o: Options,
  w: { listW: Workload; page1W: Workload; pageDeepW: Workload },
): Promise<Details> {
  // The loads' upserts left dead rollup rows (and a reused database those of earlier runs): removed as autovacuum would
  // on a server (bench/seed.ts; this PostgreSQL may run with autovacuum off).
  await db.raw('VACUUM (ANALYZE)');
  const total = forms.reduce((a, f) => a + Number(f.n), 0);
  const bigForm = forms[0]!.form_id;
  const smallForm = forms[forms.length - 1]!.form_id;
  // A cursor deep in the default order: a real row ~500,000 rows in (or half-way on smaller data).
  const deepDepth = Math.max(1, Math.min(500_000, Math.floor(total / 2)));
  const deepRow = (await db('responses')
    .where('workspace_id', workspaceId)
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .offset(deepDepth - 1)
    .first('id', 'created_at')) as { id: string; created_at: Date };
  const signature = sortSignature(
    parseSort(undefined, {
      fields: RESPONSE_SORT_FIELDS,
      tieBreaker: RESPONSE_ID_FIELD,
      defaultSort: [{ field: RESPONSE_SORT_FIELDS.get('created_at')!, dir: 'desc' }],
      multi: false,
    }),
  );
  const deepCursor = encodeCursor({ l: `responses:${workspaceId}`, s: signature, k: [deepRow.created_at.toISOString(), deepRow.id], d: 'n' });
  const base = `/api/v1/workspaces/${workspaceId}`;
  const cases: Array<[string, string]> = [
    ['A first page, limit=20', `${base}/responses?limit=20`],
    [`A deep page (cursor ${fmt(deepDepth)} rows in), limit=20`, `${base}/responses?limit=20&cursor=${deepCursor}`],
    [`A first page, form_id + score_gte=${LIST_SCORE_GTE} (the list target)`, w.listW.path],
    [`B page 1, form_id + filter=${PAGE_FILTER}`, w.page1W.path],
    [`B page ${DEEP_PAGE}, form_id + filter=${PAGE_FILTER}`, w.pageDeepW.path],
    ['Form summary', `${base}/forms/${bigForm}/analytics/summary`],
  ];
  const analyticsCases: Array<[string, string]> = [
    [`Per-question analytics, largest form (${fmt(Number(forms[0]!.n))})`, `${base}/forms/${bigForm}/analytics/questions`],
    [`Per-question analytics, smallest form (${fmt(Number(forms[forms.length - 1]!.n))})`, `${base}/forms/${smallForm}/analytics/questions`],
    ['Time series by week, largest form', `${base}/forms/${bigForm}/analytics/timeseries?interval=week`],
    // Issue 29 item 5: the keywords of the largest form's text question (`q_comment`), within 2x of its per-question analytics.
    [KEYWORDS_ROW, `${base}/forms/${bigForm}/analytics/keywords`],
  ];
  const app = await serve('app', databaseUrl, runtime);
  const latencies: Latency[] = [];
  const analytics: Latency[] = [];
  const exports: ExportRun[] = [];
  let dashboardFirstMs: number;
  try {
    log('latency…');
    for (const [name, p] of cases) {
      const l = await measureLatency(app.url, key, name, p, p.includes(`page=${DEEP_PAGE}`) ? Math.min(o.samples, o.offsetSamples) : o.samples);
      latencies.push(l);
      log(`  ${name}: median ${ms(l.median)} ms, p95 ${ms(l.p95)} ms`);
    }
    // The dashboard page of the largest form (docs/analytics.md, "Dashboard links"), next to its per-question analytics.
    const minted = await fetch(`${app.url}${base}/forms/${bigForm}/dashboard-links`, { method: 'POST', headers: { 'X-API-Key': key } });
    if (minted.status !== 201) throw new Error(`minting a dashboard link answered ${minted.status}: ${await minted.text()}`);
    const dashboardPath = new URL(((await minted.json()) as { data: { url: string } }).data.url).pathname;
    analyticsCases.push([`Dashboard page (\`GET /d/{token}\`), largest form`, dashboardPath]);
    // The first view renders every chart (later views with the same figures take the SVG from the cache).
    const first = performance.now();
    const firstView = await fetch(`${app.url}${dashboardPath}`);
    await firstView.text();
    dashboardFirstMs = performance.now() - first;
    log('analytics…');
    for (const [name, p] of analyticsCases) analytics.push(await measureLatency(app.url, key, name, p, o.samples));
    if (!o.skipExport) {
      for (const [name, p, style, csv] of [
        ['NDJSON, Style A, every response', `${base}/responses/export?format=ndjson`, 'A', false],
        ['CSV, Style B, every response', `${base}/responses/export?format=csv`, 'B', true],
      ] as const) {
        log(`export: ${name}…`);
        const e = await measureExport(app, key, name, p, style, csv);
        exports.push(e);
        log(`  ${fmt(e.rows)} rows in ${e.seconds.toFixed(1)} s, RSS ${e.rssBeforeMb.toFixed(0)} → peak ${e.rssPeakMb.toFixed(0)} MiB`);
      }
    }
  } finally {
    await app.stop();
  }

  log('query plans (the SQL the core sends, captured)…');
  const limit = o.pageLimit ?? 50;
  const plans = [
    ...(await explainWhat(db, `Style A list: form_id + score >= ${LIST_SCORE_GTE}, limit 20`, () =>
      listResponsesKeyset(db, workspaceId, { formId: bigForm, scoreGte: LIST_SCORE_GTE, pagination: { kind: 'keyset', limit: 20 } }),
    )),
    ...(await explainWhat(db, `Style A list: cursor ${fmt(deepDepth)} rows in, limit 20`, () =>
      listResponsesKeyset(db, workspaceId, { pagination: { kind: 'keyset', limit: 20, cursor: deepCursor } }),
    )),
    ...(await explainWhat(db, `Style B page 1: form_id + filter=${PAGE_FILTER}`, () =>
      listResponsesOffset(db, workspaceId, {
        formId: bigForm,
        filter: PAGE_FILTER,
        multiSort: true,
        include: { formName: true },
        pagination: { kind: 'page', page: 1, limit },
      }),
    )),
    ...(await explainWhat(db, `Style B page ${DEEP_PAGE}: form_id + filter=${PAGE_FILTER}`, () =>
      listResponsesOffset(db, workspaceId, {
        formId: bigForm,
        filter: PAGE_FILTER,
        multiSort: true,
        include: { formName: true },
        pagination: { kind: 'page', page: DEEP_PAGE, limit },
      }),
    )),
    // Issue 29: the answer filters and the search, as the load rows run them.
    ...(await explainWhat(db, `Style A list: form_id + answer=${ANSWER_CHOICE}, limit 20`, () =>
      listResponsesKeyset(db, workspaceId, { formId: bigForm, typed: { answer: [ANSWER_CHOICE] }, pagination: { kind: 'keyset', limit: 20 } }),
    )),
    ...(await explainWhat(db, `Style B page 1: form_id + filter=${ANSWER_PAGE_FILTER}, limit 20`, () =>
      listResponsesOffset(db, workspaceId, {
        formId: bigForm,
        filter: ANSWER_PAGE_FILTER,
        multiSort: true,
        include: { formName: true },
        pagination: { kind: 'page', page: 1, limit: 20 },
      }),
    )),
    ...(await explainWhat(db, `Search first page: form_id + q=${SEARCH_Q}, limit 20`, () =>
      listResponsesKeyset(db, workspaceId, { formId: bigForm, q: SEARCH_Q, pagination: { kind: 'keyset', limit: 20 } }),
    )),
    ...(await explainWhat(db, `Search first page by relevance: form_id + q=${SEARCH_Q}&sort=relevance, limit 20`, () =>
      listResponsesKeyset(db, workspaceId, { formId: bigForm, q: SEARCH_Q, sort: 'relevance', pagination: { kind: 'keyset', limit: 20 } }),
    )),
  ];
  for (const p of plans) log(`  ${p.name}: ${p.executionMs} ms`);
  return { latencies, analytics, exports, plans, deepDepth, dashboardFirstMs };
}

function ms(v: number): string {
  return v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2);
}

/** The name of the keywords row of the analytics details (issue 29 item 5). */
const KEYWORDS_ROW = "Keywords of the largest form's text question (`q_comment`, 10 terms and 10 phrases)";

function detailsReport(d: Details, o: Options): string[] {
  const lines: string[] = [];
  const out = (s = '') => lines.push(s);
  const latencyTable = (rows: Latency[]) => {
    out('| Request | Items | Samples | Median (ms) | p95 (ms) | Min (ms) |');
    out('|---|---:|---:|---:|---:|---:|');
    for (const l of rows) out(`| ${l.name} | ${l.items} | ${l.samples} | ${ms(l.median)} | ${ms(l.p95)} | ${ms(l.min)} |`);
    out();
  };
  out('## Latency of single requests');
  out();
  out(
    `${o.samples} sequential requests per row (${Math.min(o.samples, o.offsetSamples)} for page ${DEEP_PAGE}) after a few warm-up requests, through a fresh app process (with the memory settings; the exports below too).`,
  );
  out();
  latencyTable(d.latencies);
  out('## Per-question analytics (rollups kept with the writes)');
  out();
  latencyTable(d.analytics);
  out(
    `**Flatness: median smallest / median largest form = ${(d.analytics[1]!.median / d.analytics[0]!.median).toFixed(2)}** (target ≥ 0.8: the largest form answers as fast as the smallest).`,
  );
  const keywords = d.analytics.find((l) => l.name === KEYWORDS_ROW);
  if (keywords) {
    out();
    out(
      `**Keywords: median keywords / median per-question analytics of the largest form = ${(keywords.median / d.analytics[0]!.median).toFixed(2)}** (target ≤ 2: \`keyword_rollups\` summed over the form's days and ranked in SQL, plus the readable forms from the latest 200 text answers; docs/analytics.md, "Keywords").`,
    );
  }
  const dashboard = d.analytics.find((l) => l.path.startsWith('/d/'));
  if (dashboard) {
    out();
    out(
      `**Dashboard page: median dashboard / median per-question analytics of the largest form = ${(dashboard.median / d.analytics[0]!.median).toFixed(2)}** (target ≤ 2: the page reads the same rollups, plus the series and the keywords of its text question; its SVG charts come from the render cache while the figures are unchanged). The first view, which rendered every chart, took ${ms(d.dashboardFirstMs)} ms.`,
    );
  }
  out();
  if (d.exports.length > 0) {
    out('## Export of every response (`GET {ws}/responses/export`)');
    out();
    out('| Export | Rows | MB sent | Seconds | Rows/s | Server RSS before (MiB) | Peak RSS (MiB) | Growth (MiB) |');
    out('|---|---:|---:|---:|---:|---:|---:|---:|');
    for (const e of d.exports) {
      out(
        `| ${e.name} | ${fmt(e.rows)} | ${(e.bytes / 1e6).toFixed(0)} | ${e.seconds.toFixed(1)} | ${fmt(e.rows / e.seconds)} | ${e.rssBeforeMb.toFixed(0)} | ${e.rssPeakMb.toFixed(0)} | ${(e.rssPeakMb - e.rssBeforeMb).toFixed(0)} |`,
      );
    }
    out();
    out('Target: memory flat in the number of rows (1,000,000 rows under 100 MB RSS growth). RSS sampled every 100 ms from /proc.');
    out();
  }
  out('## Query plans');
  out();
  out(
    'EXPLAIN (ANALYZE, BUFFERS) of every SELECT the core (`listResponsesKeyset`, `listResponsesOffset`) sends for the list, captured from knex; a Style B page also sends its two counts.',
  );
  out();
  out('| Query | Execution (ms) | Plan |');
  out('|---|---:|---|');
  for (const p of d.plans) out(`| ${p.name} | ${p.executionMs} | ${p.summary.replace(/\|/g, '\\|')} |`);
  out();
  for (const p of d.plans) {
    out(`### ${p.name}`);
    out();
    out('```sql');
    out(p.sql);
    out('```');
    out();
    out('```');
    out(p.text);
    out('```');
    out();
  }
  return lines;
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});

/**
 * An OTLP/HTTP receiver that accepts every export and keeps nothing but counts (the traced app's collector): it answers
 * 200 with an empty body, a valid empty `ExportTraceServiceResponse` in both encodings.
 */
async function traceSink(): Promise<{ url: string; requests(): number; bytes(): number; close(): Promise<void> }> {
  let requests = 0;
  let bytes = 0;
  const server = http.createServer((req, res) => {
    req.on('data', (c: Buffer) => (bytes += c.length));
    req.on('end', () => {
      requests++;
      res.writeHead(200, { 'content-type': req.headers['content-type'] ?? 'application/x-protobuf' });
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => requests,
    bytes: () => bytes,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
