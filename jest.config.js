/**
 * Jest: TypeScript through ts-jest (transpile only, tsconfig has isolatedModules; `npm run typecheck` checks types).
 * Two projects, both run by `npm test` (docs/api-rules.md, "Both databases answer alike"):
 * - `postgres`: every test, on the PostgreSQL database global-setup creates;
 * - `pglite`: the component tests again, each file on its own in-memory embedded database (PGlite).
 *   Left out there, because they do not use the project's database: cli.test.ts, import-file.test.ts, mcp-stdio.test.ts, scale-out.test.ts and
 *   ops/cli-lifecycle (spawn the CLI against a PostgreSQL URL), ops/data-dir-lock, ops/demo-start and ops/public-url (spawn the CLI on a folder of their own), rate-limit.test.ts (Redis budgets and outages), ops/db-errors,
 *   ops/outages and ops/server-close (PostgreSQL outages through a TCP proxy, pools of a server URL), ops/traces (spawns
 *   the CLI on a database of its own), and the
 *   webhook files that bring their own database (delivery, every-way-in, processes; embedded spawns PGlite itself),
 *   writes/crash (kills and races real server processes on a database of its own: PGlite serves one process), and
 *   head.test.ts (HEAD is the HTTP layer's: the GET handlers it repeats run on PGlite in their own files).
 */
const transform = { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] };
module.exports = {
  globalSetup: '<rootDir>/tests/support/global-setup.ts',
  globalTeardown: '<rootDir>/tests/support/global-teardown.ts',
  // Writes .jest-results.json (jest's JSON result) for .ci/run's summary line.
  reporters: ['default', '<rootDir>/tests/support/json-result-reporter.js'],
  testTimeout: 30000,
  // Three workers on two cores: many files wait on child processes, timers and sockets, so a third overlaps those waits
  // (one suite run went from about 13 to 10.5 minutes; docs/development.md, "CI").
  maxWorkers: 3,
  projects: [
    {
      displayName: 'postgres',
      // Node's environment plus one object per worker that test files share (compiled validators).
      testEnvironment: '<rootDir>/tests/support/worker-environment.js',
      roots: ['<rootDir>/tests'],
      testMatch: ['**/*.test.ts'],
      setupFiles: ['<rootDir>/tests/support/share-validators.ts'],
      transform,
    },
    {
      displayName: 'pglite',
      // The same, where the worker's files also share a dump of the first migrated database.
      testEnvironment: '<rootDir>/tests/support/worker-environment.js',
      roots: ['<rootDir>/tests'],
      testMatch: ['<rootDir>/tests/component/**/*.test.ts'],
      testPathIgnorePatterns: [
        '/node_modules/',
        '/tests/component/platform/(cli|import-file|mcp-stdio|rate-limit|scale-out)\\.test\\.ts$',
        '/tests/component/ops/(cli-lifecycle|data-dir-lock|db-errors|demo-start|outages|public-url|server-close|traces)\\.test\\.ts$',
        '/tests/component/webhooks/(delivery|every-way-in|processes|embedded)\\.test\\.ts$',
        '/tests/component/writes/crash\\.test\\.ts$',
        // HEAD is answered by the HTTP layer alone: the GET handlers it repeats run on this database in their own files.
        '/tests/component/platform/head\\.test\\.ts$',
      ],
      setupFiles: ['<rootDir>/tests/support/use-pglite.ts', '<rootDir>/tests/support/share-validators.ts'],
      transform: { ...transform, '@electric-sql/pglite/dist/.+\\.cjs$': '<rootDir>/tests/support/pglite-transform.js' },
      transformIgnorePatterns: ['/node_modules/(?!@electric-sql/pglite/)'],
    },
  ],
};
