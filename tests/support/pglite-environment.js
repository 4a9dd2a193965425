/**
 * Test environment of the `pglite` jest project. This module lives once per jest worker: after the
 * worker's first test file migrated its in-memory database, later files start from a dump of it
 * (`globalThis.__pgliteShared.dump`, read and written by tests/support/db.ts) instead of migrating again.
 */
const { TestEnvironment } = require('jest-environment-node');

/** Per worker: { dump?: Uint8Array } */
const shared = {};

class PgliteEnvironment extends TestEnvironment {
  async setup() {
    await super.setup();
    this.global.__pgliteShared = shared;
  }
}

module.exports = PgliteEnvironment;
