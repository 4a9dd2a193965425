#!/usr/bin/env node
/**
 * Part of `npm run lint:layers` (beside .dependency-cruiser.js, whose knex-only-in-core-and-db rule sees
 * imports): SQL is written in src/core (the stores) and src/db only, so no other file of src/ calls
 * `.raw(` (knex's raw SQL, reachable on a handle without importing knex). Comments and string contents
 * are not read.
 *   node tools/lint-raw-sql.js [ROOT]   ROOT: the tree to check (default: this repository)
 */
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(process.argv[2] ?? path.join(__dirname, '..'));
const src = path.join(root, 'src');
/** Folders of src/ where SQL belongs. */
const ALLOWED = ['core', 'db'].map((d) => path.join(src, d) + path.sep);

const problems = [];
const walk = (dir) => {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(file);
    else if (file.endsWith('.ts') && !ALLOWED.some((a) => file.startsWith(a))) {
      const code = fs
        .readFileSync(file, 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' '))
        .split('\n')
        .map((line) => line.replace(/'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|`(?:[^`\\]|\\.)*`/g, '""').replace(/\/\/.*$/, ''));
      code.forEach((line, i) => {
        if (/\.raw\s*\(/.test(line)) problems.push(`${path.relative(root, file)}:${i + 1}: \`.raw(\` (SQL) outside src/core and src/db`);
      });
    }
  }
};
if (fs.existsSync(src)) walk(src);
if (problems.length > 0) {
  console.error(problems.join('\n'));
  process.exit(1);
}
