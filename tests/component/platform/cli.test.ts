/**
 * Smoke tests of the `feedback-service` executable itself: the CLI runs as a child process
 * (`node dist/src/cli/main.js …`, tests/support/cli.ts) against the run's test database.
 */
import { ALL_SCOPES } from '../../../src/core/scopes';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { nanoid } from 'nanoid';
import type { Db } from '../../../src/db/connection';
import { openTestDb } from '../../support/db';
import { cli } from '../../support/cli';

jest.setTimeout(60_000);

let db: Db;
let dir: string;

beforeAll(async () => {
  db = await openTestDb();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'feedback-cli-'));
});
afterAll(async () => {
  await db.destroy();
  fs.rmSync(dir, { recursive: true, force: true });
});

const unique = () => nanoid(10).replace(/[-_]/g, 'x').toLowerCase();

function fixture(u: string) {
  return {
    workspaces: [{ id: `ws_${u}`, name: `CLI ${u}`, link: `cli-${u}` }],
    forms: [
      {
        id: `frm_${u}`,
        workspace_id: `ws_${u}`,
        name: 'NPS',
        questions: [{ id: 'q_score', type: 'nps', title: 'How likely?' }],
      },
    ],
    responses: [
      { id: `rsp_${u}_1`, form_id: `frm_${u}`, score: 8, answers: [{ question_id: 'q_score', value: 8 }] },
      { id: `rsp_${u}_2`, form_id: `frm_${u}`, score: 2, answers: [{ question_id: 'q_score', value: 2 }] },
    ],
    api_keys: [{ id: `key_${u}`, name: 'CI', workspace_ids: [`ws_${u}`] }],
  };
}

function writeFile(name: string, content: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, content);
  return file;
}

describe('feedback-service import', () => {
  it('imports a file, prints the JSON summary and exits 0', async () => {
    const u = unique();
    const file = writeFile(`ok-${u}.json`, JSON.stringify(fixture(u)));

    const run = await cli(['import', file]);

    expect(run.code).toBe(0);
    const summary = JSON.parse(run.stdout);
    expect(Object.keys(summary)).toEqual(['workspaces', 'forms', 'questions', 'datatables', 'rows', 'responses', 'email_events', 'api_keys']);
    expect(summary).toMatchObject({ workspaces: 1, forms: 1, questions: 1, datatables: 0, rows: 0, responses: 2, email_events: 0 });
    expect(summary.api_keys).toEqual([{ id: `key_${u}`, secret: expect.stringMatching(/^fa_/), workspace_ids: [`ws_${u}`] }]);
    expect(await db('responses').where('workspace_id', `ws_${u}`)).toHaveLength(2);
    const key = await db('api_keys').where('id', `key_${u}`).first();
    expect(key.key_hash).toBe(createHash('sha256').update(summary.api_keys[0].secret).digest('hex'));
  });

  it('reads the document from stdin with "-"', async () => {
    const u = unique();
    const run = await cli(['import', '-'], JSON.stringify(fixture(u)));
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).responses).toBe(2);
  });

  it('prints every problem with its path on stderr, exits 1 and writes nothing', async () => {
    const u = unique();
    const doc = fixture(u);
    doc.responses[0]!.form_id = 'frm_x';
    doc.responses[1]!.answers = [{ question_id: 'q_score', value: 42 }];
    const file = writeFile(`bad-${u}.json`, JSON.stringify(doc));

    const run = await cli(['import', file]);

    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('responses[0].form_id: unknown form "frm_x"\n');
    expect(run.stderr).toContain('responses[1].answers[0].value: must be an integer from 0 to 10; got 42\n');
    expect(run.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(await db('workspaces').where('id', `ws_${u}`)).toHaveLength(0);
  });

  it('reports malformed JSON at $ and a missing file in one line', async () => {
    const bad = await cli(['import', '-'], '{"workspaces": [');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^\$: malformed JSON: /m);

    const missing = await cli(['import', path.join(dir, 'nope.json')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/error: cannot read ".*nope\.json": no such file/);
  });
});

describe('feedback-service keys report', () => {
  it("prints a key's migration report as the JSON the API answers in `data`", async () => {
    const u = unique();
    await db('workspaces').insert({ id: `ws_${u}`, name: 'R', link: `report-${u}` });
    const created = JSON.parse((await cli(['keys', 'create', '--workspace', `ws_${u}`, '--style', 'B'])).stdout) as { id: string };
    const today = new Date().toISOString().slice(0, 10);
    const at = new Date(`${today}T00:00:01Z`);
    await db('api_key_operation_usage').insert([
      { api_key_id: created.id, day: today, style: 'B', operation: 'listResponses', requests: 3, first_seen: at, last_seen: at },
      { api_key_id: created.id, day: today, style: 'A', operation: 'listForms', requests: 2, first_seen: at, last_seen: at },
    ]);

    const run = await cli(['keys', 'report', '--key-id', created.id, '--days', '7']);

    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout);
    expect(out).toMatchObject({
      key_id: created.id,
      default_style: 'B',
      deprecation: null,
      sunset: null,
      window: { days: 7, to: today },
      operations: [{ operation: 'listResponses', requests: 3, first_seen: at.toISOString(), style_a: { operation: 'listResponses' }, status: 'ready' }],
      verdict: { no_style_b_calls: false },
    });
    expect(out.operations).toHaveLength(1);
  });

  it('refuses an unknown key and --days past 400, exit 1', async () => {
    const unknown = await cli(['keys', 'report', '--key-id', 'key_nope']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('error: unknown key "key_nope"');
    const tooMany = await cli(['keys', 'report', '--key-id', 'key_nope', '--days', '401']);
    expect(tooMany.code).toBe(1);
    expect(tooMany.stderr).toContain('--days must be 1-400; got 401');
  });
});

describe('feedback-service keys create', () => {
  it('creates a key on the given workspaces and prints it as JSON', async () => {
    const u = unique();
    await db('workspaces').insert([
      { id: `ws_${u}_a`, name: 'A', link: `keys-${u}-a` },
      { id: `ws_${u}_b`, name: 'B', link: `keys-${u}-b` },
    ]);

    const run = await cli([
      'keys',
      'create',
      '--workspace',
      `ws_${u}_a`,
      '--workspace',
      `ws_${u}_b`,
      '--name',
      'ops',
      '--scopes',
      'responses:read,forms:read',
      '--expires-at',
      '2030-01-01T00:00:00Z',
      '--style',
      'B',
      '--rate-limit',
      '120',
    ]);

    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout);
    expect(out).toEqual({
      id: expect.stringMatching(/^key_/),
      secret: expect.stringMatching(/^fa_[A-Za-z0-9_-]{32,}$/),
      name: 'ops',
      scopes: ['responses:read', 'forms:read'],
      workspace_ids: [`ws_${u}_a`, `ws_${u}_b`],
      style: 'B',
      expires_at: '2030-01-01T00:00:00.000Z',
      rate_limit_per_minute: 120,
    });
    const row = await db('api_keys').where('id', out.id).first();
    expect(row).toMatchObject({
      key_hash: createHash('sha256').update(out.secret).digest('hex'),
      prefix: out.secret.slice(0, 8),
      style: 'B',
      rate_limit_per_minute: 120,
    });
  });

  it('gives a key without --scopes every scope', async () => {
    const u = unique();
    await db('workspaces').insert({ id: `ws_${u}`, name: 'A', link: `keys-${u}` });
    const run = await cli(['keys', 'create', '--workspace', `ws_${u}`]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ name: 'CLI key', style: 'A', expires_at: null });
    expect(JSON.parse(run.stdout).scopes).toHaveLength(ALL_SCOPES.length);
  });

  it('refuses an unknown workspace or scope with a message on stderr and exit 1', async () => {
    const u = unique();
    await db('workspaces').insert({ id: `ws_${u}`, name: 'A', link: `keys-${u}` });

    const ws = await cli(['keys', 'create', '--workspace', `ws_${u}`, '--workspace', `ws_${u}_missing`]);
    expect(ws.code).toBe(1);
    expect(ws.stderr).toContain(`error: unknown workspace "ws_${u}_missing"`);

    const scope = await cli(['keys', 'create', '--workspace', `ws_${u}`, '--scopes', 'responses:read,everything']);
    expect(scope.code).toBe(1);
    expect(scope.stderr).toContain('unknown scope "everything"');
    expect(Number((await db('api_key_workspaces').where('workspace_id', `ws_${u}`).count({ n: '*' }))[0]!.n)).toBe(0);
  });
});

describe('feedback-service audit verify', () => {
  it('records keys create as actor "cli", passes on an intact chain and exits 1 naming the first bad record', async () => {
    const u = unique();
    const ws = `ws_${u}`;
    await db('workspaces').insert({ id: ws, name: 'A', link: `audit-${u}` });
    for (let i = 0; i < 2; i++) expect((await cli(['keys', 'create', '--workspace', ws, '--name', `k${i}`])).code).toBe(0);
    const records = await db('audit_events').where('workspace_id', ws).orderBy('seq');
    expect(records.map((r: { actor: string; action: string }) => [r.actor, r.action])).toEqual([
      ['cli', 'api_key.created'],
      ['cli', 'api_key.created'],
    ]);
    expect(JSON.stringify(records)).not.toMatch(/fa_[A-Za-z0-9_-]{20,}/);

    const ok = await cli(['audit', 'verify', '--workspace', ws]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain(`${ws}: 2 records, chain intact, head ${records[1].hash}`);

    await db.raw('ALTER TABLE audit_events DISABLE TRIGGER audit_events_append_only');
    try {
      await db('audit_events')
        .where({ workspace_id: ws, seq: 1 })
        .update({ changes: JSON.stringify({ name: 'forged' }) });
    } finally {
      await db.raw('ALTER TABLE audit_events ENABLE TRIGGER audit_events_append_only');
    }
    const bad = await cli(['audit', 'verify', '--workspace', ws]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain(`${ws}: BROKEN at record ${records[0].id} (seq 1)`);
    expect(bad.stderr).toContain(`the audit chain of ${ws} is broken at record ${records[0].id} (seq 1)`);
  });
});

describe('feedback-service workspaces retention', () => {
  it("sets and clears a workspace's response retention, printing it as JSON", async () => {
    const u = unique();
    await db('workspaces').insert({ id: `ws_${u}`, name: `CLI ${u}`, link: `cli-${u}` });
    const on = await cli(['workspaces', 'retention', '--workspace', `ws_${u}`, '--days', '90']);
    expect(on.code).toBe(0);
    expect(JSON.parse(on.stdout)).toEqual({ workspace_id: `ws_${u}`, response_retention_days: 90 });
    expect((await db('workspaces').where('id', `ws_${u}`).first()).response_retention_days).toBe(90);
    const off = await cli(['workspaces', 'retention', '--workspace', `ws_${u}`, '--days', 'off']);
    expect(JSON.parse(off.stdout)).toEqual({ workspace_id: `ws_${u}`, response_retention_days: null });
    expect((await db('workspaces').where('id', `ws_${u}`).first()).response_retention_days).toBeNull();
    // Each change is recorded (actor "cli") and the chain verifies.
    const recorded = (await db('audit_events').where('workspace_id', `ws_${u}`).orderBy('seq')) as Array<{ actor: string; action: string; changes: unknown }>;
    expect(recorded.map((r) => [r.actor, r.action, r.changes])).toEqual([
      ['cli', 'workspace.retention_changed', { response_retention_days: 90 }],
      ['cli', 'workspace.retention_changed', { response_retention_days: null }],
    ]);
    const verified = await cli(['audit', 'verify', '--workspace', `ws_${u}`]);
    expect(verified.code).toBe(0);
  });

  it('refuses an unknown workspace and a bad --days, exit 1', async () => {
    const unknown = await cli(['workspaces', 'retention', '--workspace', 'ws_nope', '--days', '30']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('unknown workspace "ws_nope"');
    const bad = await cli(['workspaces', 'retention', '--workspace', 'ws_nope', '--days', '0']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('must be a number of days from 1 to 36500, or "off"');
  });
});
