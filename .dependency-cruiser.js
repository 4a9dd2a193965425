/**
 * Layer direction (README.md, "Development"; `npm run lint:layers` cruises src and migrations): migrations ← src/db ←
 * src/core ← src/adapters ← src/platform, src/pages, src/delivery, src/mcp, src/app.ts, src/server.ts, src/cli. The rules:
 * - core-imports-no-outer-layer: src/core imports no adapters, platform, pages, delivery, CLI or app code, nor the
 *   generated wire types (src/wire: the style's JSON, which adapters make of the core's records).
 * - core-imports-no-framework: src/core imports no HTTP framework, logger, Redis, terminal UI or process module
 *   (the `process` global, which dependency-cruiser cannot see, is checked by tools/lint-core-globals.js).
 * - db-is-the-bottom: src/db imports no project layer.
 * - styles-are-independent: a style folder imports neither the other style nor a module that names both.
 * - adapters-use-no-platform-internals: adapters never reach into auth, stores, logging or the server.
 * - shared-adapters-name-no-style: only the selector (shared-responses.ts) and the presenters table
 *   (presenters.ts) of src/adapters/*.ts import a style folder.
 * - presenters-below-routers: a presenter imports no router, handler or other adapter code but presenters.
 * - delivery-imports-no-router: from src/adapters the delivery worker takes presenters only.
 * - platform-imports-no-adapters: src/platform never imports src/adapters (src/app.ts wires them).
 * - pages-import-no-adapters: src/pages imports core and platform, never src/adapters (src/app.ts hands a page what it
 *   needs from there, such as the presenter of a dashboard download).
 * - mcp-reaches-the-api-over-http: src/mcp (the MCP server) imports no adapter: a tool call is an HTTP request through
 *   the app (src/mcp/dispatch.ts), so it passes every check of the pipeline.
 * - migrations-import-no-src: a migration keeps its meaning when src/ changes.
 * - pg-only-in-db: `pg`, `pg-boss` and `pg-copy-streams` are imported in src/db only (connections, LISTEN,
 *   the pg-boss executor, COPY).
 * - core-imports-no-migrations: src/core never imports migrations/ (src/db may: the pg-boss executor
 *   splits scripts as the migrations do).
 * - knex-only-in-core-and-db: SQL is written in src/core (the stores) and src/db only, so no other layer
 *   imports knex, not even its types (src/db exports Db, DbHandle and DbTransaction); the `.raw(` calls that
 *   knex's import does not show are checked by tools/lint-raw-sql.js.
 * tests/unit/layer-lint.test.ts plants a violation of each rule and expects this lint to name it.
 */

/** The process's database services in src/db (opening and migrating, LISTEN, read replicas, the data-dir lock): the platform, the CLI and the server use them; the core and adapters take a handle. */
const DB_SERVICES = '^src/db/(connection|notifications|replicas|data-dir-lock)\\.ts$';

/** Modules that only shape records into a style's JSON (they sit below the routers). */
const PRESENTERS = '^src/adapters/(presenters|table-data)\\.ts$|^src/adapters/style-[ab]/(present|[^/]+\\.present)\\.ts$';

module.exports = {
  forbidden: [
    {
      name: 'core-imports-no-outer-layer',
      comment:
        "src/core imports no adapters, platform, pages, delivery, CLI, app code or wire types, nor the process's database services in src/db (opening, LISTEN, replicas): it takes a handle (the database types are in src/db).",
      severity: 'error',
      from: { path: '^src/core/' },
      to: { path: '^src/(adapters|platform|pages|delivery|cli|wire)(/|\\.ts$)|^src/(app|server|config)\\.ts$|' + DB_SERVICES },
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
      to: { path: '^src/(core|adapters|platform|pages|delivery|cli)(/|\\.ts$)|^src/(app|server|config)\\.ts$' },
    },
    {
      name: 'styles-are-independent',
      comment:
        'One style never imports the other, nor the modules that name both (the selector, the presenters table); a presenter both need lives in src/adapters/.',
      severity: 'error',
      from: { path: '^src/adapters/style-([ab])/' },
      to: { path: '^src/adapters/style-|^src/adapters/(shared-responses|presenters)\\.ts$', pathNot: '^src/adapters/style-$1/' },
    },
    {
      name: 'adapters-use-no-platform-internals',
      comment: 'Adapters get the database from src/db and never reach into auth, stores, logging or the server.',
      severity: 'error',
      from: { path: '^src/adapters/' },
      to: {
        path:
          DB_SERVICES +
          '|^src/platform/auth/|^src/platform/(redis|idempotency|rate-limit|error-handler|http-log|http-server|request-id)\\.ts$|^src/(app|server|cli)\\.ts$|^src/cli/',
      },
    },
    {
      name: 'shared-adapters-name-no-style',
      comment:
        "Only the selector knows styles: a shared adapter takes what differs from its caller; the selector (shared-responses.ts) picks a style folder's handler and presenters.ts lists the presenters by style for code that is not HTTP.",
      severity: 'error',
      from: { path: '^src/adapters/[^/]+\\.ts$', pathNot: '^src/adapters/(shared-responses|presenters)\\.ts$' },
      to: { path: '^src/adapters/style-' },
    },
    {
      name: 'presenters-below-routers',
      comment: 'A presenter shapes records only: from src/adapters it imports other presenters, never a router or handler.',
      severity: 'error',
      from: { path: PRESENTERS },
      to: { path: '^src/adapters/', pathNot: PRESENTERS },
    },
    {
      name: 'delivery-imports-no-router',
      comment: 'The delivery worker is not HTTP: from src/adapters it takes presenters (presenters.ts), never a router or handler.',
      severity: 'error',
      from: { path: '^src/delivery/' },
      to: { path: '^src/adapters/', pathNot: PRESENTERS },
    },
    {
      name: 'platform-imports-no-adapters',
      comment: 'src/platform serves every adapter and imports none; src/app.ts, the composition root, wires them together.',
      severity: 'error',
      from: { path: '^src/platform/' },
      to: { path: '^src/adapters/' },
    },
    {
      name: 'pages-import-no-adapters',
      comment:
        'The pages call the core (and use platform services), never an adapter: no API handler factory, no style presenter; src/app.ts, the composition root, passes in what a page needs from src/adapters.',
      severity: 'error',
      from: { path: '^src/pages/' },
      to: { path: '^src/adapters/' },
    },
    {
      name: 'mcp-reaches-the-api-over-http',
      comment:
        'The MCP server (src/mcp) reaches the API only through HTTP requests that run through the app (src/mcp/dispatch.ts): never a handler, router or presenter of src/adapters, so every tool call passes authentication, rate limits, validation and idempotency.',
      severity: 'error',
      from: { path: '^src/mcp/' },
      to: { path: '^src/adapters/' },
    },
    {
      name: 'migrations-import-no-src',
      comment: 'A migration records what it did once: it imports nothing from src/, whose code changes later.',
      severity: 'error',
      from: { path: '^migrations/' },
      to: { path: '^src/' },
    },
    {
      name: 'pg-only-in-db',
      comment: 'The PostgreSQL drivers (pg, pg-boss, pg-copy-streams, and the types of pg) are imported in src/db only.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/db/' },
      to: { path: '(^|/)node_modules/(@types/)?(pg|pg-boss|pg-copy-streams)/' },
    },
    {
      name: 'core-imports-no-migrations',
      comment: 'A migration records what it did once; the core reads the schema it left, never its code.',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { path: '^migrations/' },
    },
    {
      name: 'knex-only-in-core-and-db',
      comment: 'SQL only in src/core (the stores) and src/db: no other layer imports knex or its types (src/db exports the handle types).',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(core|db)/' },
      to: { path: '(^|/)node_modules/(knex|knex-pglite)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.json'] },
  },
};
