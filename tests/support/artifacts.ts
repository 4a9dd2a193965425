/**
 * Where tests put what a person may want to look at after a run (browser screenshots): `TEST_ARTIFACTS_DIR`,
 * else `test-artifacts/` in the checkout (ignored by git). Keep that folder with a CI run's
 * output to look at them (docs/development.md, "CI").
 */
import fs from 'node:fs';
import path from 'node:path';

/** The path of artifact `name` (e.g. `dashboard-nps-360.png`), its folder created. */
export function artifactPath(name: string): string {
  const dir = process.env.TEST_ARTIFACTS_DIR ?? path.resolve(__dirname, '../../test-artifacts');
  fs.mkdirSync(dir, { recursive: true });
  return path.join(dir, name);
}
