/**
 * The repository stands alone (docs/README.md): no file cites a document that lives outside it, and
 * every `docs/<file>.md` (or `README.md`) a file cites exists, with the heading it names
 * (`docs/api-rules.md, "Dates"`; several headings may follow: `docs/operations.md, "Probes", "Metrics"`).
 * A cited heading matches a Markdown heading of that file exactly, or its start up to a colon or a
 * parenthesis ("Public JSON" names "Public JSON: `POST /api/v1/forms/{form_id}/submissions`", "The hot
 * path" names "The hot path (issue 11)").
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');

/** Tracked files plus new ones git does not ignore; node_modules and dist are never among them. */
function repoFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], { cwd: ROOT, encoding: 'utf8' });
  return [...new Set(out.split('\0').filter(Boolean))]
    .filter((f) => !/^(node_modules|dist)(\/|$)/.test(f))
    .filter((f) => fs.existsSync(path.join(ROOT, f)) && fs.statSync(path.join(ROOT, f)).isFile());
}

/** Text of a file, or undefined for binary files (a NUL byte). */
function text(file: string): string | undefined {
  const buf = fs.readFileSync(path.join(ROOT, file));
  return buf.includes(0) ? undefined : buf.toString('utf8');
}

// Built from pieces so that this file does not match itself.
const OUTSIDE: { what: string; re: RegExp }[] = [
  { what: 'the contract document', re: new RegExp('\\b' + 'CON' + 'TRACT\\b') },
  { what: 'the API document path', re: new RegExp('shared' + '/spec|spec/' + '000_') },
  { what: 'the style guide', re: new RegExp('\\b' + 'STY' + 'LE(\\.md| section| §)') },
  { what: 'a path beside the repository', re: new RegExp('/' + 'work/|\\.\\./shared/') },
];

const files = repoFiles();
const texts = new Map(files.map((f) => [f, text(f)] as const));

/** `file:line: text` of every line matching `re`. */
function hits(re: RegExp): string[] {
  const found: string[] = [];
  for (const [file, body] of texts) {
    body?.split('\n').forEach((line, i) => {
      if (re.test(line)) found.push(`${file}:${i + 1}: ${line.trim()}`);
    });
  }
  return found;
}

/** Heading texts of a Markdown file, backticks removed. */
function headings(body: string): string[] {
  return body
    .split('\n')
    .filter((l) => /^#{1,6}\s/.test(l))
    .map((l) =>
      l
        .replace(/^#+\s+/, '')
        .replace(/`/g, '')
        .trim(),
    );
}

// A `docs/<file>.md` or the root README.md, then optional `, "Heading"` items.
const CITATION = /(?<![\w./-])((?:docs\/[\w-]+|README)\.md)((?:,? "[^"\n]+")*)/g;

describe('the repository stands alone', () => {
  it('lists the repository files', () => {
    expect(files).toContain('docs/README.md');
    expect(files).toContain('src/app.ts');
  });

  it.each(OUTSIDE)('no file cites $what', ({ re }) => {
    expect(hits(re)).toEqual([]);
  });

  it('every cited docs/<file>.md exists, with the headings it names', () => {
    const problems: string[] = [];
    for (const [file, body] of texts) {
      // A released contract is a frozen copy (docs/contract-changes.md, "Releasing"): its citations name
      // the docs as they were then, and a heading renamed since must not fail here.
      if (body === undefined || file.startsWith('openapi/released/')) continue;
      for (const m of body.matchAll(CITATION)) {
        const [, doc, headingList] = m as unknown as [string, string, string];
        const target = texts.get(doc);
        if (target === undefined) {
          problems.push(`${file}: cites ${doc}, which is not in the repository`);
          continue;
        }
        const known = headings(target);
        for (const [, heading] of headingList.matchAll(/"([^"]+)"/g) as IterableIterator<[string, string]>) {
          const h = heading.replace(/`/g, '');
          if (!known.some((k) => k === h || k.startsWith(`${h}:`) || k.startsWith(`${h} (`))) problems.push(`${file}: ${doc} has no heading "${heading}"`);
        }
      }
    }
    expect(problems).toEqual([]);
  });
});
