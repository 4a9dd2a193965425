/**
 * The detail sections of `npm run bench` behind the targets table: sequential latency of single
 * requests, the streaming export (rows/s and the server's RSS), and EXPLAIN (ANALYZE, BUFFERS) of
 * the SQL the service really sends for a list (captured from knex while the core's list function
 * runs). Times in milliseconds, sizes in MiB as the earlier reports gave them.
 */
import { performance } from 'node:perf_hooks';
import type { Knex } from 'knex';
import type pg from 'pg';
import type { Db } from '../src/db/connection';
import { procMemoryMb, type Served } from './procs';

export interface Latency {
  name: string;
  path: string;
  median: number;
  p95: number;
  min: number;
  /** Items of the first answer's `data` (1 when it is not an array). */
  items: number;
  samples: number;
}

function percentile(sorted: number[], p: number): number {
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

/**
 * `samples` sequential GETs of `pathAndQuery` after a few warm-up requests.
 * @throws Error with the status and body when an answer is not 200
 */
export async function measureLatency(base: string, key: string, name: string, pathAndQuery: string, samples: number): Promise<Latency> {
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
      // An HTML page (the dashboard) counts as one item.
      const parsed = (body.startsWith('{') ? JSON.parse(body) : {}) as { data?: unknown };
      items = Array.isArray(parsed.data) ? parsed.data.length : 1;
    }
  }
  times.sort((a, b) => a - b);
  return { name, path: pathAndQuery, median: percentile(times, 50), p95: percentile(times, 95), min: times[0]!, items, samples };
}

export interface ExportRun {
  name: string;
  rows: number;
  bytes: number;
  seconds: number;
  rssBeforeMb: number;
  rssPeakMb: number;
}

const mib = (mb: number) => (mb * 1e6) / 2 ** 20;

/**
 * Streams one export to the end, counting rows (lines; the CSV header excluded) and sampling the
 * server's VmRSS every 100 ms (MiB).
 * @throws Error with the status and body when the answer is not 200
 */
export async function measureExport(server: Served, key: string, name: string, pathAndQuery: string, style: 'A' | 'B', csv: boolean): Promise<ExportRun> {
  const rss = () => mib(procMemoryMb(server.pid, 'VmRSS'));
  const rssBeforeMb = rss();
  let rssPeakMb = rssBeforeMb;
  const sampler = setInterval(() => {
    rssPeakMb = Math.max(rssPeakMb, rss());
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
  rssPeakMb = Math.max(rssPeakMb, rss());
  return { name, rows: csv ? rows - 1 : rows, bytes, seconds: (performance.now() - t) / 1000, rssBeforeMb, rssPeakMb };
}

export interface Plan {
  name: string;
  sql: string;
  text: string;
  executionMs: number;
  summary: string;
}

/**
 * Runs `action` (a call of the core, e.g. listResponsesKeyset) while recording every SQL statement it
 * sends through `db`, then EXPLAINs (ANALYZE, BUFFERS) each distinct statement; plan `i` is named
 * `name` plus ` #i` when the action sent more than one.
 */
export async function explainWhat(db: Db, name: string, action: () => Promise<unknown>): Promise<Plan[]> {
  const seen = new Map<string, { sql: string; bindings: readonly unknown[] }>();
  const onQuery = (q: { sql: string; bindings?: readonly unknown[] }) => {
    if (/^\s*select/i.test(q.sql)) seen.set(JSON.stringify([q.sql, q.bindings ?? []]), { sql: q.sql, bindings: q.bindings ?? [] });
  };
  db.on('query', onQuery);
  try {
    await action();
  } finally {
    db.off('query', onQuery);
  }
  // The captured SQL is pg's native form ($1, $2…): run it on a pg connection of the pool, not through knex.raw.
  const client = db.client as Knex.Client;
  const conn = (await client.acquireConnection()) as pg.PoolClient;
  const plans: Plan[] = [];
  try {
    for (const q of seen.values()) {
      const res = await conn.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${q.sql}`, q.bindings as unknown[]);
      const text = res.rows.map((r) => r['QUERY PLAN']).join('\n');
      plans.push({
        name: seen.size > 1 ? `${name} #${plans.length + 1}` : name,
        sql: q.sql,
        text,
        executionMs: Number(/Execution Time: ([\d.]+) ms/.exec(text)?.[1] ?? NaN),
        summary: summarize(text),
      });
    }
  } finally {
    await client.releaseConnection(conn);
  }
  return plans;
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
