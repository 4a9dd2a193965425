/**
 * Docs that stay true (issue 26 item 6): the introduction of `/docs` (openapi/openapi.yaml, info.description,
 * "Two styles") names every shared path (each operation that takes `X-API-Style`; the dashboard-link paths were
 * missing); docs/, README.md, the client's README and examples/ name the API key variable one way,
 * `FEEDBACK_API_KEY`, and cite what is in the repository, not "the product's API document".
 */
import fs from 'node:fs';
import path from 'node:path';
import { loadOpenApiDocument } from '../../src/platform/openapi';
import { projectRoot } from '../../src/platform/paths';
import { documentOperations } from '../support/openapi-ops';

describe('the /docs introduction', () => {
  it('lists every shared path of openapi/', () => {
    const description = String((loadOpenApiDocument().info as { description?: unknown }).description);
    const shared = [
      ...new Set(
        documentOperations()
          .filter((o) => o.shared)
          .map((o) => o.template),
      ),
    ];
    const short = (template: string) => template.replace(/^\/api\/v1\/workspaces\/\{workspace_id\}/, '{ws}');
    expect(shared.length).toBeGreaterThanOrEqual(6);
    expect(shared.filter((t) => !description.includes(`\`${short(t)}\``))).toEqual([]);
  });
});

/** The text of docs/*.md, README.md, the client's README, examples/ and openapi/openapi.yaml, by file. */
function docFiles(): Array<[string, string]> {
  const root = projectRoot();
  const files = [
    ...fs
      .readdirSync(path.join(root, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
    ...fs.readdirSync(path.join(root, 'examples')).map((f) => `examples/${f}`),
    'README.md',
    'clients/typescript/README.md',
    'openapi/openapi.yaml',
  ];
  return files.map((f) => [f, fs.readFileSync(path.join(root, f), 'utf8')]);
}

describe('docs and examples', () => {
  it('name the API key variable FEEDBACK_API_KEY, never KEY, FEEDBACK_KEY or API_KEY', () => {
    const other = /(?<![A-Z_])(\$\{?KEY\b|KEY=|FEEDBACK_KEY\b|\$\{?API_KEY\b|(?<!_)API_KEY=)/;
    const found = docFiles().flatMap(([file, text]) => text.split('\n').flatMap((line, i) => (other.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])));
    expect(found).toEqual([]);
  });

  it("cite openapi/ and docs/, not the product's API document", () => {
    const found = docFiles().filter(([, text]) => /\bAPI document/.test(text.replace(/OpenAPI document/g, '')));
    expect(found.map(([file]) => file)).toEqual([]);
  });
});
