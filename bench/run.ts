/**
 * `npm run bench`: seeds a fresh database with N responses (bench/seed.ts) or reuses one
 * (`--database-url`), then measures on it:
 *   a. latency (median, p95) of Style B and Style A list pages, shallow and deep, and the form summary;
 *   b. throughput of the Style A first page against a bare node:http + pg server (bench/bare-server.ts);
 *   c. EXPLAIN (ANALYZE, BUFFERS) of the queries behind them, built by the service's own query code;
 *   d. per-question analytics of the largest and the smallest form (flat: ratio ≥ 0.8) and the time series;
 *   e. the export of every response (NDJSON and CSV): rows/s and the server's RSS growth (target < 100 MB).
 * Prints a Markdown report and writes it to bench/results/latest.md; drops the database unless `--keep`.
 *
 * The servers run in a child process (bench/serve.ts) so the load generator does not share their
 * event loop. Never part of the jest suite.
 */
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { Command } from 'commander';
import type { Knex } from 'knex';
import { createApiKey } from '../src/core/api-keys/create-api-key';
import { endDateBound, fromBound } from '../src/core/query/dates';
import { compileFilter } from '../src/core/query/filter';
import { encodeCursor, keysetCondition, orderByClause } from '../src/core/query/keyset';
import { parseSort, sortSignature } from '../src/core/query/sort';
import {
  applyNarrowing,
  RESPONSE_FILTER_FIELDS,
  RESPONSE_ID_FIELD,
  RESPONSE_SORT_FIELDS,
  responsesQuery,
  type ResponseNarrowing,
} from '../src/core/responses/responses.repository';
import { createDb, type Db } from '../src/platform/db/connection';
import { DEFAULT_SERVER_URL, dropBenchDatabase, seed, withDatabase } from './seed';
import type { ServeMessage } from './serve';

interface Options {
  responses: number;
  keep: boolean;
  duration: number;
  connections: number;
  samples: number;
  offsetSamples: number;
  databaseUrl?: string;
  skipExport: boolean;
}

const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);

// ------------------------------------------------------------------------------------------------
// Servers

interface Served {
  url: string;
  /** The server's process id (its RSS is sampled during exports). */
  pid: number;
  stop(): Promise<void>;
}

async function serve(mode: 'app' | 'bare', databaseUrl: string, logLevel = 'info'): Promise<Served> {
  const child: ChildProcess = fork(path.join(__dirname, 'serve.js'), [mode], {
    env: {
      ...process.env,
      BENCH_DATABASE_URL: databaseUrl,
      BENCH_REDIS_URL: process.env.REDIS_URL || 'redis://127.0.0.1:6379',
      BENCH_LOG: logLevel,
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
    stop: () =>
      new Promise<void>((resolve) => {
        const t = setTimeout(() => child.kill('SIGKILL'), 5000);
        child.once('exit', () => {
          clearTimeout(t);
          resolve();
        });
        child.send('close');
      }),
  };
}

// ------------------------------------------------------------------------------------------------
// Latency

interface Latency {
  name: string;
  path: string;
  median: number;
  p95: number;
  min: number;
  items: number;
  samples: number;
}

function percentile(sorted: number[], p: number): number {
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

async function measure(base: string, key: string, name: string, pathAndQuery: string, samples: number): Promise<Latency> {
  const get = async () => {
    const res = await fetch(base + pathAndQuery, { headers: { 'X-API-Key': key } });
    const body = await res.text();
    if (res.status !== 200) throw new Error(`${name}: GET ${pathAndQuery} → ${res.status} ${body.slice(0, 500)}`);
    return body;
  };
  for (let i = 0; i < Math.min(5, Math.ceil(samples / 5)); i++) await get();
  const times: number[] = [];
  let items = 0;
  for (let i = 0; i < samples; i++) {
    const t = performance.now();
    const body = await get();
    times.push(performance.now() - t);
    if (i === 0) {
      const parsed = JSON.parse(body) as { data?: unknown };
      items = Array.isArray(parsed.data) ? parsed.data.length : 1;
    }
  }
  times.sort((a, b) => a - b);
  return { name, path: pathAndQuery, median: percentile(times, 50), p95: percentile(times, 95), min: times[0]!, items, samples };
}

// ------------------------------------------------------------------------------------------------
// Export

interface ExportRun {
  name: string;
  rows: number;
  bytes: number;
  seconds: number;
  rssBeforeMb: number;
  rssPeakMb: number;
}

/** Resident set size of a process in MiB (Linux /proc), NaN elsewhere. */
function rssMb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** Streams one export to the end, counting rows (lines; the CSV header excluded) and sampling the server's RSS. */
async function measureExport(server: Served, key: string, name: string, pathAndQuery: string, style: 'A' | 'B', csv: boolean): Promise<ExportRun> {
  const rssBeforeMb = rssMb(server.pid);
  let rssPeakMb = rssBeforeMb;
  const sampler = setInterval(() => {
    rssPeakMb = Math.max(rssPeakMb, rssMb(server.pid));
  }, 100);
  const t = performance.now();
  let rows = 0;
  let bytes = 0;
  try {
    const res = await fetch(server.url + pathAndQuery, { headers: { 'X-API-Key': key, 'X-API-Style': style } });
    if (res.status !== 200 || !res.body) throw new Error(`${name}: GET ${pathAndQuery} → ${res.status} ${await res.text()}`);
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      bytes += chunk.length;
      // CSV rows hold no raw newline except inside quoted cells; the bench data has none.
      for (let i = 0; i < chunk.length; i++) if (chunk[i] === 10) rows++;
    }
  } finally {
    clearInterval(sampler);
  }
  rssPeakMb = Math.max(rssPeakMb, rssMb(server.pid));
  return { name, rows: csv ? rows - 1 : rows, bytes, seconds: (performance.now() - t) / 1000, rssBeforeMb, rssPeakMb };
}

// ------------------------------------------------------------------------------------------------
// Throughput

interface Throughput {
  name: string;
  rps: number;
  latencyP50: number;
  latencyP99: number;
  non2xx: number;
  errors: number;
}

async function cannon(name: string, url: string, key: string, duration: number, connections: number): Promise<Throughput> {
  const run = (d: number) =>
    autocannon({ url, connections, duration: d, headers: { 'X-API-Key': key } }) as unknown as Promise<autocannon.Result>;
  await run(Math.min(3, duration)); // warm-up: JIT, pools, plan cache
  const r = await run(duration);
  return {
    name,
    rps: r.requests.average,
    latencyP50: r.latency.p50,
    latencyP99: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors,
  };
}

// ------------------------------------------------------------------------------------------------
// Query plans

interface Plan {
  name: string;
  sql: string;
  text: string;
  executionMs: number;
  summary: string;
}

async function explain(db: Db, name: string, q: Knex.QueryBuilder | Knex.Raw): Promise<Plan> {
  const s = q.toSQL();
  const native = s.toNative();
  const res = (await db.raw(`EXPLAIN (ANALYZE, BUFFERS) ${s.sql}`, s.bindings as readonly Knex.RawBinding[])) as {
    rows: Array<{ 'QUERY PLAN': string }>;
  };
  const text = res.rows.map((r) => r['QUERY PLAN']).join('\n');
  const executionMs = Number(/Execution Time: ([\d.]+) ms/.exec(text)?.[1] ?? NaN);
  return { name, sql: native.sql, text, executionMs, summary: summarize(text) };
}

/** "Limit → Index Scan using x" with the first buffers line and whether a Sort appears. */
function summarize(text: string): string {
  const nodes = text
    .split('\n')
    .filter((l) => /^\s*(->\s*)?[A-Z][A-Za-z ]+(?:\s+using\s+\w+)?(?:\s+on\s+\w+)?\s+\(cost=/.test(l))
    .map((l) =>
      l
        .replace(/\s*\(cost=.*$/, '')
        .replace(/^\s*->\s*/, '')
        .trim(),
    );
  const buffers = /Buffers: ([^\n]+)/.exec(text)?.[1] ?? '';
  const sort = /Sort Method|(^|\s)Sort\s+\(cost/m.test(text) ? 'has a Sort node' : 'no Sort';
  return `${nodes.join(' → ')}; ${sort}; buffers ${buffers.trim()}`;
}

// ------------------------------------------------------------------------------------------------

function ms(v: number): string {
  return v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2);
}

function isoDate(d: Date): string {
  return d.toISOString().slice(0, 10);
}

async function main(): Promise<void> {
  const program = new Command()
    .name('bench')
    .description('Seed a database with N responses and measure latency, throughput and query plans.')
    .option('--responses <n>', 'responses to seed', (v) => Number.parseInt(v, 10), 1_000_000)
    .option('--keep', 'keep the seeded database', false)
    .option('--duration <s>', 'seconds per throughput run', (v) => Number.parseInt(v, 10), 10)
    .option('--connections <n>', 'autocannon connections', (v) => Number.parseInt(v, 10), 20)
    .option('--samples <n>', 'requests per latency figure', (v) => Number.parseInt(v, 10), 50)
    .option('--offset-samples <n>', 'requests per latency figure for the page=5000 (OFFSET) cases', (v) => Number.parseInt(v, 10), 15)
    .option('--database-url <url>', 'reuse this already seeded bench database instead of seeding')
    .option('--skip-export', 'skip the export measurements (they stream every response twice)', false)
    .parse();
  const o = program.opts<Options>();
  const serverUrl = process.env.DATABASE_URL || DEFAULT_SERVER_URL;
  const started = Date.now();

  // ---- data
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
    log(`seeded ${s.responses.toLocaleString('en-US')} responses in ${s.seconds.toFixed(1)} s`);
  }
  const db = createDb({ databaseUrl, dataDir: '.data', poolMax: 2 });
  let report = '';
  try {
    const ws = (await db('workspaces').where('id', 'like', 'ws_bench%').orderBy('created_at', 'desc').first('id')) as { id: string } | undefined;
    if (!ws) throw new Error('no ws_bench* workspace in this database: seed it with bench/seed.ts first');
    const workspaceId = ws.id;
    const key = keyFromSeed ?? (await createApiKey(db, { name: 'bench', workspaceIds: [workspaceId], rateLimitPerMinute: 10_000_000 })).secret;
    const forms = (await db('response_counts')
      .where('workspace_id', workspaceId)
      .groupBy('form_id')
      .select('form_id', db.raw('sum(responses)::bigint AS n'))
      .orderBy('n', 'desc')) as Array<{ form_id: string; n: number }>;
    const total = forms.reduce((a, f) => a + Number(f.n), 0);
    const bigForm = forms[0]!.form_id;
    const smallForm = forms[forms.length - 1]!.form_id;
    log(`workspace ${workspaceId}: ${total.toLocaleString('en-US')} responses in ${forms.length} forms`);

    // Cursor deep in the default order: a real row ~500,000 rows in (or half-way on smaller data).
    const depth = Math.min(500_000, Math.floor(total / 2));
    const deepRow = (await db('responses')
      .where('workspace_id', workspaceId)
      .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }])
      .offset(depth - 1)
      .first('id', 'created_at')) as { id: string; created_at: Date };
    const keys = parseSort(undefined, {
      fields: RESPONSE_SORT_FIELDS,
      tieBreaker: RESPONSE_ID_FIELD,
      defaultSort: [{ field: RESPONSE_SORT_FIELDS.get('created_at')!, dir: 'desc' }],
      multi: false,
    });
    const signature = sortSignature(keys);
    const deepCursor = encodeCursor({ l: `responses:${workspaceId}`, s: signature, k: [deepRow.created_at.toISOString(), deepRow.id], d: 'n' });

    // A three-month window ending a month ago (about a quarter of the data).
    const now = new Date();
    const startDate = isoDate(new Date(now.getTime() - 120 * 86_400_000));
    const endDate = isoDate(new Date(now.getTime() - 31 * 86_400_000));

    // ---- a. latency
    const base = `/api/v1/workspaces/${workspaceId}`;
    const filter = encodeURIComponent('score in [9,10]');
    const cases: Array<[string, string]> = [
      ['B page 1, no filter', `${base}/responses?page=1&limit=50`],
      ['B page 1, form_id', `${base}/responses?page=1&limit=50&form_id=${bigForm}`],
      ['B page 1, filter=score in [9,10]', `${base}/responses?page=1&limit=50&filter=${filter}`],
      ['B page 1, start_date/end_date', `${base}/responses?page=1&limit=50&start_date=${startDate}&end_date=${endDate}`],
      ['B page 5000, no filter', `${base}/responses?page=5000&limit=50`],
      ['B page 5000, form_id', `${base}/responses?page=5000&limit=50&form_id=${bigForm}`],
      ['B page 5000, filter=score in [9,10]', `${base}/responses?page=5000&limit=50&filter=${filter}`],
      ['B page 5000, start_date/end_date', `${base}/responses?page=5000&limit=50&start_date=${startDate}&end_date=${endDate}`],
      ['A first page, limit=20', `${base}/responses?limit=20`],
      [`A deep page (cursor ${depth.toLocaleString('en-US')} rows in), limit=20`, `${base}/responses?limit=20&cursor=${deepCursor}`],
      ['A first page, form_id + score_gte=9', `${base}/responses?limit=20&form_id=${bigForm}&score_gte=9`],
      ['Form summary', `${base}/forms/${bigForm}/analytics/summary`],
    ];
    const analyticsCases: Array<[string, string]> = [
      [`Per-question analytics, largest form (${Number(forms[0]!.n).toLocaleString('en-US')})`, `${base}/forms/${bigForm}/analytics/questions`],
      [`Per-question analytics, smallest form (${Number(forms[forms.length - 1]!.n).toLocaleString('en-US')})`, `${base}/forms/${smallForm}/analytics/questions`],
      ['Per-question analytics, largest form, start_date/end_date', `${base}/forms/${bigForm}/analytics/questions?start_date=${startDate}&end_date=${endDate}`],
      ['Time series by week, largest form', `${base}/forms/${bigForm}/analytics/timeseries?interval=week`],
    ];
    log('latency…');
    const app = await serve('app', databaseUrl, 'info');
    const latencies: Latency[] = [];
    const analytics: Latency[] = [];
    const exports: ExportRun[] = [];
    try {
      for (const [name, p] of cases) {
        // OFFSET pages cost ~1 s each at a million rows: fewer samples keep the run to minutes.
        const n = p.includes('page=5000') ? Math.min(o.samples, o.offsetSamples) : o.samples;
        const l = await measure(app.url, key, name, p, n);
        latencies.push(l);
        log(`  ${name}: median ${ms(l.median)} ms, p95 ${ms(l.p95)} ms`);
      }
      log('analytics…');
      for (const [name, p] of analyticsCases) {
        const l = await measure(app.url, key, name, p, o.samples);
        analytics.push(l);
        log(`  ${name}: median ${ms(l.median)} ms, p95 ${ms(l.p95)} ms`);
      }
      if (!o.skipExport) {
        for (const [name, p, style, csv] of [
          ['NDJSON, Style A, every response', `${base}/responses/export?format=ndjson`, 'A', false],
          ['CSV, Style B, every response', `${base}/responses/export?format=csv`, 'B', true],
        ] as const) {
          log(`export: ${name}…`);
          const e = await measureExport(app, key, name, p, style, csv);
          exports.push(e);
          log(`  ${e.rows.toLocaleString('en-US')} rows in ${e.seconds.toFixed(1)} s, RSS ${e.rssBeforeMb.toFixed(0)} → peak ${e.rssPeakMb.toFixed(0)} MiB`);
        }
      }
    } finally {
      await app.stop();
    }

    // ---- b. throughput (one server at a time, each in its own process)
    const listPath = `${base}/responses?limit=20`;
    const runs: Throughput[] = [];
    for (const [name, mode, level] of [
      ['bare node:http + pg', 'bare', 'info'],
      ['app (Style A, logging on)', 'app', 'info'],
      ['app (Style A, logging off)', 'app', 'silent'],
    ] as const) {
      log(`throughput: ${name} (${o.duration} s, ${o.connections} connections)…`);
      const s = await serve(mode, databaseUrl, level);
      try {
        const t = await cannon(name, s.url + listPath, key, o.duration, o.connections);
        runs.push(t);
        log(`  ${t.rps.toFixed(0)} req/s, non-2xx ${t.non2xx}, errors ${t.errors}`);
      } finally {
        await s.stop();
      }
    }
    const bare = runs[0]!;
    const appRun = runs[1]!;
    const ratio = appRun.rps / bare.rps;

    // ---- c. plans (the service's own query builders)
    log('query plans…');
    const include = {};
    const formScore: ResponseNarrowing = { formId: bigForm, created: [], scoreGte: 9 };
    const keysetPage = (n: ResponseNarrowing, after?: unknown[]) => {
      const q = responsesQuery(db, workspaceId, n, include);
      keys.forEach((k, i) => q.select(db.raw(`${k.field.expr.sql} AS ??`, [...k.field.expr.bindings, `__k${i}`])));
      if (after) {
        const c = keysetCondition(keys, after, 'after');
        q.whereRaw(c.sql, c.bindings);
      }
      const order = orderByClause(keys);
      return q.orderByRaw(order.sql, order.bindings).limit(21);
    };
    const filteredCount = Number(
      ((await applyNarrowing(db('responses'), workspaceId, formScore).count({ n: '*' }).first()) as { n: unknown }).n,
    );
    const midRow = (await keysetPage(formScore)
      .clearSelect()
      .select('id', 'created_at')
      .offset(Math.floor(filteredCount / 2))
      .first()) as { id: string; created_at: Date };
    const order = orderByClause(keys);
    const scoreFilter = compileFilter('score in [9,10]', { fields: RESPONSE_FILTER_FIELDS });
    const dateRange: ResponseNarrowing = {
      created: [fromBound(startDate, 'start_date'), endDateBound(endDate, 'end_date')],
    };
    const plans: Plan[] = [];
    plans.push(await explain(db, 'A page of 20: form_id + score >= 9, created_at DESC, id DESC', keysetPage(formScore)));
    plans.push(
      await explain(
        db,
        `A page of 20: form_id + score >= 9, after a keyset position ${Math.floor(filteredCount / 2).toLocaleString('en-US')} matching rows in`,
        keysetPage(formScore, [midRow.created_at.toISOString(), midRow.id]),
      ),
    );
    plans.push(
      await explain(
        db,
        `A page of 20, no filter, after a keyset position ${depth.toLocaleString('en-US')} rows in`,
        keysetPage({ created: [] }, [deepRow.created_at.toISOString(), deepRow.id]),
      ),
    );
    plans.push(
      await explain(
        db,
        'B page 5000 (limit 50, OFFSET 249950), no filter',
        responsesQuery(db, workspaceId, { created: [] }, { formName: true })
          .orderByRaw(order.sql, order.bindings)
          .offset(4999 * 50)
          .limit(50),
      ),
    );
    plans.push(
      await explain(
        db,
        'B filtered_total from the counters: filter=score in [9,10]',
        applyNarrowing(db('response_counts'), workspaceId, { created: [], filter: scoreFilter.where }, false).sum({ n: 'responses' }),
      ),
    );
    plans.push(
      await explain(
        db,
        'B total from the counters',
        db('response_counts').where('workspace_id', workspaceId).sum({ n: 'responses' }),
      ),
    );
    plans.push(
      await explain(
        db,
        `B filtered_total with a date range: COUNT(*) ${startDate} .. ${endDate}`,
        applyNarrowing(db('responses'), workspaceId, dateRange).count({ n: '*' }),
      ),
    );
    for (const p of plans) log(`  ${p.name}: ${p.executionMs} ms`);

    // ---- report
    const [pgVersion] = ((await db.raw('SHOW server_version')) as { rows: Array<{ server_version: string }> }).rows;
    const sizes = ((
      await db.raw(
        `SELECT pg_size_pretty(pg_table_size('responses')) AS heap, pg_size_pretty(pg_indexes_size('responses')) AS indexes`,
      )
    ).rows[0] ?? {}) as { heap?: string; indexes?: string };
    const cpus = os.cpus();
    const lines: string[] = [];
    const out = (s = '') => lines.push(s);
    out('# feedback-service benchmark');
    out();
    out(`Generated by \`npm run bench\` (bench/run.ts) on ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC.`);
    out();
    out(`- Machine: ${cpus.length} CPU cores (${cpus[0]?.model.trim() ?? 'unknown'}), ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB RAM; Node ${process.version}; PostgreSQL ${pgVersion?.server_version ?? '?'}; Redis local. Database, Redis, servers and load generator share the machine.`);
    out(`- Data: ${total.toLocaleString('en-US')} responses in 1 workspace, ${forms.length} forms (largest ${Number(forms[0]!.n).toLocaleString('en-US')}); responses heap ${sizes.heap}, indexes ${sizes.indexes}.${seededIn !== undefined ? ` Seeded in ${seededIn.toFixed(0)} s.` : ''}`);
    out(`- Latency: ${o.samples} sequential requests per row (${o.offsetSamples} for the page=5000 rows) after a few warm-up requests, through the full app (auth, rate limit in Redis, logging to /dev/null, validator).`);
    out(`- Throughput: autocannon, ${o.connections} connections, ${o.duration} s after a warm-up run; each server in its own process.`);
    out();
    out('## Latency');
    out();
    out('| Request | Items | Samples | Median (ms) | p95 (ms) | Min (ms) |');
    out('|---|---:|---:|---:|---:|---:|');
    for (const l of latencies) out(`| ${l.name} | ${l.items} | ${l.samples} | ${ms(l.median)} | ${ms(l.p95)} | ${ms(l.min)} |`);
    out();
    out(`Date range: \`start_date=${startDate}&end_date=${endDate}\`. Form: the largest one. Deep cursor: built from the row ${depth.toLocaleString('en-US')} rows in, in the default order.`);
    out();
    out('## Per-question analytics (rollups kept with the writes)');
    out();
    out('| Request | Items | Samples | Median (ms) | p95 (ms) | Min (ms) |');
    out('|---|---:|---:|---:|---:|---:|');
    for (const l of analytics) out(`| ${l.name} | ${l.items} | ${l.samples} | ${ms(l.median)} | ${ms(l.p95)} | ${ms(l.min)} |`);
    out();
    out(`**Flatness: median smallest / median largest form = ${(analytics[1]!.median / analytics[0]!.median).toFixed(2)}** (target ≥ 0.8: the largest form answers as fast as the smallest).`);
    out();
    if (exports.length > 0) {
      out('## Export of every response (`GET {ws}/responses/export`)');
      out();
      out('| Export | Rows | MB sent | Seconds | Rows/s | Server RSS before (MiB) | Peak RSS (MiB) | Growth (MiB) |');
      out('|---|---:|---:|---:|---:|---:|---:|---:|');
      for (const e of exports) {
        out(
          `| ${e.name} | ${e.rows.toLocaleString('en-US')} | ${(e.bytes / 1e6).toFixed(0)} | ${e.seconds.toFixed(1)} | ${(e.rows / e.seconds).toFixed(0)} | ${e.rssBeforeMb.toFixed(0)} | ${e.rssPeakMb.toFixed(0)} | ${(e.rssPeakMb - e.rssBeforeMb).toFixed(0)} |`,
        );
      }
      out();
      out('Target: memory flat in the number of rows (1,000,000 rows under 100 MB RSS growth). RSS sampled every 100 ms from /proc.');
      out();
    }
    out('## Throughput: Style A `GET {ws}/responses?limit=20`');
    out();
    out('| Server | Requests/s | p50 (ms) | p99 (ms) | non-2xx | errors |');
    out('|---|---:|---:|---:|---:|---:|');
    for (const t of runs) out(`| ${t.name} | ${t.rps.toFixed(0)} | ${t.latencyP50} | ${t.latencyP99} | ${t.non2xx} | ${t.errors} |`);
    out();
    out(`**Ratio app / bare: ${ratio.toFixed(2)}x** (target ≥ 0.8x); with logging off: ${(runs[2]!.rps / bare.rps).toFixed(2)}x.`);
    out();
    out('## Query plans');
    out();
    out('| Query | Execution (ms) | Plan |');
    out('|---|---:|---|');
    for (const p of plans) out(`| ${p.name} | ${p.executionMs} | ${p.summary.replace(/\|/g, '\\|')} |`);
    out();
    for (const p of plans) {
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
    out(`Total bench time: ${((Date.now() - started) / 1000).toFixed(0)} s.`);
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
  process.stdout.write(report);
  const dir = path.resolve(__dirname, '../../bench/results');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'latest.md'), report);
  log(`wrote ${path.join(dir, 'latest.md')}`);
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
