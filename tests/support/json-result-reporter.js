/** Jest reporter: writes the aggregated result (the same object `jest --json` prints) to .jest-results.json. */
const fs = require('node:fs');
const path = require('node:path');

class JsonResultReporter {
  constructor(globalConfig) {
    this.file = path.join(globalConfig.rootDir, '.jest-results.json');
  }
  onRunStart() {
    fs.rmSync(this.file, { force: true });
  }
  onRunComplete(_contexts, results) {
    const { numPassedTests, numFailedTests, numPendingTests, numTotalTests, success, numRuntimeErrorTestSuites } = results;
    fs.writeFileSync(this.file, JSON.stringify({ numPassedTests, numFailedTests, numPendingTests, numTotalTests, numRuntimeErrorTestSuites, success }));
  }
}

module.exports = JsonResultReporter;
