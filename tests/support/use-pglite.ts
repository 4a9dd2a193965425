/** setupFiles of the `pglite` jest project: tests/support/db.ts opens an in-memory PGlite per test file. */
process.env.TEST_DB_KIND = 'pglite';
