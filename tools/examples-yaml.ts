/**
 * Text edits of openapi/openapi.yaml for tools/capture-examples.ts. The document is edited as text, not
 * loaded and dumped, so its comments and hand-kept layout stay and a capture changes only `examples`:
 * a node is found by its key path through indentation (the document is block-style YAML, two spaces
 * per level), and the new parts are dumped with js-yaml in the document's own style (line width 120).
 */
import yaml from 'js-yaml';

interface Block {
  /** Line of the key. */
  line: number;
  /** One past the node's last non-blank line. */
  end: number;
  indent: number;
}

const indentOf = (line: string) => line.length - line.trimStart().length;
const blank = (line: string) => line.trim() === '' || line.trimStart().startsWith('#');

/** The key a line holds at exactly `indent` spaces, quotes removed; undefined for other lines. */
function keyAt(line: string, indent: number): string | undefined {
  if (blank(line) || indentOf(line) !== indent) return undefined;
  const m = /^(?:'((?:[^']|'')*)'|"([^"]*)"|([^'"\s#-][^:]*?|-[^\s:][^:]*?)):(?:\s|$)/.exec(line.slice(indent));
  if (!m) return undefined;
  return m[1] !== undefined ? m[1].replace(/''/g, "'") : (m[2] ?? m[3]);
}

/** The end of the node whose key is on `line`: the next non-blank line at its indent or less. */
function endOf(lines: string[], line: number): number {
  const indent = indentOf(lines[line]!);
  let end = line + 1;
  for (let i = line + 1; i < lines.length; i++) {
    if (blank(lines[i]!)) continue;
    if (indentOf(lines[i]!) <= indent) break;
    end = i + 1;
  }
  return end;
}

/**
 * The node at a key path (`['paths', '/f/{form_id}', 'get', 'responses', '200', 'content', 'text/html']`).
 * @throws Error naming the first key not found.
 */
function locate(lines: string[], keys: string[]): Block {
  let from = 0;
  let to = lines.length;
  let indent = 0;
  let found: Block | undefined;
  for (const key of keys) {
    const line = lines.slice(from, to).findIndex((l) => keyAt(l, indent) === key);
    if (line < 0) throw new Error(`openapi.yaml has no ${keys.slice(0, keys.indexOf(key) + 1).join(' → ')}`);
    found = { line: from + line, end: endOf(lines, from + line), indent };
    from = found.line + 1;
    to = found.end;
    const child = lines.slice(from, to).find((l) => !blank(l));
    indent = child === undefined ? indent + 2 : indentOf(child);
  }
  return found!;
}

/** `value` dumped as YAML in the document's style, every line indented by `indent` spaces. */
function dump(value: unknown, indent: number): string[] {
  const text = yaml.dump(value, { lineWidth: 120, noRefs: true });
  return text
    .replace(/\n$/, '')
    .split('\n')
    .map((l) => (l === '' ? l : ' '.repeat(indent) + l));
}

/** Removes the child `name` (with its node) of a block; returns the lines removed. */
function removeChild(lines: string[], block: Block, name: string): number {
  const childIndent = block.indent + 2;
  for (let i = block.line + 1; i < block.end; i++) {
    if (keyAt(lines[i]!, childIndent) === name) {
      const n = endOf(lines, i) - i;
      lines.splice(i, n);
      return n;
    }
  }
  return 0;
}

/**
 * Sets the `examples` of the media type object at `at` to `$ref`s into `components/examples`
 * (example name → component name), replacing its `examples` or `example`.
 */
export function setExampleRefs(text: string, at: string[], examples: Record<string, string>): string {
  const lines = text.split('\n');
  let block = locate(lines, at);
  for (const name of ['examples', 'example']) {
    const removed = removeChild(lines, block, name);
    if (removed > 0) block = locate(lines, at);
  }
  const refs = Object.fromEntries(
    Object.keys(examples)
      .sort()
      .map((name) => [name, { $ref: `#/components/examples/${examples[name]}` }]),
  );
  lines.splice(block.end, 0, ...dump({ examples: refs }, block.indent + 2));
  return lines.join('\n');
}

/** Replaces `components.examples` (added as the last member of `components` when missing). */
export function setExamplesSection(text: string, examples: Record<string, unknown>): string {
  const lines = text.split('\n');
  let components = locate(lines, ['components']);
  if (removeChild(lines, components, 'examples') > 0) components = locate(lines, ['components']);
  lines.splice(components.end, 0, ...dump({ examples }, components.indent + 2));
  return lines.join('\n');
}
