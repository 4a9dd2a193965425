/**
 * The layer lint (`npm run lint:layers`, .dependency-cruiser.js) fails on a planted violation of each of
 * its rules and names that rule. The plants go in a temporary tree (src/ and migrations/ as the lint
 * cruises them), so the repository's own files are never touched; the folders cruised are read from the
 * `lint:layers` script itself.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { promisify } from 'node:util';

const root = join(__dirname, '..', '..');
const config = join(root, '.dependency-cruiser.js');
const depcruise = join(root, 'node_modules', '.bin', 'depcruise');

/** Runs a tools/ lint script on a temporary tree holding `files` (path -> text), then removes the tree. */
async function runToolOn(script: string, files: Record<string, string>): Promise<{ code: number; stderr: string }> {
  const tree = mkdtempSync(join(tmpdir(), 'layer-lint-tool-'));
  try {
    for (const [file, text] of Object.entries(files)) {
      mkdirSync(dirname(join(tree, file)), { recursive: true });
      writeFileSync(join(tree, file), text);
    }
    return await promisify(execFile)(process.execPath, [join(root, 'tools', script), tree]).then(
      (out) => ({ code: 0, stderr: out.stderr }),
      (err: { code: number; stderr: string }) => ({ code: err.code, stderr: err.stderr }),
    );
  } finally {
    rmSync(tree, { recursive: true, force: true });
  }
}

interface Plant {
  rule: string;
  /** The planted file, relative to the tree's root. */
  from: string;
  /** The module it imports: a file of the tree (created empty), a Node built-in or a package's main file under node_modules/. */
  to: string;
}

/** The package a `node_modules/<name>/index.js` plant stands for (the tree gets a stub of it). */
const packageOf = (to: string) => /^node_modules\/([^/]+)\/index\.js$/.exec(to)?.[1];

const PLANTS: Plant[] = [
  { rule: 'core-imports-no-outer-layer', from: 'src/core/planted-pages.ts', to: 'src/pages/pages.router.ts' },
  { rule: 'core-imports-no-outer-layer', from: 'src/core/planted-delivery.ts', to: 'src/delivery/payload.ts' },
  { rule: 'core-imports-no-outer-layer', from: 'src/core/planted-platform.ts', to: 'src/platform/logger.ts' },
  { rule: 'core-imports-no-outer-layer', from: 'src/core/planted-db-services.ts', to: 'src/db/connection.ts' },
  { rule: 'core-imports-no-outer-layer', from: 'src/core/planted-wire.ts', to: 'src/wire/types.gen.ts' },
  { rule: 'core-imports-no-framework', from: 'src/core/planted-framework.ts', to: 'node:readline' },
  { rule: 'db-is-the-bottom', from: 'src/db/planted.ts', to: 'src/core/errors.ts' },
  { rule: 'styles-are-independent', from: 'src/adapters/style-a/planted.ts', to: 'src/adapters/style-b/present.ts' },
  { rule: 'styles-are-independent', from: 'src/adapters/style-b/planted.ts', to: 'src/adapters/presenters.ts' },
  { rule: 'adapters-use-no-platform-internals', from: 'src/adapters/planted-internals.ts', to: 'src/platform/redis.ts' },
  { rule: 'adapters-use-no-platform-internals', from: 'src/adapters/planted-db-services.ts', to: 'src/db/replicas.ts' },
  { rule: 'shared-adapters-name-no-style', from: 'src/adapters/planted-style.ts', to: 'src/adapters/style-a/present.ts' },
  { rule: 'presenters-below-routers', from: 'src/adapters/style-a/present.ts', to: 'src/adapters/style-a/router.ts' },
  { rule: 'delivery-imports-no-router', from: 'src/delivery/planted.ts', to: 'src/adapters/style-b/responses.routes.ts' },
  { rule: 'platform-imports-no-adapters', from: 'src/platform/planted.ts', to: 'src/adapters/envelope.ts' },
  { rule: 'mcp-reaches-the-api-over-http', from: 'src/mcp/planted.ts', to: 'src/adapters/envelope.ts' },
  { rule: 'pages-import-no-adapters', from: 'src/pages/planted.ts', to: 'src/adapters/presenters.ts' },
  { rule: 'migrations-import-no-src', from: 'migrations/20990101_999_planted.ts', to: 'src/core/webhooks/queue.ts' },
  { rule: 'pg-only-in-db', from: 'src/platform/planted-pg.ts', to: 'node_modules/pg/index.js' },
  { rule: 'pg-only-in-db', from: 'src/delivery/planted-pg-boss.ts', to: 'node_modules/pg-boss/index.js' },
  { rule: 'pg-only-in-db', from: 'src/core/planted-copy.ts', to: 'node_modules/pg-copy-streams/index.js' },
  { rule: 'core-imports-no-migrations', from: 'src/core/planted-migrations.ts', to: 'migrations/sql-script.ts' },
  { rule: 'knex-only-in-core-and-db', from: 'src/adapters/planted-knex.ts', to: 'node_modules/knex/index.js' },
  { rule: 'knex-only-in-core-and-db', from: 'src/cli/planted-knex.ts', to: 'node_modules/knex/index.js' },
];

/** The import specifier of `to` as written in `from`. */
function specifier(from: string, to: string): string {
  if (to.startsWith('node:')) return to;
  const pkg = packageOf(to);
  if (pkg) return pkg;
  const rel = relative(dirname(from), to).replace(/\.ts$/, '');
  return rel.startsWith('.') ? rel : `./${rel}`;
}

describe('layer lint (.dependency-cruiser.js)', () => {
  let tree: string;

  beforeAll(() => {
    tree = mkdtempSync(join(tmpdir(), 'layer-lint-'));
    writeFileSync(join(tree, 'tsconfig.json'), readFileSync(join(root, 'tsconfig.json')));
    const write = (file: string, text: string) => {
      mkdirSync(dirname(join(tree, file)), { recursive: true });
      writeFileSync(join(tree, file), text);
    };
    for (const p of PLANTS) {
      const pkg = packageOf(p.to);
      if (pkg) {
        write(`node_modules/${pkg}/package.json`, JSON.stringify({ name: pkg, main: 'index.js' }));
        write(p.to, 'module.exports = {};\n');
      } else if (!p.to.startsWith('node:')) write(p.to, 'export {};\n');
    }
    const byFile = new Map<string, string[]>();
    for (const p of PLANTS) byFile.set(p.from, [...(byFile.get(p.from) ?? []), `import '${specifier(p.from, p.to)}';`]);
    for (const [file, lines] of byFile) write(file, `${lines.join('\n')}\nexport {};\n`);
  });

  afterAll(() => {
    rmSync(tree, { recursive: true, force: true });
  });

  it('plants a violation of every rule the config has', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the config is a CommonJS file named at run time
    const rules = (require(config) as { forbidden: Array<{ name: string }> }).forbidden.map((r) => r.name);
    expect([...new Set(PLANTS.map((p) => p.rule))].sort()).toEqual([...rules].sort());
  });

  it('cruises src and migrations in npm run lint:layers', () => {
    const scripts = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(scripts['lint:layers']).toMatch(/^depcruise src migrations --config \.dependency-cruiser\.js /);
    expect(scripts['lint:layers']).toContain('node tools/lint-raw-sql.js');
    expect(scripts['lint:layers']).toContain('node tools/lint-table-owners.js');
  });

  it('fails on a table queried outside its owner store (tools/lint-table-owners.js), naming the file, line, table and owner', async () => {
    const run = await runToolOn('lint-table-owners.js', {
      'src/core/webhooks/outbox.ts':
        "// db('webhook_events') in a comment is no query\nexport const f = (db: (t: string) => unknown) => db('webhook_events');\n",
      'src/core/dashboards/dashboard.ts': "export const q = 'SELECT count(*) FROM response_daily WHERE form_id = ?';\n",
      'src/core/webhooks/webhooks.store.ts': "export const f = (db: (t: string) => unknown) => db('webhook_events');\n",
      'src/core/import/writer.ts': "export const f = (db: (t: string) => unknown) => db('responses');\n",
      'src/core/forms/words.ts': "export const text = 'the responses of a form';\n",
      'migrations/001_planted.ts': 'export const up = `CREATE TABLE IF NOT EXISTS planted_things (id text)`;\n',
    });
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split('\n').sort()).toEqual([
      'migrations/001_planted.ts: table planted_things has no owner in tools/lint-table-owners.js',
      'src/core/dashboards/dashboard.ts:1: table response_daily queried outside its owner src/core/analytics/analytics.store.ts',
      'src/core/webhooks/outbox.ts:2: table webhook_events queried outside its owner src/core/webhooks/webhooks.store.ts',
    ]);
  });

  it('fails on `.raw(` outside src/core and src/db (tools/lint-raw-sql.js), naming the file and line', async () => {
    const run = await runToolOn('lint-raw-sql.js', {
      'src/platform/planted.ts': "// db.raw('in a comment') is not SQL\nexport const n = (db: { raw(s: string): unknown }) => db.raw('select 1');\n",
      'src/core/allowed.ts': "export const n = (db: { raw(s: string): unknown }) => db.raw('select 1');\n",
      'src/db/allowed.ts': "export const n = (db: { raw(s: string): unknown }) => db.raw('select 1');\n",
      'src/adapters/quoted.ts': "export const text = 'call .raw( here';\n",
    });
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split('\n')).toEqual(['src/platform/planted.ts:2: `.raw(` (SQL) outside src/core and src/db']);
  });

  it('fails on each planted violation, naming its rule', async () => {
    // The command of `npm run lint:layers`, run in the planted tree; it prints "error <rule>: <from> → <to>".
    const run = await promisify(execFile)(depcruise, ['src', 'migrations', '--config', config], { cwd: tree }).then(
      (out) => ({ code: 0, stdout: out.stdout }),
      (err: { code: number; stdout: string }) => ({ code: err.code, stdout: err.stdout }),
    );
    expect(run.code).toBe(PLANTS.length);
    const found = [...run.stdout.matchAll(/^\s*error (\S+): (\S+) → (\S+)$/gm)].map(([, rule, from, to]) => ({ rule, from, to }));
    for (const p of PLANTS) expect(found).toContainEqual({ rule: p.rule, from: p.from, to: p.to.replace(/^node:/, '') });
    // Nothing else is flagged: each plant breaks exactly its own rule.
    expect(found).toHaveLength(PLANTS.length);
  }, 60_000);
});
