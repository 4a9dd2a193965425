/**
 * The breaking-change gate of openapi/ (issue 19 item 1; tools/contract-gate.js; docs/contract-changes.md,
 * "What the gate decides"): changes planted on copies of the real openapi/openapi.yaml in a temporary
 * folder, each judged by oasdiff through `gate()`. No database.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import yaml from 'js-yaml';

const ROOT = path.join(__dirname, '..', '..');
const script = path.join(ROOT, 'tools', 'contract-gate.js');

interface Change {
  operation: string;
  id: string;
  text: string;
  level: 'ERR' | 'WARN';
  styleB: boolean;
  deprecatedInRelease: boolean;
  named: boolean;
}
interface Verdict {
  pass: boolean;
  releasedVersion: string;
  currentVersion: string;
  changes: Change[];
  problems: string[];
}
type Files = { released: string; current: string; changelog: string };
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a CommonJS script of tools/, without types
const { gate, isStyleB } = require(script) as {
  gate: (files: Files) => Verdict;
  isStyleB: (p: string, op: Record<string, unknown>) => boolean;
};

// Loosely typed on purpose: the tests reach into the document by its known names.
type Doc = any;
const source = fs.readFileSync(path.join(ROOT, 'openapi', 'openapi.yaml'), 'utf8');
const load = (): Doc => yaml.load(source);

const WS = '/api/v1/workspaces';
const KEY = '/api/v1/workspaces/{workspace_id}/api-keys/{key_id}';
const RESPONSE = '/api/v1/workspaces/{workspace_id}/responses/{response_id}';
const ENTRY = '/api/v1/workspaces/{workspace_id}/tables/{table_id}/entries/{row_id}';

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'contract-gate-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

let seq = 0;
/**
 * Writes a released contract (the real document, after `before`), a current one (the released one after
 * `edit`) and a changelog, and runs the gate on them.
 */
function plant(edit: (doc: Doc) => void, opts: { before?: (doc: Doc) => void; changelog?: string } = {}): Verdict {
  const files = writeFiles(edit, opts);
  return gate(files);
}

function writeFiles(edit: (doc: Doc) => void, opts: { before?: (doc: Doc) => void; changelog?: string } = {}): Files {
  seq += 1;
  const [base, head] = [load(), load()];
  // The planted pair starts at 1.0.0 whatever the document's own version: the tests judge the gate's rules.
  base.info.version = head.info.version = '1.0.0';
  opts.before?.(base);
  opts.before?.(head);
  edit(head);
  const files = {
    released: path.join(dir, `released-${seq}.yaml`),
    current: path.join(dir, `current-${seq}.yaml`),
    changelog: path.join(dir, `CHANGELOG-${seq}.md`),
  };
  fs.writeFileSync(files.released, yaml.dump(base, { noRefs: true, lineWidth: -1 }));
  fs.writeFileSync(files.current, yaml.dump(head, { noRefs: true, lineWidth: -1 }));
  fs.writeFileSync(files.changelog, opts.changelog ?? '# Changelog\n\n## [Unreleased]\n\n## [1.0.0] - 2026-11-24\n');
  return files;
}

const ids = (v: Verdict) => [...new Set(v.changes.map((c) => c.id))].sort();
const ops = (v: Verdict) => [...new Set(v.changes.map((c) => c.operation))].sort();

function removeProperty(schema: Doc, name: string): void {
  delete schema.properties[name];
  if (schema.required) schema.required = schema.required.filter((n: string) => n !== name);
}

describe('the breaking-change gate: what breaks a client', () => {
  it('passes an unchanged copy', () => {
    const v = plant(() => {});
    expect(v).toMatchObject({ pass: true, changes: [], problems: [], releasedVersion: '1.0.0', currentVersion: '1.0.0' });
  });

  it('fails a removed required response field (oasdiff ERR), on every operation answering it', () => {
    const v = plant((d) => removeProperty(d.components.schemas.ResponseA, 'score'));
    expect(v.pass).toBe(false);
    expect(ids(v)).toEqual(['response-required-property-removed']);
    expect(ops(v)).toContain(`GET ${RESPONSE}`);
    expect(v.changes.every((c) => c.level === 'ERR')).toBe(true);
    expect(v.problems.join('\n')).toContain('set info.version');
  });

  it('fails a removed optional response field (oasdiff WARN, which the gate counts as breaking)', () => {
    expect(load().components.schemas.ResponseA.required).not.toContain('table_data');
    const v = plant((d) => removeProperty(d.components.schemas.ResponseA, 'table_data'));
    expect(v.pass).toBe(false);
    expect(ids(v)).toEqual(['response-optional-property-removed']);
    expect(v.changes.every((c) => c.level === 'WARN')).toBe(true);
  });

  it('fails a new required query parameter', () => {
    const v = plant((d) => {
      d.paths[WS].get.parameters = [...(d.paths[WS].get.parameters ?? []), { name: 'region', in: 'query', required: true, schema: { type: 'string' } }];
    });
    expect(v.pass).toBe(false);
    expect(v.changes.map((c) => [c.operation, c.id])).toEqual([[`GET ${WS}`, 'new-required-request-parameter']]);
  });

  it('fails an enum narrowed on the request side (and only there: a response may narrow)', () => {
    expect(load().components.schemas.ApiStyle.enum).toEqual(['A', 'B']);
    const v = plant((d) => {
      d.components.schemas.ApiStyle.enum = ['A'];
    });
    expect(v.pass).toBe(false);
    expect(v.changes.map((c) => [c.operation, c.id])).toEqual([['POST /api/v1/workspaces/{workspace_id}/api-keys', 'request-property-enum-value-removed']]);
  });

  it("fails a property's changed type", () => {
    const v = plant((d) => {
      d.components.schemas.WorkspaceA.properties.name = { type: 'integer' };
    });
    expect(v.pass).toBe(false);
    expect(ids(v)).toEqual(['response-property-type-changed']);
    expect(ops(v)).toEqual([`GET ${WS}`, 'GET /api/v1/workspaces/{workspace_id}']);
  });

  it('fails a removed operation', () => {
    const v = plant((d) => {
      delete d.paths[KEY].delete;
    });
    expect(v.pass).toBe(false);
    expect(v.changes.map((c) => [c.operation, c.id, c.styleB])).toEqual([[`DELETE ${KEY}`, 'api-removed-without-deprecation', false]]);
  });

  it('fails an operation removed after its x-sunset date, which oasdiff itself lets pass', () => {
    const v = plant(
      (d) => {
        delete d.paths[KEY].delete;
      },
      { before: (d) => Object.assign(d.paths[KEY].delete, { deprecated: true, 'x-sunset': '2020-01-01' }) },
    );
    expect(v.changes.map((c) => [c.operation, c.id])).toEqual([[`DELETE ${KEY}`, 'operation-removed']]);
    expect(v.pass).toBe(false);
  });

  it('passes an added optional response field and an added operation', () => {
    const v = plant((d) => {
      d.components.schemas.WorkspaceA.properties.region = { type: 'string' };
      d.paths['/api/v1/workspaces/{workspace_id}/regions'] = {
        get: {
          operationId: 'listRegions',
          summary: 'List regions',
          'x-required-scope': 'workspaces:read',
          parameters: [{ $ref: '#/components/parameters/WorkspaceId' }],
          responses: { '200': { description: 'The regions.', content: { 'application/json': { schema: { type: 'object' } } } } },
        },
      };
    });
    expect(v).toMatchObject({ pass: true, changes: [], problems: [] });
  });
});

describe('the breaking-change gate: releasing a breaking change', () => {
  const removeKeyRevoke = (version: string) => (d: Doc) => {
    delete d.paths[KEY].delete;
    d.info.version = version;
  };
  const changelog = (section: string) => `# Changelog\n\n## [Unreleased]\n\n${section}\n## [1.0.0] - 2026-11-24\n\nFirst release.\n`;

  it('passes with a major bump and a CHANGELOG section naming each change, listing them', () => {
    const v = plant(removeKeyRevoke('2.0.0'), {
      changelog: changelog(`## [2.0.0] - Unreleased\n\n### Removed\n\n- \`DELETE ${KEY}\` (\`api-removed-without-deprecation\`): keys expire instead.\n`),
    });
    expect(v.problems).toEqual([]);
    expect(v.pass).toBe(true);
    expect(v.changes).toMatchObject([{ operation: `DELETE ${KEY}`, id: 'api-removed-without-deprecation', named: true }]);
  });

  it('fails with a major bump when the CHANGELOG section does not name the change, naming what is missing', () => {
    const v = plant(removeKeyRevoke('2.0.0'), {
      // The operation without its rule id, and the rule id on another operation, do not name it.
      changelog: changelog(`## [2.0.0]\n\n- \`DELETE ${KEY}\` is gone.\n- \`DELETE ${ENTRY}\` (\`api-removed-without-deprecation\`).\n`),
    });
    expect(v.pass).toBe(false);
    expect(v.problems).toEqual([expect.stringContaining(`, section [2.0.0], does not name: DELETE ${KEY} api-removed-without-deprecation`)]);
  });

  it('fails with a major bump and no section for the new version', () => {
    const v = plant(removeKeyRevoke('2.0.0'));
    expect(v.pass).toBe(false);
    expect(v.problems).toEqual([expect.stringContaining('has no section "## [2.0.0]"')]);
  });

  it('fails with a minor bump, asking for the next major', () => {
    const v = plant(removeKeyRevoke('1.1.0'), {
      changelog: changelog(`## [1.1.0]\n\n- \`DELETE ${KEY}\` (\`api-removed-without-deprecation\`)\n`),
    });
    expect(v.pass).toBe(false);
    expect(v.problems).toEqual([expect.stringContaining('set info.version in')]);
    expect(v.problems[0]).toContain('to 2.0.0 (now 1.1.0)');
  });

  it('fails a version lower than the released one', () => {
    const v = plant((d) => {
      d.info.version = '0.9.0';
    });
    expect(v.pass).toBe(false);
    expect(v.problems).toEqual(['info.version 0.9.0 is lower than the released 1.0.0']);
  });
});

describe('the breaking-change gate: Style B needs a deprecation first', () => {
  const section = (id: string) => `# Changelog\n\n## [2.0.0]\n\n- \`DELETE ${ENTRY}\` (\`${id}\`)\n`;
  const removeEntryDelete = (d: Doc) => {
    delete d.paths[ENTRY].delete;
    d.info.version = '2.0.0';
  };

  it('marks Style B operations as the document does: /tables…, /emails/events, "Style B" descriptions', () => {
    const doc = load();
    const styleB: string[] = [];
    for (const [p, item] of Object.entries<Record<string, Record<string, unknown>>>(doc.paths)) {
      for (const [method, op] of Object.entries(item))
        if (op && typeof op === 'object' && 'responses' in op && isStyleB(p, op)) styleB.push(`${method.toUpperCase()} ${p}`);
    }
    expect(styleB).toContain(`DELETE ${ENTRY}`);
    expect(styleB).toContain('GET /api/v1/workspaces/{workspace_id}/emails/events');
    expect(styleB).not.toContain('GET /api/v1/workspaces/{workspace_id}/responses');
    expect(styleB.every((o) => /\/tables(\/|$)|\/emails\/events$/.test(o))).toBe(true);
  });

  it('fails a Style B operation removed without a released deprecation, even with a bump and a CHANGELOG line', () => {
    const v = plant(removeEntryDelete, { changelog: section('api-removed-without-deprecation') });
    expect(v.pass).toBe(false);
    expect(v.changes).toMatchObject([{ operation: `DELETE ${ENTRY}`, styleB: true, deprecatedInRelease: false, named: true }]);
    expect(v.problems).toEqual([expect.stringMatching(/^Style B operation DELETE .*entries\/\{row_id\} changes .* not deprecated in 1\.0\.0/)]);
  });

  it('passes a Style B operation removed after a release that deprecated it, with a bump and a CHANGELOG line', () => {
    const v = plant(removeEntryDelete, {
      before: (d) => {
        d.paths[ENTRY].delete.deprecated = true;
      },
      changelog: section('api-removed-with-deprecation'),
    });
    expect(v.problems).toEqual([]);
    expect(v.changes).toMatchObject([{ operation: `DELETE ${ENTRY}`, id: 'api-removed-with-deprecation', styleB: true, deprecatedInRelease: true }]);
  });

  it('fails a deprecated-in-release Style B operation removed without a major bump', () => {
    const v = plant(
      (d) => {
        delete d.paths[ENTRY].delete;
      },
      { before: (d) => void (d.paths[ENTRY].delete.deprecated = true) },
    );
    expect(v.pass).toBe(false);
    expect(v.problems).toEqual([expect.stringContaining('new major version')]);
  });
});

describe('npm run contract:gate', () => {
  const run = (...args: string[]) => spawnSync(process.execPath, [script, ...args], { cwd: ROOT, encoding: 'utf8' });

  it('passes on the repository as it is (openapi/openapi.yaml against the highest openapi/released/)', () => {
    const r = run();
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('contract-gate: pass');
    expect(r.status).toBe(0);
  });

  it('prints each breaking change on its own line with its operation, then what to do, and exits 1', () => {
    const files = writeFiles((d) => {
      delete d.paths[KEY].delete;
      d.paths[WS].get.parameters = [...(d.paths[WS].get.parameters ?? []), { name: 'region', in: 'query', required: true, schema: { type: 'string' } }];
    });
    const r = run('--released', files.released, '--current', files.current, '--changelog', files.changelog);
    expect(r.status).toBe(1);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toContain(`  ERR  DELETE ${KEY}: api removed without deprecation [api-removed-without-deprecation]`);
    expect(lines).toContain(`  ERR  GET ${WS}: added the new required \`query\` request parameter \`region\` [new-required-request-parameter]`);
    expect(lines[lines.length - 1]).toMatch(/^contract-gate: FAIL: breaking changes need a new major version: set info\.version .* to 2\.0\.0 \(now 1\.0\.0\)/);
  });

  it('exits 2 with one line when a file does not load', () => {
    const r = run('--current', path.join(dir, 'missing.yaml'));
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^contract-gate: cannot run: /)]);
  });
});
