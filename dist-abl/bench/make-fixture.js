"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.writeFixture = writeFixture;
/**
 * A large fixture document (CONTRACT section 9) for the import benchmark, written as a stream: one
 * workspace, one API key, the 5 forms of bench/seed.ts and N responses with answers; about 1 in 5
 * responses came by e-mail (`respondent_email` and `email_id`). Responses are generated in chunks
 * and written with back-pressure, so memory stays flat whatever N is. Deterministic for a seed
 * (ids included: a seeded file imports once per database).
 *
 *   node dist/bench/make-fixture.js --responses N --out FILE [--seed S]
 */
const node_crypto_1 = require("node:crypto");
const node_fs_1 = __importDefault(require("node:fs"));
const node_events_1 = require("node:events");
const commander_1 = require("commander");
const demo_1 = require("../src/core/seed/demo");
const seed_1 = require("./seed");
/** Responses serialized per write. */
const CHUNK = 2_000;
const DAY_MS = 86_400_000;
/** Response `i` (0-based) as the fixture gives it: form by FORM_SHARES, NPS-like score skewed high. */
function response(i, formIds, rand, suffix, nowMs) {
    const u = rand();
    let f = 0;
    for (let acc = seed_1.FORM_SHARES[0]; u >= acc && f < formIds.length - 1; acc += seed_1.FORM_SHARES[++f])
        ;
    const score = Math.min(10, Math.floor(11 * Math.pow(rand(), 0.55)));
    const answers = [
        { question_id: 'q_score', value: score },
        { question_id: 'q_plan', value: { id: seed_1.PLAN_OPTIONS[Math.floor(rand() * seed_1.PLAN_OPTIONS.length)].id } },
    ];
    if (rand() < 0.35)
        answers.push({ question_id: 'q_comment', value: seed_1.COMMENTS[Math.floor(rand() * seed_1.COMMENTS.length)] });
    const email = rand() < 0.2;
    return {
        id: `rsp_${suffix}_${i}`,
        form_id: formIds[f],
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
async function writeFixture(file, opts) {
    const rand = (0, demo_1.prng)(opts.seed ?? (0, node_crypto_1.randomInt)(2 ** 31));
    const suffix = Math.floor(rand() * 2 ** 32).toString(16).padStart(8, '0');
    const workspaceId = `ws_imp${suffix}`;
    const formIds = seed_1.FORM_NAMES.map((_, i) => `frm_imp${i}${suffix}`);
    const head = {
        workspaces: [{ id: workspaceId, name: 'Import benchmark', link: `import-bench-${suffix}` }],
        api_keys: [{ id: `key_imp${suffix}`, name: 'import benchmark', workspace_ids: [workspaceId] }],
        forms: (0, seed_1.benchForms)(workspaceId, formIds),
    };
    const nowMs = Date.now();
    const out = node_fs_1.default.createWriteStream(file);
    const failed = new Promise((_, reject) => out.once('error', reject));
    failed.catch(() => undefined);
    const write = async (text) => {
        if (!out.write(text))
            await Promise.race([(0, node_events_1.once)(out, 'drain'), failed]);
    };
    await write(`${JSON.stringify(head).slice(0, -1)},"responses":[`);
    for (let start = 0; start < opts.responses; start += CHUNK) {
        const end = Math.min(opts.responses, start + CHUNK);
        const parts = [];
        for (let i = start; i < end; i++)
            parts.push(JSON.stringify(response(i, formIds, rand, suffix, nowMs)));
        await write((start === 0 ? '' : ',') + parts.join(','));
    }
    await write(']}\n');
    out.end();
    await Promise.race([(0, node_events_1.once)(out, 'finish'), failed]);
    return { workspaceId, formIds, bytes: out.bytesWritten };
}
async function main() {
    const program = new commander_1.Command()
        .name('make-fixture')
        .requiredOption('--out <file>', 'the fixture file to write')
        .option('--responses <n>', 'responses in the file', (v) => Number.parseInt(v, 10), 1_000_000)
        .option('--seed <n>', 'PRNG seed (default: random)', (v) => Number.parseInt(v, 10))
        .parse();
    const o = program.opts();
    const started = Date.now();
    const r = await writeFixture(o.out, { responses: o.responses, seed: o.seed });
    process.stdout.write(`${JSON.stringify({ file: o.out, responses: o.responses, ...r })}\n`);
    process.stderr.write(`[make-fixture] ${(r.bytes / 1_048_576).toFixed(1)} MB in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}
if (require.main === module) {
    main().catch((e) => {
        process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
        process.exit(1);
    });
}
//# sourceMappingURL=make-fixture.js.map