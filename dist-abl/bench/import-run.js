"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.measureImport = measureImport;
/**
 * The import row of `npm run bench`: writes a fixture of N responses with bench/make-fixture.ts
 * (`node dist/bench/make-fixture.js --responses N --out FILE`), then times
 * `node dist/src/cli.js import FILE` against a fresh migrated `fs_bench_*` database, sampling the
 * import process's peak RSS (VmRSS/VmHWM every 100 ms). The database and the file are removed
 * afterwards, whatever happens.
 */
const node_child_process_1 = require("node:child_process");
const node_crypto_1 = require("node:crypto");
const node_fs_1 = __importDefault(require("node:fs"));
const node_os_1 = __importDefault(require("node:os"));
const node_path_1 = __importDefault(require("node:path"));
const node_perf_hooks_1 = require("node:perf_hooks");
const node_util_1 = require("node:util");
const connection_1 = require("../src/platform/db/connection");
const procs_1 = require("./procs");
const seed_1 = require("./seed");
/**
 * Measures one import of `responses` responses.
 * @returns `{measured: false}` when dist/bench/make-fixture.js does not exist (not built yet)
 * @throws when make-fixture or the import exits non-zero (with the tail of its stderr), or when the
 * database holds another number of responses than asked for afterwards
 */
async function measureImport(opts) {
    const makeFixture = node_path_1.default.join(__dirname, 'make-fixture.js');
    if (!node_fs_1.default.existsSync(makeFixture))
        return { measured: false, reason: 'not measured (make-fixture missing)' };
    const file = node_path_1.default.join(node_os_1.default.tmpdir(), `fs-bench-fixture-${(0, node_crypto_1.randomBytes)(4).toString('hex')}.json`);
    let database;
    try {
        opts.log(`import: writing a fixture of ${opts.responses.toLocaleString('en-US')} responses…`);
        let t = node_perf_hooks_1.performance.now();
        await (0, node_util_1.promisify)(node_child_process_1.execFile)(process.execPath, [makeFixture, '--responses', String(opts.responses), '--out', file], { maxBuffer: 64 * 2 ** 20 });
        const fixtureSeconds = (node_perf_hooks_1.performance.now() - t) / 1000;
        const fixtureBytes = node_fs_1.default.statSync(file).size;
        database = await (0, seed_1.createBenchDatabase)(opts.serverUrl);
        opts.log(`import: ${(fixtureBytes / 1e6).toFixed(0)} MB written in ${fixtureSeconds.toFixed(1)} s; importing into ${database.databaseName}…`);
        t = node_perf_hooks_1.performance.now();
        const child = (0, node_child_process_1.spawn)(process.execPath, [node_path_1.default.resolve(__dirname, '../src/cli.js'), 'import', file], {
            env: { ...process.env, DATABASE_URL: database.databaseUrl },
            stdio: ['ignore', 'ignore', 'pipe'],
        });
        const memory = (0, procs_1.watchMemory)(child.pid);
        let stderr = '';
        child.stderr.on('data', (c) => {
            stderr = (stderr + c.toString('utf8')).slice(-4000);
        });
        const code = await new Promise((resolve, reject) => {
            child.once('error', reject);
            child.once('exit', resolve);
        });
        const seconds = (node_perf_hooks_1.performance.now() - t) / 1000;
        const peakRssMb = memory.stop();
        if (code !== 0)
            throw new Error(`import exited with ${code}: ${stderr}`);
        const db = (0, connection_1.createDb)({ databaseUrl: database.databaseUrl, dataDir: '.data', poolMax: 1 });
        const responses = await db('responses')
            .count({ n: '*' })
            .first()
            .then((r) => Number(r.n))
            .finally(() => db.destroy());
        if (responses !== opts.responses)
            throw new Error(`import wrote ${responses} responses, the fixture was asked for ${opts.responses}`);
        return { measured: true, responses, fixtureBytes, fixtureSeconds, seconds, rate: responses / seconds, peakRssMb };
    }
    finally {
        node_fs_1.default.rmSync(file, { force: true });
        if (database)
            await (0, seed_1.dropBenchDatabase)(opts.serverUrl, database.databaseName);
    }
}
//# sourceMappingURL=import-run.js.map