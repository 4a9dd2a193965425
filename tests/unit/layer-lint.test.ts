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

interface Plant {
  rule: string;
  /** The planted file, relative to the tree's root. */
  from: string;
  /** The module it imports: a file of the tree (created empty) or a Node built-in. */
  to: string;
}

const PLANTS: Plant[] = [
  { rule: 'core-imports-no-outer-layer', from: 'src/core/planted-pages.ts', to: 'src/pages/pages.router.ts' },
  { rule: 'core-imports-no-outer-layer', from: 'src/core/planted-delivery.ts', to: 'src/delivery/payload.ts' },
  { rule: 'core-imports-no-outer-layer', from: 'src/core/planted-platform.ts', to: 'src/platform/logger.ts' },
  { rule: 'core-imports-no-framework', from: 'src/core/planted-framework.ts', to: 'node:readline' },
  { rule: 'db-is-the-bottom', from: 'src/db/planted.ts', to: 'src/core/errors.ts' },
  { rule: 'styles-are-independent', from: 'src/adapters/style-a/planted.ts', to: 'src/adapters/style-b/present.ts' },
  { rule: 'styles-are-independent', from: 'src/adapters/style-b/planted.ts', to: 'src/adapters/presenters.ts' },
  { rule: 'adapters-use-no-platform-internals', from: 'src/adapters/planted-internals.ts', to: 'src/platform/redis.ts' },
  { rule: 'shared-adapters-name-no-style', from: 'src/adapters/planted-style.ts', to: 'src/adapters/style-a/present.ts' },
  { rule: 'presenters-below-routers', from: 'src/adapters/style-a/present.ts', to: 'src/adapters/style-a/router.ts' },
  { rule: 'delivery-imports-no-router', from: 'src/delivery/planted.ts', to: 'src/adapters/style-b/responses.routes.ts' },
  { rule: 'platform-imports-no-adapters', from: 'src/platform/planted.ts', to: 'src/adapters/envelope.ts' },
  { rule: 'migrations-import-no-src', from: 'migrations/20990101_999_planted.ts', to: 'src/core/webhooks/queue.ts' },
];

/** The import specifier of `to` as written in `from`. */
function specifier(from: string, to: string): string {
  if (to.startsWith('node:')) return to;
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
    for (const p of PLANTS) if (!p.to.startsWith('node:')) write(p.to, 'export {};\n');
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
