#!/usr/bin/env node
/**
 * Part of `npm run lint` (layer direction, beside .dependency-cruiser.js): src/core never touches the
 * `process` global (environment, stdin/stdout, exit). Only src/config.ts reads the environment; the
 * CLI and the server own the process.
 */
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..', 'src', 'core');
const problems = [];
const walk = (dir) => {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(file);
    else if (file.endsWith('.ts')) {
      fs.readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          const code = line.replace(/\/\/.*$/, '').replace(/'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|`(?:[^`\\]|\\.)*`/g, '""');
          if (/(^|[^.\w$])process\b(?!\s*:)/.test(code) && !/^\s*\*/.test(line)) {
            problems.push(`${path.relative(process.cwd(), file)}:${i + 1}: the \`process\` global is not used in src/core`);
          }
        });
    }
  }
};
walk(root);
if (problems.length > 0) {
  console.error(problems.join('\n'));
  process.exit(1);
}
