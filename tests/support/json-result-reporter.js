/**
 * Jest reporter: writes the aggregated result (the same object `jest --json` prints) to .jest-results.json, and
 * prints the fuzz test's line `fuzz: N requests, M answered 5xx` (issue 27 item 6): each fuzz test file writes its
 * counts (`{ project, requests, answered5xx, seeds }`) to a file in FUZZ_COUNTS_DIR, a fresh folder this reporter
 * makes before the workers start (they inherit it), and the line sums them over both projects and seeds.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

class JsonResultReporter {
  constructor(globalConfig) {
    this.file = path.join(globalConfig.rootDir, '.jest-results.json');
    this.fuzzDir = fs.mkdtempSync(path.join(os.tmpdir(), 'feedback-fuzz-'));
    process.env.FUZZ_COUNTS_DIR = this.fuzzDir;
  }
  onRunStart() {
    fs.rmSync(this.file, { force: true });
    // Again for a rerun in watch mode (onRunComplete removes it).
    fs.mkdirSync(this.fuzzDir, { recursive: true });
  }
  onRunComplete(_contexts, results) {
    const { numPassedTests, numFailedTests, numPendingTests, numTotalTests, success, numRuntimeErrorTestSuites } = results;
    const fuzz = this.fuzzCounts();
    fs.writeFileSync(
      this.file,
      JSON.stringify({ numPassedTests, numFailedTests, numPendingTests, numTotalTests, numRuntimeErrorTestSuites, success, ...(fuzz ? { fuzz } : {}) }),
    );
    if (fuzz) {
      console.log(`fuzz: ${fuzz.requests} requests, ${fuzz.answered5xx} answered 5xx`);
      console.log(`fuzz seeds: ${fuzz.runs.map((r) => `${r.project} ${r.seeds.join(' and ')}`).join('; ')} (FUZZ_SEED=<seed> replays a random one)`);
    }
  }
  /** The fuzz files' counts summed, or undefined when no fuzz test ran. */
  fuzzCounts() {
    const runs = fs.readdirSync(this.fuzzDir).map((name) => JSON.parse(fs.readFileSync(path.join(this.fuzzDir, name), 'utf8')));
    fs.rmSync(this.fuzzDir, { recursive: true, force: true });
    if (runs.length === 0) return undefined;
    const sum = (key) => runs.reduce((n, r) => n + r[key], 0);
    return { requests: sum('requests'), answered5xx: sum('answered5xx'), runs };
  }
}

module.exports = JsonResultReporter;
