/**
 * Layer direction (STYLE section 3; `npm run lint`): src/db ← src/core ← src/adapters ← src/platform,
 * src/app.ts, src/server.ts, src/cli. The core is style-neutral and framework-free; the `process`
 * global, which dependency-cruiser cannot see, is checked by tools/lint-core-globals.js.
 */
module.exports = {
  forbidden: [
    {
      name: 'core-imports-no-outer-layer',
      comment: 'src/core imports no adapters, platform, CLI or app code (the database types are in src/db).',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { path: '^src/(adapters|platform|cli)(/|\\.ts$)|^src/(app|server|config)\\.ts$' },
    },
    {
      name: 'core-imports-no-framework',
      comment: 'src/core imports no HTTP framework, logger, Redis, terminal UI or process module.',
      severity: 'error',
      from: { path: '^src/core/' },
      to: {
        path: '(^|/)node_modules/(express|express-openapi-validator|pino|pino-http|ioredis|rate-limiter-flexible|cli-progress|commander|supertest)/|^(node:)?(process|child_process|readline|tty)$',
      },
    },
    {
      name: 'db-is-the-bottom',
      comment: 'src/db is below the core: it imports no project layer.',
      severity: 'error',
      from: { path: '^src/db/' },
      to: { path: '^src/(core|adapters|platform|cli)(/|\\.ts$)|^src/(app|server|config)\\.ts$' },
    },
    {
      name: 'styles-are-independent',
      comment: 'One style never imports the other; a presenter both need lives in src/adapters/.',
      severity: 'error',
      from: { path: '^src/adapters/style-([ab])/' },
      to: { path: '^src/adapters/style-', pathNot: '^src/adapters/style-$1/' },
    },
    {
      name: 'adapters-use-no-platform-internals',
      comment: 'Adapters get the database from src/db and never reach into auth, stores, logging or the server.',
      severity: 'error',
      from: { path: '^src/adapters/' },
      to: {
        path: '^src/platform/(db|auth)/|^src/platform/(redis|idempotency|rate-limit|error-handler|http-log|http-server|request-id)\\.ts$|^src/(app|server|cli)\\.ts$|^src/cli/',
      },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.json'] },
  },
};
