#!/usr/bin/env node
/**
 * Lock file guard, run by .ci/run before `npm ci` (docs/development.md, "The lock file").
 *
 * Usage: node tools/check-lockfile.js [path/to/package-lock.json]   (default: the repository's)
 * Exit 0 when every installed entry of `packages` is complete; exit 1 with one line per bad entry
 * (`node_modules/x: no "version"`), so a lock that some npm would refuse ("Invalid Version") fails
 * CI with the entry's name instead of breaking `npm ci` for everyone.
 *
 * An entry needs `version` and `integrity` (a git dependency: its commit in `resolved` instead);
 * a `resolved` that is there must be https, git or file. Registry entries carry no `resolved` on purpose: this machine's npm writes locks with `omit-lockfile-registry-resolved`, and
 * npm then fetches `name@version` from whatever registry the installing user configured, checking
 * the `integrity`. Links (workspace or `file:` folders) carry only `resolved`.
 */
const fs = require('node:fs');
const path = require('node:path');

/**
 * @param {object} lock a parsed package-lock.json (lockfileVersion 2 or 3)
 * @returns {string[]} one problem per line, empty when the lock is complete
 */
function lockProblems(lock) {
  const problems = [];
  if (!lock || typeof lock.packages !== 'object' || lock.packages === null) {
    return ['package-lock.json: no "packages" map (lockfileVersion 2 or later is required)'];
  }
  for (const [name, entry] of Object.entries(lock.packages)) {
    if (name === '') continue; // the project itself
    if (entry.link) {
      if (!entry.resolved) problems.push(`${name}: a link with no "resolved"`);
      continue;
    }
    if (!entry.version) problems.push(`${name}: no "version"`);
    if (entry.resolved !== undefined && !/^(https:|git\+|file:)/.test(String(entry.resolved))) {
      problems.push(`${name}: "resolved" is not https, git or file: ${entry.resolved}`);
    }
    // A git dependency is pinned by its commit in `resolved`; everything else by its integrity hash.
    const fromGit = /^git\+/.test(String(entry.resolved ?? ''));
    if (!entry.integrity && !fromGit) problems.push(`${name}: no "integrity"`);
  }
  return problems;
}

if (require.main === module) {
  const file = process.argv[2] || path.join(__dirname, '..', 'package-lock.json');
  let problems;
  try {
    problems = lockProblems(JSON.parse(fs.readFileSync(file, 'utf8')));
  } catch (err) {
    problems = [`${file}: ${err.message}`];
  }
  if (problems.length > 0) {
    for (const line of problems) console.error(`lock: ${line}`);
    console.error(`lock: ${problems.length} problem(s); rewrite the lock with the npm in use (docs/development.md)`);
    process.exit(1);
  }
  console.log(`lock: ${Object.keys(JSON.parse(fs.readFileSync(file, 'utf8')).packages).length - 1} entries complete`);
}

module.exports = { lockProblems };
