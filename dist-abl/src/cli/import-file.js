"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.importFixtureFile = importFixtureFile;
/**
 * `import FILE` (CONTRACT section 1): the CLI side of an import. Opens the file (stdin for `-`, first
 * spooled to a temporary file, since the importer reads the document more than once) as a JSON source
 * for the core's importer, and draws the progress bar (records written and rows per second) on stderr
 * on request.
 */
const node_fs_1 = __importDefault(require("node:fs"));
const node_os_1 = __importDefault(require("node:os"));
const node_path_1 = __importDefault(require("node:path"));
const promises_1 = require("node:stream/promises");
const cli_progress_1 = __importDefault(require("cli-progress"));
const importer_1 = require("../core/import/importer");
const json_scanner_1 = require("../core/import/json-scanner");
/** Bytes per read: large chunks keep the scanner's per-chunk work small. */
const READ_CHUNK = 1 << 20;
/** Copies stdin to a new temporary file. @returns its path and a function that removes it. */
async function spoolStdin() {
    const dir = node_fs_1.default.mkdtempSync(node_path_1.default.join(node_os_1.default.tmpdir(), 'feedback-import-'));
    const remove = () => node_fs_1.default.rmSync(dir, { recursive: true, force: true });
    const file = node_path_1.default.join(dir, 'stdin.json');
    try {
        await (0, promises_1.pipeline)(process.stdin, node_fs_1.default.createWriteStream(file));
    }
    catch (e) {
        remove();
        throw e;
    }
    return { file, remove };
}
/** A progress callback drawing `Importing [bar] n/total records | rows/s` on stderr. */
function progressBar() {
    const bar = new cli_progress_1.default.SingleBar({
        format: 'Importing [{bar}] {percentage}% | {value}/{total} records | {rate} rows/s | {duration_formatted}',
        stream: process.stderr,
        hideCursor: true,
        clearOnComplete: false,
        fps: 10,
    }, cli_progress_1.default.Presets.shades_classic);
    let started;
    return {
        onProgress: (done, total) => {
            if (started === undefined) {
                started = Date.now();
                bar.start(total, done, { rate: 0 });
            }
            const seconds = (Date.now() - started) / 1000;
            bar.update(done, { rate: seconds > 0 ? Math.round(done / seconds) : 0 });
        },
        stop: () => {
            if (started !== undefined)
                bar.stop();
        },
    };
}
/**
 * Imports a fixture file (`-` for stdin) in one transaction (CONTRACT sections 1 and 9).
 * @returns the import summary.
 * @throws ImportError for malformed JSON (path `$`) or any problem of the document (nothing written);
 * Error (with the file name) when the file cannot be read.
 */
async function importFixtureFile(db, file, opts) {
    let spooled;
    if (file === '-') {
        spooled = await spoolStdin();
    }
    else {
        try {
            node_fs_1.default.accessSync(file, node_fs_1.default.constants.R_OK);
        }
        catch (e) {
            throw new Error(`cannot read "${file}": ${e.code === 'ENOENT' ? 'no such file' : e.message}`);
        }
    }
    const source = (0, json_scanner_1.jsonSource)(() => node_fs_1.default.createReadStream(spooled?.file ?? file, { highWaterMark: READ_CHUNK }));
    const bar = opts.progress ? progressBar() : undefined;
    try {
        return await (0, importer_1.importFixtureSource)(db, source, { now: opts.now, onProgress: bar?.onProgress });
    }
    finally {
        bar?.stop();
        spooled?.remove();
    }
}
//# sourceMappingURL=import-file.js.map