/**
 * `npm run bench:live` (issue 31 item 5; docs/performance.md, "Live streams"): one `serve` instance (bench/serve.ts,
 * its own process) on a seeded database of a throw-away PostgreSQL server (bench/pg-cluster.ts), with LIVE_STREAMS (default 1,000) open `GET {ws}/responses/stream` streams
 * (Style A, no filter) while a writer submits LIVE_RATE (default 50) responses a second for LIVE_SECONDS (default 20).
 *
 * Measured: the time from sending each response's POST to each stream receiving it (an upper bound of commit-to-client:
 * it includes the write itself), p50 and p99 over every (stream, response) pair, and the deliveries missing at the end;
 * the instance's RSS (peak) and CPU (user + system over the write phase, % of one core); the Style A list
 * (`GET {ws}/responses?limit=20`, autocannon, 16 connections, 10 s) with the writer running, without streams, then
 * with the streams open. The streams are read in this process (Node's http client), which shares the 2 cores.
 * Writes bench/results/live-streams-<date>.md. Never part of the jest suite.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { nanoid } from 'nanoid';
import { runLoad } from './load';
import { procMemoryMb, serve, watchMemory } from './procs';
import { startPgCluster } from './pg-cluster';
import { dropBenchDatabase, seed } from './seed';

const STREAMS = Number(process.env.LIVE_STREAMS ?? 1_000);
const RATE = Number(process.env.LIVE_RATE ?? 50);
const SECONDS = Number(process.env.LIVE_SECONDS ?? 20);
const LIST_SECONDS = 10;

/** user + system CPU ticks of a process (/proc/<pid>/stat fields 14 and 15). */
function cpuTicks(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

const quantile = (xs: number[], q: number) => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};

/** Opens one stream; calls `onResponse(id, at)` per response it receives. Resolves once the headers are in. */
function openStream(url: string, key: string, onResponse: (id: string, at: number) => void): Promise<http.ClientRequest> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: { 'X-API-Key': key, 'X-API-Style': 'A', Accept: 'text/event-stream' }, agent: false }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`stream answered ${res.statusCode}`));
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        const at = performance.now();
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const data = buffer
            .slice(0, end)
            .split('\n')
            .find((l) => l.startsWith('data: '));
          buffer = buffer.slice(end + 2);
          if (data) onResponse((JSON.parse(data.slice(6)) as { id: string }).id, at);
        }
      });
      resolve(req);
    });
    req.on('error', reject);
  });
}

/** Submits RATE responses a second for `seconds`; returns when each id's POST was sent. */
async function write(base: string, key: string, formId: string, seconds: number): Promise<Map<string, number>> {
  const sent = new Map<string, number>();
  const posts: Array<Promise<void>> = [];
  const started = performance.now();
  for (let i = 0; i < RATE * seconds; i++) {
    const due = started + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const at = performance.now();
    posts.push(
      fetch(`${base}/responses`, {
        method: 'POST',
        headers: { 'X-API-Key': key, 'X-API-Style': 'A', 'Idempotency-Key': nanoid(), 'content-type': 'application/json' },
        body: JSON.stringify({ form_id: formId, answers: [{ question_id: 'q_score', value: i % 11 }] }),
      }).then(async (res) => {
        const body = (await res.json()) as { data?: { id: string } };
        if (body.data) sent.set(body.data.id, at);
      }),
    );
  }
  await Promise.all(posts);
  return sent;
}

async function main(): Promise<void> {
  const log = (line: string) => process.stderr.write(`[bench:live] ${line}\n`);
  // A PostgreSQL server of its own: events are readable below the oldest open transaction of the server, so another
  // database's long import on a shared server would hold every stream back (docs/live.md, "Positions", cost).
  const cluster = await startPgCluster({ replicas: 0 });
  const serverUrl = cluster.primary.url('postgres');
  const s = await seed({ responses: 20_000, log, serverUrl });
  process.env.BENCH_STREAMS_PER_KEY = String(STREAMS);
  const server = await serve('app', s.databaseUrl, undefined, 'warn');
  const ws = `${server.url}/api/v1/workspaces/${s.workspaceId}`;
  const list = {
    name: 'Style A list',
    method: 'GET' as const,
    path: `/api/v1/workspaces/${s.workspaceId}/responses?limit=20`,
    headers: { 'X-API-Key': s.apiKey, 'X-API-Style': 'A' },
  };
  try {
    const form = s.formIds[0]!;
    log('list without streams (writer running)');
    const [without] = await Promise.all([runLoad('app', server.url, list, LIST_SECONDS, 16), write(ws, s.apiKey, form, LIST_SECONDS)]);

    log(`opening ${STREAMS} streams`);
    const received = new Map<string, number[]>();
    const streams: http.ClientRequest[] = [];
    for (let i = 0; i < STREAMS; i += 50) {
      const batch = Array.from({ length: Math.min(50, STREAMS - i) }, () =>
        openStream(`${ws}/responses/stream`, s.apiKey, (id, at) => {
          const times = received.get(id);
          if (times) times.push(at);
          else received.set(id, [at]);
        }),
      );
      streams.push(...(await Promise.all(batch)));
    }
    const memory = watchMemory(server.pid);
    const cpuBefore = cpuTicks(server.pid);
    const t0 = performance.now();
    log(`writing ${RATE}/s for ${SECONDS} s; the list for ${LIST_SECONDS} s meanwhile`);
    const [sent, withStreams] = await Promise.all([write(ws, s.apiKey, form, SECONDS), runLoad('app', server.url, list, LIST_SECONDS, 16)]);
    // Let the last events arrive.
    await new Promise((r) => setTimeout(r, 3_000));
    const cpu = ((cpuTicks(server.pid) - cpuBefore) / 100 / ((performance.now() - t0) / 1000)) * 100;
    const peakRss = memory.stop();
    const rssNow = procMemoryMb(server.pid, 'VmRSS');
    const latencies: number[] = [];
    let missing = 0;
    for (const [id, at] of sent) {
      const times = received.get(id) ?? [];
      missing += STREAMS - times.length;
      for (const t of times) latencies.push(t - at);
    }
    streams.forEach((r) => r.destroy());
    const rows = [
      `| ${STREAMS} open streams, ${RATE} responses/s for ${SECONDS} s: POST sent → client, p50 | ${quantile(latencies, 0.5).toFixed(0)} ms | p99 under 1 s |`,
      `| the same, p99 | ${quantile(latencies, 0.99).toFixed(0)} ms | under 1 s |`,
      `| deliveries missing (of ${sent.size} × ${STREAMS}) | ${missing} | 0 |`,
      `| instance RSS, peak (now) | ${peakRss.toFixed(0)} MB (${rssNow.toFixed(0)} MB) | under 300 MB |`,
      `| instance CPU during the writes | ${cpu.toFixed(0)} % of one core | |`,
      `| Style A list, req/s: without streams / with ${STREAMS} streams | ${without.rps.toFixed(0)} / ${withStreams.rps.toFixed(0)} (${(withStreams.rps / without.rps).toFixed(2)}x) | 0.8x or better |`,
    ];
    const text = [
      `# Live streams bench (${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC)`,
      '',
      `Generated by \`npm run bench:live\` (bench/live-streams.ts) with LIVE_STREAMS=${STREAMS}, LIVE_RATE=${RATE}, LIVE_SECONDS=${SECONDS}; one \`serve\` process, a throw-away PostgreSQL server of its own (bench/pg-cluster.ts) and the local Redis, the streams read by the bench process on the same machine.`,
      '',
      '| row | result | target |',
      '|---|---|---|',
      ...rows,
      '',
    ].join('\n');
    const file = path.join(__dirname, '..', '..', 'bench', 'results', `live-streams-${new Date().toISOString().slice(0, 10)}.md`);
    fs.writeFileSync(file, text);
    process.stdout.write(`${text}\nwritten to ${file}\n`);
  } finally {
    await server.stop();
    await dropBenchDatabase(serverUrl, s.databaseName);
    await cluster.destroy();
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
