/**
 * The client check (tools/check-client.js; docs/typescript-client.md, "Regenerating and the CI check") names each
 * generated file that differs, is missing or is left over, and picks the generator's Node by version.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const script = path.join(__dirname, '..', '..', 'tools', 'check-client.js');
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a CommonJS script of tools/, without types
const { compare, atLeast } = require(script) as {
  compare: (committed: string, fresh: string) => string[];
  atLeast: (version: string, min: string) => boolean;
};

const made: string[] = [];
afterAll(() => made.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

function folder(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'client-cmp-'));
  made.push(dir);
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

describe('tools/check-client.js', () => {
  it('finds nothing when both folders hold the same files', () => {
    expect(compare(folder({ 'a.ts': 'a', 'core/b.ts': 'b' }), folder({ 'a.ts': 'a', 'core/b.ts': 'b' }))).toEqual([]);
  });

  it('names files that differ, are missing or are no longer generated', () => {
    const committed = folder({ 'a.ts': 'a', 'core/b.ts': 'b', 'old.ts': 'o' });
    const fresh = folder({ 'a.ts': 'a2', 'core/b.ts': 'b', 'new.ts': 'n' });
    expect(compare(committed, fresh)).toEqual(['not generated any more: old.ts', 'missing from src/generated: new.ts', 'differs: a.ts']);
  });

  it('compares Node versions part by part', () => {
    expect(atLeast('v22.18.0', '22.18.0')).toBe(true);
    expect(atLeast('v22.9.0', '22.18.0')).toBe(false);
    expect(atLeast('v24.0.0', '22.18.0')).toBe(true);
    expect(atLeast('v20.20.2', '22.18.0')).toBe(false);
  });
});
