/**
 * Jest transform for @electric-sql/pglite's CommonJS build: it loads Node built-ins with dynamic
 * `import("fs")`, which jest's VM refuses without --experimental-vm-modules. Each becomes a require
 * wrapped as a module namespace (named exports plus `default`).
 */
const crypto = require('node:crypto');
const fs = require('node:fs');

const self = fs.readFileSync(__filename, 'utf8');

module.exports = {
  // jest caches transformed files; the key includes this transform's own source.
  getCacheKey(src, filename) {
    return crypto.createHash('sha256').update(self).update(filename).update(src).digest('hex');
  },
  process(src) {
    // The bundle declares its own `require` in places, so the module's require is kept under another name.
    const code = src.replace(
      /\bimport\((["'][^"']+["'])\)/g,
      'Promise.resolve().then(() => { const m = __jestRequire($1); return new Proxy(m, { get: (t, k) => (k === "default" ? t : t[k]) }); })',
    );
    return { code: `const __jestRequire = require;\n${code}` };
  },
};
