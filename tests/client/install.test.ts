/**
 * The TypeScript client installs and imports as docs/typescript-client.md ("Installing it in a project") says:
 * `npm install <abs path>/clients/typescript` in a scratch project (offline: the package has no dependency)
 * builds it through `prepare`; a script using both styles compiles with `tsc --strict` and runs; lines that
 * pass one style's parameters to the other style's query (`@ts-expect-error`) must not compile.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

jest.setTimeout(120_000);

const root = path.resolve(__dirname, '../..');
const clientDir = path.join(root, 'clients/typescript');
const tsc = path.join(root, 'node_modules/typescript/bin/tsc');
const exec = promisify(execFile);
let dir: string;

const SCRIPT = `import { createClient, type ResponsesQueryA, type ResponsesQueryB } from '@feedback-service/client';

const a = createClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'fa_x', style: 'A' });
const b = createClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'fa_x', style: 'B' });

// Style A: typed filters, one value or a list.
const qa: ResponsesQueryA = { limit: 10, score_gte: 9, score_ne: 5, score_in: [9, 10], row_id_present: false, form_id: 'frm_1' };
// Style B: the filter expression, page and dates.
const qb: ResponsesQueryB = { limit: 10, page: 2, filter: 'score in [9, 10]', start_date: '2026-01-01', form_id: 'frm_1' };
const listA = a.responses.list('ws_x', qa);
const pagesB = b.responses.pages('ws_x', qb);

// @ts-expect-error score_ne is a Style A filter (a 400 in a Style B request)
b.responses.pages('ws_x', { score_ne: [5] });
// @ts-expect-error row_id_present is a Style A filter
const notB: ResponsesQueryB = { row_id_present: [false] };
// @ts-expect-error filter is Style B's
a.responses.list('ws_x', { filter: 'score = 5' });

console.log(JSON.stringify([typeof listA.next, typeof pagesB.next, Object.keys(qa).length, Object.keys(qb).length, notB]));
`;

/** `tsc --strict` on one file of the scratch project, with the DOM types the client's declarations use; exit code and output. */
function compile(file: string, emit: boolean): Promise<{ code: number; out: string }> {
  const options = { target: 'ES2022', module: 'commonjs', moduleResolution: 'node', lib: ['ES2022', 'DOM'], types: [], noEmit: !emit };
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: options, files: [file] }));
  return exec(process.execPath, [tsc, '-p', 'tsconfig.json', '--strict'], { cwd: dir }).then(
    (r) => ({ code: 0, out: r.stdout }),
    (e: { code: number; stdout: string }) => ({ code: e.code, out: e.stdout }),
  );
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fs-client-install-'));
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

it("installs from its folder, compiles a two-style script under --strict, and refuses the other style's parameters", async () => {
  // A build left by an earlier run must not stand in for the one the install makes.
  fs.rmSync(path.join(clientDir, 'dist'), { recursive: true, force: true });
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'scratch', version: '1.0.0', private: true }));
  await exec('npm', ['install', '--offline', '--no-audit', '--no-fund', '--loglevel=error', clientDir], { cwd: dir });
  expect(JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).dependencies).toEqual({
    '@feedback-service/client': expect.stringMatching(/^file:/),
  });

  fs.writeFileSync(path.join(dir, 'main.ts'), SCRIPT);
  const compiled = await compile('main.ts', true);
  expect(compiled).toEqual({ code: 0, out: '' });

  const ran = await exec(process.execPath, ['main.js'], { cwd: dir });
  expect(JSON.parse(ran.stdout)).toEqual(['function', 'function', 6, 5, { row_id_present: [false] }]);
});

it('refuses a Style A filter in a Style B query even without @ts-expect-error (the check above is not vacuous)', async () => {
  fs.writeFileSync(
    path.join(dir, 'wrong.ts'),
    "import type { ResponsesQueryB } from '@feedback-service/client';\nexport const q: ResponsesQueryB = { score_ne: [5] };\n",
  );
  const r = await compile('wrong.ts', false);
  expect(r.code).toBe(2);
  expect(r.out).toContain("wrong.ts(2,37): error TS2322: Type 'number[]' is not assignable to type 'undefined'.");
});
