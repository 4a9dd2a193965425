"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * Child process of bench/run.ts: starts one server and reports its URL over IPC, so the load
 * generator (autocannon, in the parent) never shares an event loop with the server it measures and
 * the parent can read this process's memory from /proc/<pid>/status.
 *
 *   argv[2]: 'app'  the service exactly as `feedback-service serve` starts it (src/server.ts
 *                   startServer: request timeouts, metrics, webhook worker, JSON logs on stdout,
 *                   which the parent sends to /dev/null);
 *            'bare' the baseline of bench/bare-server.ts.
 *   env: BENCH_DATABASE_URL, BENCH_REDIS_URL, BENCH_LOG (log level of the app, default 'info').
 *   IPC: sends `{url}` once listening, or `{error}`; on the message 'close' closes and exits 0.
 */
const config_1 = require("../src/config");
const server_1 = require("../src/server");
const bare_server_1 = require("./bare-server");
async function main() {
    const mode = process.argv[2];
    const databaseUrl = process.env.BENCH_DATABASE_URL ?? '';
    const s = mode === 'bare'
        ? await (0, bare_server_1.startBareServer)(databaseUrl)
        : await (0, server_1.startServer)((0, config_1.loadConfig)({
            databaseUrl,
            redisUrl: process.env.BENCH_REDIS_URL || 'redis://127.0.0.1:6379',
            logLevel: process.env.BENCH_LOG ?? 'info',
            port: 0,
            host: '127.0.0.1',
        }, {}));
    process.on('message', (m) => {
        if (m === 'close')
            void s.close().then(() => process.exit(0));
    });
    process.send?.({ url: s.url });
}
main().catch((e) => {
    process.send?.({ error: e instanceof Error ? (e.stack ?? e.message) : String(e) });
    process.exit(1);
});
//# sourceMappingURL=serve.js.map