/**
 * A large fixture document (docs/import.md, "The fixture document") for the import benchmark, written as a stream: one
 * workspace, one API key, the 5 forms of bench/seed.ts and N responses with answers; about 1 in 5
 * responses came by e-mail (`respondent_email` and `email_id`). Responses are generated in chunks
 * and written with back-pressure, so memory stays flat whatever N is. Deterministic for a seed
 * (ids included: a seeded file imports once per database).
 *
 *   node dist/bench/make-fixture.js --responses N --out FILE [--seed S]
 */
import { randomInt } from 'node:crypto';
import fs from 'node:fs';
import { once } from 'node:events';
import { Command } from 'commander';
import type { FixtureDocument, FixtureResponse } from '../src/core/import/fixture-schema';
import { prng } from '../src/core/seed/demo';
import { benchForms, COMMENTS, FORM_NAMES, FORM_SHARES, PLAN_OPTIONS } from './seed';

export interface FixtureOptions {
  responses: number;
  /** PRNG seed (default: random): the same seed gives the same responses, ids included. */
  seed?: number;
}

/** Responses serialized per write. */
const CHUNK = 2_000;
const DAY_MS = 86_400_000;

/** Response `i` (0-based) as the fixture gives it: form by FORM_SHARES, NPS-like score skewed high. */
function response(i: number, formIds: string[], rand: () => number, suffix: string, nowMs: number): FixtureResponse {
  const u = rand();
  let f = 0;
  for (let acc = FORM_SHARES[0]!; u >= acc && f < formIds.length - 1; acc += FORM_SHARES[++f]!);
  const score = Math.min(10, Math.floor(11 * Math.pow(rand(), 0.55)));
  const answers: FixtureResponse['answers'] = [
    { question_id: 'q_score', value: score },
    { question_id: 'q_plan', value: { id: PLAN_OPTIONS[Math.floor(rand() * PLAN_OPTIONS.length)]!.id } },
  ];
  if (rand() < 0.35) answers.push({ question_id: 'q_comment', value: COMMENTS[Math.floor(rand() * COMMENTS.length)]! });
  const email = rand() < 0.2;
  return {
    id: `rsp_${suffix}_${i}`,
    form_id: formIds[f]!,
    score,
    created_at: new Date(nowMs - Math.floor(rand() * 365 * DAY_MS)).toISOString(),
    ...(email ? { respondent_email: `person${i}@example.com`, email_id: `em_${suffix}_${i}` } : {}),
    answers,
  };
}

/**
 * Writes the benchmark fixture to `file` (overwritten).
 * @returns the workspace and form ids in the file and its size in bytes.
 * @throws the write stream's error (e.g. ENOENT for a missing folder, ENOSPC).
 */
export async function writeFixture(file: string, opts: FixtureOptions): Promise<{ workspaceId: string; formIds: string[]; bytes: number }> {
  const rand = prng(opts.seed ?? randomInt(2 ** 31));
  const suffix = Math.floor(rand() * 2 ** 32)
    .toString(16)
    .padStart(8, '0');
  const workspaceId = `ws_imp${suffix}`;
  const formIds = FORM_NAMES.map((_, i) => `frm_imp${i}${suffix}`);
  const head: FixtureDocument = {
    workspaces: [{ id: workspaceId, name: 'Import benchmark', link: `import-bench-${suffix}` }],
    api_keys: [{ id: `key_imp${suffix}`, name: 'import benchmark', workspace_ids: [workspaceId] }],
    forms: benchForms(workspaceId, formIds),
  };
  const nowMs = Date.now();
  const out = fs.createWriteStream(file);
  const failed = new Promise<never>((_, reject) => out.once('error', reject));
  failed.catch(() => undefined);
  const write = async (text: string) => {
    if (!out.write(text)) await Promise.race([once(out, 'drain'), failed]);
  };
  await write(`${JSON.stringify(head).slice(0, -1)},"responses":[`);
  for (let start = 0; start < opts.responses; start += CHUNK) {
    const end = Math.min(opts.responses, start + CHUNK);
    const parts: string[] = [];
    for (let i = start; i < end; i++) parts.push(JSON.stringify(response(i, formIds, rand, suffix, nowMs)));
    await write((start === 0 ? '' : ',') + parts.join(','));
  }
  await write(']}\n');
  out.end();
  await Promise.race([once(out, 'finish'), failed]);
  return { workspaceId, formIds, bytes: out.bytesWritten };
}

async function main(): Promise<void> {
  const program = new Command()
    .name('make-fixture')
    .requiredOption('--out <file>', 'the fixture file to write')
    .option('--responses <n>', 'responses in the file', (v) => Number.parseInt(v, 10), 1_000_000)
    .option('--seed <n>', 'PRNG seed (default: random)', (v) => Number.parseInt(v, 10))
    .parse();
  const o = program.opts<{ out: string; responses: number; seed?: number }>();
  const started = Date.now();
  const r = await writeFixture(o.out, { responses: o.responses, seed: o.seed });
  process.stdout.write(`${JSON.stringify({ file: o.out, responses: o.responses, ...r })}\n`);
  process.stderr.write(`[make-fixture] ${(r.bytes / 1_048_576).toFixed(1)} MB in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}

if (require.main === module) {
  main().catch((e: unknown) => {
    process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  });
}
