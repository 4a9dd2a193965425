/**
 * Units a reader can hold (docs/architecture.md, "Units"): no function in src/ is longer than 100 lines. A longer
 * one becomes a context object and a function per part. Functions are found with the TypeScript compiler API;
 * a function's length counts the lines from its first to its last token (nested functions count within their parent
 * too, so the parent has to be short as well).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ts from 'typescript';

const MAX_LINES = 100;
const ROOT = path.resolve(__dirname, '../..');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

function functionName(node: ts.FunctionLikeDeclaration): string {
  if (node.name) return node.name.getText();
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) {
    return parent.name.getText();
  }
  if (ts.isCallExpression(parent)) return `callback of ${parent.expression.getText().slice(0, 40)}`;
  return '(anonymous)';
}

/** Every function-like node in `file` longer than `max` lines, as `path:line name (n lines)`. */
function longFunctions(file: string, max: number): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = end - start + 1;
      if (lines > max) {
        found.push(`${path.relative(ROOT, file)}:${start + 1} ${functionName(node as ts.FunctionLikeDeclaration)} (${lines} lines)`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('function length', () => {
  it(`finds no function in src/ over ${MAX_LINES} lines`, () => {
    const tooLong = sourceFiles(path.join(ROOT, 'src')).flatMap((file) => longFunctions(file, MAX_LINES));
    expect(tooLong).toEqual([]);
  });

  it('names a function that is too long', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'function-length-'));
    const file = path.join(dir, 'long.ts');
    fs.writeFileSync(file, `export function tooLong(): number {\n${'  let x = 1;\n'.repeat(MAX_LINES)}  return 1;\n}\n`);
    try {
      expect(longFunctions(file, MAX_LINES)).toEqual([expect.stringMatching(/long\.ts:1 tooLong \(103 lines\)$/)]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
