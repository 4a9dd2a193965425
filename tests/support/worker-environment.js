/**
 * Test environment of both jest projects: jest's node environment plus `globalThis.__workerShared`, one object per
 * jest worker (this module is loaded once per worker, outside the test files' module registries), for what is
 * worth keeping from one test file to the next in a worker: the compiled openapi/ validators
 * (tests/support/share-validators.ts) and, in the `pglite` project, the migrated database's dump.
 */
const { TestEnvironment } = require('jest-environment-node');

/** Per worker: { validators?: Map, pgliteDump?: Uint8Array } */
const shared = {};

class WorkerEnvironment extends TestEnvironment {
  // In the constructor, not setup(): jest runs a project's setupFiles before the environment's setup().
  constructor(config, context) {
    super(config, context);
    this.global.__workerShared = shared;
  }
}

module.exports = WorkerEnvironment;
