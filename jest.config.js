/** Jest: TypeScript through ts-jest (transpile only, tsconfig has isolatedModules; `npm run typecheck` checks types). */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/tests'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] },
  globalSetup: '<rootDir>/tests/support/global-setup.ts',
  globalTeardown: '<rootDir>/tests/support/global-teardown.ts',
  // Writes .jest-results.json (jest's JSON result) for .ci/run's summary line.
  reporters: ['default', '<rootDir>/tests/support/json-result-reporter.js'],
  testTimeout: 30000,
  maxWorkers: 2,
};
