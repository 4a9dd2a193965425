/**
 * Conditional lists and resources (issue 31 item 4; docs/api-rules.md, "Conditional requests"), on both databases:
 * every kind of resource changed (through the API, the import, and the worker's and CLI's direct writes) changes its
 * tag; an unchanged one keeps it and answers `304` to `If-None-Match` without running the list's query and without
 * counting against the key's rate limit; RFC 9110 weak comparison, lists and `*`; both styles; no tag on an error.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import { nanoid } from 'nanoid';
import supertest from 'supertest';
import { changeVersion, foldChangeMarks } from '../../../src/core/changes/change-marks.store';
import { importFixture } from '../../../src/core/import/importer';
import { everyTypeForm, formWorkspace, goodAnswers, uid, type FormWorkspace } from '../../support/given';
import { useWebhookApp } from '../webhooks/harness';

jest.setTimeout(60_000);

const t = useWebhookApp({});
// One server for the file: answers' links are built on the Host (port included), and so are their tags.
let server: Server;
let http: () => supertest.Agent;
beforeAll(async () => {
  server = t.app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  http = () => supertest.agent(`http://127.0.0.1:${port}`);
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

type Style = 'A' | 'B';
const get = (w: FormWorkspace, path: string, style: Style = 'A', ifNoneMatch?: string) => {
  const req = http().get(`/api/v1/workspaces/${w.ws}${path}`).set('X-API-Key', w.key).set('X-API-Style', style);
  return ifNoneMatch === undefined ? req : req.set('If-None-Match', ifNoneMatch);
};
const tagOf = async (w: FormWorkspace, path: string, style: Style = 'A'): Promise<string> => {
  const res = await get(w, path, style);
  expect([path, res.status]).toEqual([path, 200]);
  expect(res.headers.etag).toMatch(/^W\/"[\w-]+"$/);
  return res.headers.etag as string;
};
const send = (w: FormWorkspace, method: 'post' | 'patch' | 'delete', path: string, body?: object) => {
  const req = http()[method](`/api/v1/workspaces/${w.ws}${path}`).set('X-API-Key', w.key).set('X-API-Style', 'A').set('Idempotency-Key', nanoid());
  return body ? req.send(body) : req;
};
const submit = async (w: FormWorkspace): Promise<string> => {
  const res = await send(w, 'post', '/responses', { form_id: w.form, answers: goodAnswers(), respondent_email: 'p@example.com', email_id: 'em_1' });
  expect([res.status, res.body.error]).toEqual([201, undefined]);
  return res.body.data.id as string;
};

/** Every GET path below, its tag before `change`, and after: each path in `changed` moved, every other one kept. */
async function expectTagsAfter(w: FormWorkspace, paths: string[], change: () => Promise<unknown>, changed: string[] = paths): Promise<void> {
  const before = await Promise.all(paths.map((p) => tagOf(w, p)));
  await change();
  const after = await Promise.all(paths.map((p) => tagOf(w, p)));
  expect(paths.map((p, i) => [p, after[i] !== before[i]])).toEqual(paths.map((p) => [p, changed.includes(p)]));
}

describe('an unchanged answer', () => {
  it('keeps its tag, and If-None-Match answers 304 without a body and without counting against the rate limit', async () => {
    const w = await formWorkspace(t.db);
    await submit(w);
    const first = await get(w, '/responses');
    const tag = first.headers.etag as string;
    expect(await tagOf(w, '/responses')).toBe(tag);
    const before = Number((await get(w, '/responses')).headers['x-ratelimit-remaining']);
    const hit = await get(w, '/responses', 'A', tag);
    expect([hit.status, hit.text, hit.headers.etag, hit.headers['cache-control']]).toEqual([304, '', tag, 'private, no-cache']);
    // The 304 tells where the budget stands but took nothing from it; the next full answer takes one.
    expect(Number(hit.headers['x-ratelimit-remaining'])).toBe(before);
    expect([hit.headers['x-ratelimit-limit'], hit.headers.ratelimit]).toEqual(['10000', expect.stringMatching(new RegExp(`^"key";r=${before};t=\\d+$`))]);
    expect(Number((await get(w, '/responses')).headers['x-ratelimit-remaining'])).toBe(before - 1);
    // A tag that does not match counts as a full answer does.
    const miss = await get(w, '/responses', 'A', 'W/"other"');
    expect([miss.status, Number(miss.headers['x-ratelimit-remaining'])]).toEqual([200, before - 2]);
    // So does an error before the tag is made (here the validator's 400): no request escapes the budget.
    const bad = await get(w, '/responses?limit=0', 'A', tag);
    expect([bad.status, Number(bad.headers['x-ratelimit-remaining']), bad.headers.etag]).toEqual([400, before - 3, undefined]);
  });

  it('runs no list query for a 304: only the version lookup', async () => {
    const w = await formWorkspace(t.db);
    await submit(w);
    const tag = await tagOf(w, '/responses');
    const statements: string[] = [];
    const listen = (q: { sql: string }) => statements.push(q.sql);
    t.db.on('query', listen);
    try {
      expect((await get(w, '/responses', 'A', tag)).status).toBe(304);
      const full = statements.length;
      expect((await get(w, '/responses')).status).toBe(200);
      const ofList = statements.slice(full);
      expect(ofList.some((s) => /\bresponses\b/.test(s))).toBe(true);
      statements.length = full;
    } finally {
      t.db.off('query', listen);
    }
    const ours = statements.filter((s) => !/api_keys|last_used_at/.test(s));
    expect(ours.length).toBeGreaterThan(0);
    expect(ours.every((s) => s.includes('change_marks') && !/\bresponses\b/.test(s))).toBe(true);
  });

  it('compares as RFC 9110 says: weak or strong, any of a list, or *', async () => {
    const w = await formWorkspace(t.db);
    const tag = await tagOf(w, '/forms');
    const strong = tag.slice(2);
    for (const header of [tag, strong, `"nope", ${tag}`, `W/"a", ${strong} , "b"`, '*'])
      expect([header, (await get(w, '/forms', 'A', header)).status]).toEqual([header, 304]);
    for (const header of ['"nope"', `W/${strong.slice(0, -2)}x"`]) expect([header, (await get(w, '/forms', 'A', header)).status]).toEqual([header, 200]);
  });

  it('differs per style and per query, in both styles, and an error carries no tag', async () => {
    const w = await formWorkspace(t.db);
    const a = await tagOf(w, '/responses', 'A');
    const b = await tagOf(w, '/responses', 'B');
    expect(a).not.toBe(b);
    expect(await tagOf(w, '/responses?limit=5', 'A')).not.toBe(a);
    expect((await get(w, '/responses', 'B', b)).status).toBe(304);
    const rowsB = await tagOf(w, `/tables/${w.table}`, 'B');
    expect((await get(w, `/tables/${w.table}`, 'B', rowsB)).status).toBe(304);
    const missing = await get(w, '/responses/rsp_missing');
    expect([missing.status, missing.headers.etag, missing.headers['cache-control']]).toEqual([404, undefined, 'no-store']);
  });
});

describe('a change moves the tag of the answers it can alter', () => {
  it('responses, rows and email events (API writes, both styles)', async () => {
    const w = await formWorkspace(t.db);
    const paths = ['/responses', '/email-events', `/datatables/${w.table}/rows`, `/datatables/${w.table}/rows/${w.row}`, `/forms/${w.form}`];
    const rsp = await submit(w);
    await expectTagsAfter(w, paths, () => send(w, 'delete', `/responses/${rsp}`));
    await expectTagsAfter(w, paths, () => send(w, 'patch', `/datatables/${w.table}/rows/${w.row}`, { data: { plan: 'basic' } }));
    await expectTagsAfter(w, paths, () => send(w, 'post', '/email-events', { data: { email_id: 'em_1', email: 'x@example.com', type: 'send' } }));
    const b = await tagOf(w, `/tables/${w.table}/entries`, 'B');
    await submit(w);
    expect(await tagOf(w, `/tables/${w.table}/entries`, 'B')).not.toBe(b);
  });

  it('forms and datatables (the import), topics, webhook endpoints, API keys, dashboard links, the audit trail and the event log', async () => {
    const w = await formWorkspace(t.db);
    const paths = ['/forms', '/datatables', '/topics', '/webhook-endpoints', '/api-keys', `/forms/${w.form}/dashboard-links`, '/audit-events', '/events'];
    await expectTagsAfter(w, paths, () => importFixture(t.db, { forms: [everyTypeForm(w.ws, uid('frm'))] }));
    await expectTagsAfter(w, paths, () => send(w, 'post', '/topics', { name: 'Price', query: 'price' }));
    await expectTagsAfter(w, paths, () => send(w, 'post', '/webhook-endpoints', { url: 'https://hooks.example.com/etag', events: ['response.created'] }));
    await expectTagsAfter(w, paths, () => send(w, 'post', '/api-keys', { name: 'another', scopes: ['forms:read'] }));
    await expectTagsAfter(w, paths, () => send(w, 'post', `/forms/${w.form}/dashboard-links`, {}));
    await expectTagsAfter(w, paths, () => submit(w));
  });

  it('changes no writer announces: the worker and the CLI writing tables directly', async () => {
    const w = await formWorkspace(t.db);
    const rsp = await submit(w);
    const paths = ['/responses', `/responses/${rsp}`, '/events', '/forms'];
    // The sentiment backfill's UPDATE, the event log's prune, a CLI setting: each a direct write, no API call.
    await expectTagsAfter(w, paths, () => t.db('responses').where({ workspace_id: w.ws, id: rsp }).update({ sentiment_pending: true }));
    await expectTagsAfter(w, paths, () => t.db('event_log').where({ workspace_id: w.ws }).delete());
    await expectTagsAfter(w, paths, () => t.db('workspaces').where({ id: w.ws }).update({ response_retention_days: 30 }));
  });

  it("a key's use moves the key list's tag only", async () => {
    const w = await formWorkspace(t.db);
    await expectTagsAfter(
      w,
      ['/api-keys', '/forms', '/responses'],
      () =>
        t
          .db('api_keys')
          .update({ last_used_at: t.db.raw("now() - interval '1 hour'") })
          .whereIn('id', t.db('api_key_workspaces').select('api_key_id').where({ workspace_id: w.ws })),
      ['/api-keys'],
    );
  });

  it('the fold empties change_marks but keeps every version and tag; the next write still moves them', async () => {
    const w = await formWorkspace(t.db);
    const other = await formWorkspace(t.db);
    await submit(w);
    await submit(other);
    const [before, otherBefore, both] = [await changeVersion(t.db, [w.ws]), await changeVersion(t.db, [other.ws]), await changeVersion(t.db, [w.ws, other.ws])];
    const tag = await tagOf(w, '/responses');
    expect(Number(before)).toBeGreaterThan(0);
    // Two folds at once (two instances): each mark is counted once.
    const folded = await Promise.all([foldChangeMarks(t.db, { batchSize: 3 }), foldChangeMarks(t.db)]);
    expect(folded[0] + folded[1]).toBeGreaterThanOrEqual(2);
    expect(Number((await t.db('change_marks').whereIn('workspace_id', [w.ws, other.ws]).count({ n: '*' }))[0]!.n)).toBe(0);
    expect([await changeVersion(t.db, [w.ws]), await changeVersion(t.db, [other.ws]), await changeVersion(t.db, [w.ws, other.ws])]).toEqual([
      before,
      otherBefore,
      both,
    ]);
    expect((await get(w, '/responses', 'A', tag)).status).toBe(304);
    await submit(w);
    expect(await changeVersion(t.db, [w.ws])).not.toBe(before);
    expect((await get(w, '/responses', 'A', tag)).status).toBe(200);
  });

  it('another workspace changing leaves the tag alone', async () => {
    const w = await formWorkspace(t.db);
    const other = await formWorkspace(t.db);
    await expectTagsAfter(w, ['/responses', '/forms'], () => submit(other), []);
  });
});
