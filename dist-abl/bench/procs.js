"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.serve = serve;
exports.procMemoryMb = procMemoryMb;
exports.watchMemory = watchMemory;
/**
 * Processes of the bench: the servers under test, each in a child process (bench/serve.ts), and
 * their memory read from Linux's /proc/<pid>/status (VmRSS: resident now; VmHWM: the peak of
 * VmRSS since the process started). Sizes are in MB (10^6 bytes), as the targets state them.
 */
const node_child_process_1 = require("node:child_process");
const node_fs_1 = __importDefault(require("node:fs"));
const node_path_1 = __importDefault(require("node:path"));
/**
 * Starts `app` (the service as `feedback-service serve` runs it) or `bare` (bench/bare-server.ts) on
 * `databaseUrl` in a child process; its stdout (the app's log) goes to /dev/null. A start that fails
 * is tried up to 4 more times, 3 s apart: on a busy machine the app's 2 s database connect timeout
 * can expire while it starts.
 * @throws the fifth failure to start (the child's error, or its exit before reporting its URL)
 */
async function serve(mode, databaseUrl, logLevel = 'info') {
    for (let attempt = 1;; attempt++) {
        try {
            return await serveOnce(mode, databaseUrl, logLevel);
        }
        catch (e) {
            if (attempt === 5)
                throw e;
            process.stderr.write(`[bench] ${mode} server did not start (${e.message.split('\n')[0]}); trying again in 3 s\n`);
            await new Promise((resolve) => setTimeout(resolve, 3000));
        }
    }
}
async function serveOnce(mode, databaseUrl, logLevel) {
    const child = (0, node_child_process_1.fork)(node_path_1.default.join(__dirname, 'serve.js'), [mode], {
        env: {
            ...process.env,
            BENCH_DATABASE_URL: databaseUrl,
            BENCH_REDIS_URL: process.env.REDIS_URL || 'redis://127.0.0.1:6379',
            BENCH_LOG: logLevel,
        },
        stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    const msg = await new Promise((resolve, reject) => {
        child.once('message', (m) => resolve(m));
        child.once('exit', (code) => reject(new Error(`${mode} server exited with ${code}`)));
    });
    if ('error' in msg)
        throw new Error(`${mode} server failed: ${msg.error}`);
    return {
        url: msg.url,
        pid: child.pid,
        stop: () => new Promise((resolve) => {
            if (child.exitCode !== null)
                return resolve();
            const t = setTimeout(() => child.kill('SIGKILL'), 15_000);
            child.once('exit', () => {
                clearTimeout(t);
                resolve();
            });
            child.send('close');
        }),
    };
}
/** A field of /proc/<pid>/status in MB (`VmRSS`, `VmHWM`), or NaN when unreadable (process gone, not Linux). */
function procMemoryMb(pid, field) {
    try {
        const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(node_fs_1.default.readFileSync(`/proc/${pid}/status`, 'utf8'));
        return m ? (Number(m[1]) * 1024) / 1e6 : NaN;
    }
    catch {
        return NaN;
    }
}
/**
 * Samples a process's VmRSS and VmHWM every `everyMs` (default 100 ms). VmHWM already holds the
 * peak between samples, so the result misses at most the growth of the last interval before the
 * process exits.
 */
function watchMemory(pid, everyMs = 100) {
    let peak = NaN;
    const sample = () => {
        // `!(v <= peak)` also holds while peak is still NaN.
        for (const v of [procMemoryMb(pid, 'VmRSS'), procMemoryMb(pid, 'VmHWM')])
            if (Number.isFinite(v) && !(v <= peak))
                peak = v;
    };
    sample();
    const t = setInterval(sample, everyMs);
    return {
        stop: () => {
            clearInterval(t);
            sample();
            return peak;
        },
    };
}
//# sourceMappingURL=procs.js.map