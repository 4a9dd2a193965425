/** The project root (the folder with package.json), found from this file in src/ or dist/src/. */
import fs from 'node:fs';
import path from 'node:path';

let root: string | undefined;

export function projectRoot(): string {
  if (root) return root;
  let dir = __dirname;
  while (!fs.existsSync(path.join(dir, 'package.json')) || !fs.existsSync(path.join(dir, 'openapi'))) {
    const up = path.dirname(dir);
    if (up === dir) throw new Error('project root not found above ' + __dirname);
    dir = up;
  }
  root = dir;
  return dir;
}
