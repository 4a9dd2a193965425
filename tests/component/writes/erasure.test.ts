/**
 * POST {ws}/erasure-requests (docs/data-rights.md, "Erasing a person"), on both databases: a canary address is planted
 * in every place an address can live (a response's respondent_email through an email link, an email answer, a text
 * answer, the captured table data, email events, the link's use, a webhook payload, an idempotency record, datatable
 * rows); the dry run counts each; the run removes all of it and nothing of anyone else, keeps every total exact,
 * records the request without the address, suppresses links for it (until lifted) and emits respondent.erased; a
 * second run finds nothing; two runs at once leave one record; bad input and missing scopes are refused.
 */
import { nanoid } from 'nanoid';
import { importFixture } from '../../../src/core/import/importer';
import { verifyAuditChains } from '../../../src/core/audit/audit.store';
import { mintLink } from '../../../src/core/links/links';
import { ALL_SCOPES } from '../../../src/core/scopes';
import { useTestApp } from '../../support/app';
import { formWorkspace, goodAnswers, keyFor, surveyForm, type FormWorkspace } from '../../support/given';

const ctx = useTestApp();

let w: FormWorkspace;
let canary: string;
/** A link minted for the canary before the erasure. */
let canaryLink: string;
const OTHER = 'someone-else@example.com';
const PUBLIC_URL = 'https://feedback.example.com';

type Counts = Record<string, number>;

const post = (body: object, opts: { key?: string; style?: 'A' | 'B'; ws?: string } = {}) =>
  ctx
    .http()
    .post(`/api/v1/workspaces/${opts.ws ?? w.ws}/erasure-requests`)
    .set('X-API-Key', opts.key ?? w.key)
    .set('X-API-Style', opts.style ?? 'A')
    .send(body);

/** Every place an address can be found in the database, as text, for this workspace. */
async function databaseText(): Promise<string> {
  const tables = ['responses', 'email_events', 'webhook_events', 'datatable_rows', 'erasure_requests', 'email_suppressions', 'email_link_uses'];
  const parts: string[] = [];
  for (const t of tables) {
    const rows = (await ctx.db(t).where('workspace_id', w.ws)) as unknown[];
    parts.push(JSON.stringify(rows));
  }
  return parts.join('\n').toLowerCase();
}

/** `response_counts` equals a fresh count of the workspace's responses. */
async function countersExact(): Promise<void> {
  const fresh = Number(((await ctx.db('responses').where('workspace_id', w.ws).count({ n: '*' }).first()) as { n: unknown }).n);
  const kept = Number(((await ctx.db('response_counts').where('workspace_id', w.ws).sum({ n: 'responses' }).first()) as { n: unknown }).n ?? 0);
  expect(kept).toBe(fresh);
}

async function plant(address: string): Promise<void> {
  const upper = address.toUpperCase();
  // Responses by an email answer, by a text mention and by captured table data (import), plus another person's.
  await importFixture(ctx.db, {
    datatables: [
      {
        id: `tbl_${nanoid(8)}`,
        workspace_id: w.ws,
        name: 'Contacts',
        fields: [
          { name: 'id', type: 'string' },
          { name: 'email', type: 'string' },
        ],
        rows: [{ row_id: `row_h${nanoid(6)}`, data: { id: `c-${nanoid(6)}`, email: upper } }],
      },
    ],
    responses: [
      {
        form_id: w.form,
        score: 3,
        answers: [
          { question_id: 'q_plan', value: { id: 'opt_pro' } },
          { question_id: 'q_email', value: address },
        ],
      },
      {
        form_id: w.form,
        score: 4,
        answers: [
          { question_id: 'q_plan', value: { id: 'opt_pro' } },
          { question_id: 'q_text', value: `mail ${upper} back` },
        ],
      },
      {
        form_id: w.form,
        score: 8,
        answers: [
          { question_id: 'q_plan', value: { id: 'opt_basic' } },
          { question_id: 'q_email', value: OTHER },
        ],
      },
    ],
    email_events: [
      { workspace_id: w.ws, email_id: `em_${nanoid(6)}`, email: address, type: 'send' },
      { workspace_id: w.ws, email_id: `em_${nanoid(6)}`, email: OTHER, type: 'send' },
    ],
  });
  // An email link for the address (linked to the workspace's row) and a response through it: respondent_email, a link use.
  const link = await mintLink(ctx.db, w.ws, { formId: w.form, email: address, rowId: w.row }, PUBLIC_URL);
  const viaLink = await ctx.http().post(`/api/v1/forms/${w.form}/submissions`).send({ answers: goodAnswers(), t: link.token });
  expect(viaLink.status).toBe(201);
  canaryLink = (await mintLink(ctx.db, w.ws, { formId: w.form, email: address, maxResponses: 5 }, PUBLIC_URL)).token;
  // A response made with a key and an Idempotency-Key: a webhook payload and an idempotency record hold the address.
  const made = await ctx
    .http()
    .post(`/api/v1/workspaces/${w.ws}/responses`)
    .set('X-API-Key', w.key)
    .set('X-API-Style', 'A')
    .set('Idempotency-Key', `erasure-${nanoid(8)}`)
    .send({
      form_id: w.form,
      answers: [
        { question_id: 'q_nps', value: 7 },
        { question_id: 'q_plan', value: { id: 'opt_pro' } },
        { question_id: 'q_email', value: address },
      ],
    });
  expect([made.status, made.status === 201 ? '' : made.text]).toEqual([201, '']);
}

beforeAll(async () => {
  w = await formWorkspace(ctx.db);
  canary = `canary-${nanoid(8)
    .toLowerCase()
    .replace(/[^a-z0-9]/g, 'x')}@example.com`;
  await importFixture(ctx.db, {
    webhook_endpoints: [{ workspace_id: w.ws, url: 'https://example.com/hook', events: ['response.created', 'respondent.erased', 'row.deleted'] }],
  });
  await plant(canary);
}, 60_000);

describe('POST {ws}/erasure-requests', () => {
  let dry: Counts;

  it('counts everything the address reaches in a dry run, and changes nothing', async () => {
    const before = await databaseText();
    const res = await post({ email: canary.toUpperCase(), dry_run: true, include_rows: true });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: null, dry_run: true, include_rows: true });
    dry = res.body.data.would_remove as Counts;
    expect(dry).toEqual({
      responses: 4, // the email answer, the text mention, the link's response, the keyed response
      email_events: 1,
      email_link_uses: 1,
      webhook_events: 2, // response.created of the link's response and of the keyed one (an import records none)
      idempotency_records: 1,
      datatable_rows: 2, // the row the link's response points at, and the row holding the address
    });
    expect(await databaseText()).toBe(before);
  });

  it('erases it all, keeps other people and every total, records the request without the address', async () => {
    const res = await post({ email: canary, include_rows: true });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ dry_run: false, include_rows: true, runs: 1, suppressed: true, removed: dry, total_removed: dry });
    expect(res.body.data.id).toMatch(/^era_/);
    const text = await databaseText();
    expect(text).not.toContain(canary);
    expect(text).toContain(OTHER);
    await countersExact();
    // Every API view of the person is empty.
    const exported = await ctx.http().get(`/api/v1/workspaces/${w.ws}/respondents/export`).query({ email: canary }).set('X-API-Key', w.key).buffer(true);
    expect(exported.text.trim()).toBe(JSON.stringify({ type: 'summary', data: { responses: 0, email_events: 0, rows: 0, omitted: [] } }));
    const listed = await ctx.http().get(`/api/v1/workspaces/${w.ws}/responses`).query({ limit: 100 }).set('X-API-Key', w.key).set('X-API-Style', 'A');
    expect(JSON.stringify(listed.body).toLowerCase()).not.toContain(canary);
    // The idempotency record went too.
    const again = await post({ email: canary, dry_run: true, include_rows: true });
    expect(again.body.data.would_remove).toEqual({
      responses: 0,
      email_events: 0,
      email_link_uses: 0,
      webhook_events: 0,
      idempotency_records: 0,
      datatable_rows: 0,
    });
  });

  it('recorded respondent.erased for the subscribed endpoint, without the address', async () => {
    const events = (await ctx.db('webhook_events').where({ workspace_id: w.ws, type: 'respondent.erased' })) as Array<{ resource: unknown }>;
    expect(events).toHaveLength(1);
    expect(JSON.stringify(events[0]!.resource)).not.toContain(canary);
    expect(events[0]!.resource).toMatchObject({ kind: 'respondent_erased', removed: dry });
  });

  it('finds nothing on a second run: the same record, nothing removed twice', async () => {
    const first = await ctx.db('erasure_requests').where('workspace_id', w.ws).first();
    const res = await post({ email: canary, include_rows: true });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: first.id, runs: 2, total_removed: dry });
    expect(Object.values(res.body.data.removed as Counts).every((n) => n === 0)).toBe(true);
    const read = await ctx.http().get(`/api/v1/workspaces/${w.ws}/erasure-requests/${first.id}`).set('X-API-Key', w.key).set('X-API-Style', 'B');
    expect(read.status).toBe(200);
    expect(read.body.data).toMatchObject({ id: first.id, dryRun: false, includeRows: true, runs: 2, suppressed: true });
    expect(read.body.data.totalRemoved).toMatchObject({ responses: 4, emailEvents: 1, datatableRows: 2 });
  });

  it('refuses email links for the address until the suppression is lifted', async () => {
    const mint = () => ctx.http().post(`/api/v1/workspaces/${w.ws}/forms/${w.form}/links`).set('X-API-Key', w.key).send({ email: canary.toUpperCase() });
    const refused = await mint();
    expect([refused.status, refused.status === 409 ? '' : refused.text]).toEqual([409, '']);
    expect(refused.body.error.code).toBe('address_suppressed');
    expect(refused.body.error.details[0].field).toBe('email');
    // A link minted before the erasure is refused too, and its opens are not recorded.
    const used = await ctx.http().post(`/api/v1/forms/${w.form}/submissions`).send({ answers: goodAnswers(), t: canaryLink });
    expect(used.status).toBe(409);
    expect(used.body.error.code).toBe('address_suppressed');
    expect((await ctx.http().get(`/e/${canaryLink}.gif`)).status).toBe(200);
    expect(await ctx.db('email_events').where('workspace_id', w.ws).whereRaw('lower(email) = ?', [canary])).toHaveLength(0);
    const { id } = await ctx.db('erasure_requests').where('workspace_id', w.ws).first();
    const lifted = await ctx.http().delete(`/api/v1/workspaces/${w.ws}/erasure-requests/${id}/suppression`).set('X-API-Key', w.key);
    expect(lifted.status).toBe(204);
    expect((await mint()).status).toBe(201);
    const read = await ctx.http().get(`/api/v1/workspaces/${w.ws}/erasure-requests/${id}`).set('X-API-Key', w.key);
    expect(read.body.data.suppressed).toBe(false);
  });

  it('leaves one record and one result when two erasures of an address run at once', async () => {
    const twin = `twin-${nanoid(8)
      .toLowerCase()
      .replace(/[^a-z0-9]/g, 'x')}@example.com`;
    await importFixture(ctx.db, {
      responses: Array.from({ length: 30 }, (_, i) => ({
        form_id: w.form,
        score: i % 11,
        answers: [
          { question_id: 'q_plan', value: { id: 'opt_pro' } },
          { question_id: 'q_email', value: twin },
        ],
      })),
    });
    const [a, b] = await Promise.all([post({ email: twin }), post({ email: twin, dry_run: false })]);
    expect([a.status, b.status].sort()).toEqual([200, 201]);
    expect(a.body.data.id).toBe(b.body.data.id);
    expect(a.body.data.removed.responses + b.body.data.removed.responses).toBe(30);
    expect(await ctx.db('erasure_requests').where('workspace_id', w.ws)).toHaveLength(2);
    await countersExact();
  });

  it('erases by datatable row id in both styles: what points at the row, the row with include_rows, no suppression', async () => {
    const r = await formWorkspace(ctx.db);
    const contact = `row-${nanoid(8)
      .toLowerCase()
      .replace(/[^a-z0-9]/g, 'x')}@example.com`;
    const emailId = `em_${nanoid(8)}`;
    await importFixture(ctx.db, {
      webhook_endpoints: [{ workspace_id: r.ws, url: 'https://example.com/rows', events: ['response.created', 'row.deleted'] }],
      responses: [
        {
          form_id: r.form,
          score: 5,
          row_id: r.row,
          email_id: emailId,
          respondent_email: contact,
          answers: [{ question_id: 'q_plan', value: { id: 'opt_pro' } }],
        },
        { form_id: r.form, score: 6, answers: [{ question_id: 'q_plan', value: { id: 'opt_basic' } }] },
      ],
      email_events: [
        { workspace_id: r.ws, email_id: emailId, email: contact, type: 'send', row_id: r.row },
        { workspace_id: r.ws, email_id: `em_${nanoid(8)}`, email: OTHER, type: 'send' },
      ],
    });
    // A response made through the API for the row: its response.created payload names the row.
    const made = await ctx
      .http()
      .post(`/api/v1/workspaces/${r.ws}/responses`)
      .set('X-API-Key', r.key)
      .send({
        form_id: r.form,
        row_id: r.row,
        answers: [
          { question_id: 'q_nps', value: 3 },
          { question_id: 'q_plan', value: { id: 'opt_pro' } },
        ],
      });
    expect([made.status, made.status === 201 ? '' : made.text]).toEqual([201, '']);
    const dry = await post({ rowId: r.row, dryRun: true, includeRows: true }, { key: r.key, style: 'B', ws: r.ws });
    expect(dry.status).toBe(200);
    expect(dry.body.data.wouldRemove).toEqual({ responses: 2, emailEvents: 1, emailLinkUses: 0, webhookEvents: 1, idempotencyRecords: 0, datatableRows: 1 });
    const run = await post({ row_id: r.row, include_rows: true }, { key: r.key, ws: r.ws });
    expect(run.status).toBe(201);
    expect(run.body.data).toMatchObject({ runs: 1, suppressed: false, removed: { responses: 2, email_events: 1, webhook_events: 1, datatable_rows: 1 } });
    expect(await ctx.db('responses').where({ workspace_id: r.ws, row_id: r.row })).toHaveLength(0);
    expect(await ctx.db('responses').where('workspace_id', r.ws)).toHaveLength(1);
    expect(await ctx.db('email_events').where({ workspace_id: r.ws, row_id: r.row })).toHaveLength(0);
    expect(await ctx.db('datatable_rows').where({ workspace_id: r.ws, row_id: r.row })).toHaveLength(0);
    // The row's deletion still reaches the subscriber; nothing else names the row.
    const named = (await ctx.db('webhook_events').where('workspace_id', r.ws)) as Array<{ type: string; resource: unknown }>;
    expect(named.filter((e) => JSON.stringify(e.resource).includes(r.row)).map((e) => e.type)).toEqual(['row.deleted']);
    // Idempotent: the same record, nothing found; the audit record names how the person was named, not the row.
    const again = await post({ rowId: r.row }, { key: r.key, style: 'B', ws: r.ws });
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({ id: run.body.data.id, runs: 2 });
    expect(Object.values(again.body.data.removed as Counts).every((n) => n === 0)).toBe(true);
    const audit = (await ctx.db('audit_events').where({ workspace_id: r.ws, action: 'erasure_request.run' }).orderBy('seq')) as Array<{
      changes: Record<string, unknown>;
    }>;
    expect(audit.map((a) => a.changes.by)).toEqual([['row_id'], ['row_id']]);
    expect(JSON.stringify(audit)).not.toContain(r.row);
    await countersExact();
  });

  it("refuses a body naming neither an address nor a row, and the other style's row field", async () => {
    const none = await post({ dry_run: true });
    expect([none.status, none.body.error.details[0].field]).toEqual([400, 'email']);
    const foreign = await post({ rowId: 'row_x', dry_run: true });
    expect([foreign.status, foreign.body.error.details[0].field]).toEqual([400, 'rowId']);
  });

  it('answers 404 for an unknown request', async () => {
    const res = await ctx.http().get(`/api/v1/workspaces/${w.ws}/erasure-requests/era_unknown`).set('X-API-Key', w.key);
    expect(res.status).toBe(404);
    const lift = await ctx.http().delete(`/api/v1/workspaces/${w.ws}/erasure-requests/era_unknown/suppression`).set('X-API-Key', w.key);
    expect(lift.status).toBe(404);
  });

  it('needs responses:write, and datatables:write for include_rows', async () => {
    const reader = await keyFor(ctx.db, [w.ws], { scopes: ['responses:read'] });
    expect((await post({ email: canary, dry_run: true }, { key: reader })).status).toBe(403);
    const writer = await keyFor(ctx.db, [w.ws], { scopes: ['responses:write'] });
    expect((await post({ email: canary, dry_run: true }, { key: writer })).status).toBe(200);
    const rows = await post({ email: canary, dry_run: true, include_rows: true }, { key: writer });
    expect(rows.status).toBe(403);
    expect(rows.body.error.code).toBe('insufficient_scope');
  });

  it.each([
    ['no email nor row', {}, 'email'],
    ['an address without @', { email: 'canary.example.com' }, 'email'],
    ['an address too long', { email: `${'x'.repeat(320)}@example.com` }, 'email'],
    ['a Style B field in Style A', { email: 'a@example.com', dryRun: true }, 'dryRun'],
    ['a boolean of the wrong type', { email: 'a@example.com', dry_run: 'yes' }, 'dry_run'],
  ])('refuses %s as a 400 naming the field', async (_what, body, field) => {
    const res = await post(body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect((res.body.error.details as Array<{ field: string }>).map((d) => d.field).join(' ')).toContain(field);
  });

  it('refuses a Style A field in Style B', async () => {
    const res = await post({ email: 'a@example.com', dry_run: true }, { style: 'B' });
    expect(res.status).toBe(400);
    expect(res.body.error.details[0].field).toBe('dry_run');
  });
});

/**
 * Issue 30's "Done when", end to end: canary@example.com answers through the hosted form page and through an email
 * link (opened, so an email event holds the address), with an answer text of its own; a webhook endpoint, a dashboard
 * link with addresses and another person's response are there too. Before the erasure each view shows the canary (so
 * the checks can fail); after the dry run and the run, no list, search, export, dashboard page, email event list,
 * webhook delivery log or table row holds the address or the text, the summary and totals equal a fresh count, the
 * audit trail shows the run and its chain verifies.
 */
describe('Done when: canary@example.com through a form page and an email link, then erased', () => {
  const CANARY = 'canary@example.com';
  let d: FormWorkspace;
  let endpointId: string;
  let dashboard: string;
  const said = `canary words ${nanoid(10).toLowerCase()}`;
  const otherSaid = `other words ${nanoid(10).toLowerCase()}`;
  const pathOf = (url: string) => {
    const u = new URL(url);
    return `${u.pathname}${u.search}`;
  };
  const pageToken = async (path: string) => /name="_token" value="([^"]+)"/.exec((await ctx.http().get(path)).text)![1]!;
  const submitPage = async (fields: Record<string, string>, linkPath = `/f/${d.form}`) => {
    const res = await ctx
      .http()
      .post(`/f/${d.form}`)
      .type('form')
      .send(
        new URLSearchParams({ _token: await pageToken(linkPath), _lang: 'en', 'q.q_nps': '9', 'q.q_rating': '4', 'q.q_plan': 'opt_pro', ...fields }).toString(),
      );
    expect([res.status, res.status === 303 ? '' : res.text]).toEqual([303, '']);
  };
  const api = (path: string, style: 'A' | 'B' = 'A') =>
    ctx.http().get(`/api/v1/workspaces/${d.ws}${path}`).set('X-API-Key', d.key).set('X-API-Style', style).buffer(true);

  /** What every view the issue names shows, as one lower-case text. */
  async function everyView(): Promise<string> {
    const paths: Array<[string, 'A' | 'B']> = [
      ['/responses?limit=100', 'A'],
      ['/responses?page=1&limit=100', 'B'],
      [`/responses?q=${encodeURIComponent('canary words')}`, 'A'],
      ['/responses?q=canary', 'B'],
      ['/responses/export?format=ndjson', 'A'],
      ['/responses/export?format=csv', 'B'],
      ['/email-events?limit=100', 'A'],
      [`/email-events?recipient=${encodeURIComponent(CANARY)}`, 'A'],
      ['/emails/events?limit=100', 'B'],
      [`/webhook-endpoints/${endpointId}/deliveries?limit=100`, 'A'],
      [`/respondents/export?email=${encodeURIComponent(CANARY)}`, 'A'],
    ];
    // One after the other: a key runs at most two exports at once (EXPORTS_PER_KEY).
    const views = [];
    for (const [path, style] of paths) views.push(await api(path, style));
    expect(views.map((v, i) => [paths[i]![0], v.status])).toEqual(paths.map(([path]) => [path, 200]));
    const page = await ctx.http().get(pathOf(dashboard));
    expect(page.status).toBe(200);
    const csv = /href="(\/d\/[^"]+\/export\?format=csv&amp;t=[^"]+)"/.exec(page.text)![1]!.replace(/&amp;/g, '&');
    const download = await ctx.http().get(csv).buffer(true);
    expect(download.status).toBe(200);
    return [...views.map((v) => v.text), page.text, download.text].join('\n').toLowerCase();
  }

  /** Rows of every table (all schemas) that hold the unique answer text, or the address and this workspace's id. */
  async function tracesInTables(): Promise<string[]> {
    const tables = (await ctx.db.raw(
      "SELECT table_schema AS s, table_name AS t FROM information_schema.tables WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')",
    )) as { rows: Array<{ s: string; t: string }> };
    expect(tables.rows.map((r) => r.t)).toEqual(expect.arrayContaining(['responses', 'email_events', 'webhook_events', 'webhook_deliveries', 'audit_events']));
    const found: string[] = [];
    for (const { s, t } of tables.rows) {
      const rows = (await ctx.db.raw('SELECT x::text AS row FROM ??.?? x WHERE x::text ILIKE ? OR x::text ILIKE ?', [s, t, `%${said}%`, `%${CANARY}%`])) as {
        rows: Array<{ row: string }>;
      };
      // The address alone may be another test file's (the database is shared): only this workspace's rows count.
      for (const { row } of rows.rows) if (row.toLowerCase().includes(said) || row.includes(d.ws)) found.push(`${s}.${t}: ${row.slice(0, 200)}`);
    }
    return found;
  }

  /** The summary, both lists' totals and the counter table equal a fresh count of the workspace's responses. */
  async function totalsFresh(): Promise<number> {
    const fresh = Number(((await ctx.db('responses').where('workspace_id', d.ws).count({ n: '*' }).first()) as { n: unknown }).n);
    const summary = await api(`/forms/${d.form}/analytics/summary`);
    expect(summary.body.data.total_responses).toBe(fresh);
    const b = await api(`/responses?page=1&limit=1&form_id=${d.form}`, 'B');
    expect(b.body.meta).toMatchObject({ total: fresh, filtered_total: fresh });
    const kept = Number(((await ctx.db('response_counts').where('workspace_id', d.ws).sum({ n: 'responses' }).first()) as { n: unknown }).n ?? 0);
    expect(kept).toBe(fresh);
    return fresh;
  }

  beforeAll(async () => {
    d = await formWorkspace(ctx.db, { form: surveyForm, key: { scopes: [...ALL_SCOPES] } });
    await importFixture(ctx.db, {
      webhook_endpoints: [{ workspace_id: d.ws, url: 'https://example.com/done-when', events: ['response.created', 'respondent.erased'] }],
    });
    endpointId = ((await ctx.db('webhook_endpoints').where('workspace_id', d.ws).first('id')) as { id: string }).id;
    // The form page, the canary giving its address and its words; then someone else.
    await submitPage({ 'q.q_email': CANARY, 'q.q_comment': said });
    await submitPage({ 'q.q_email': OTHER, 'q.q_comment': otherSaid });
    // An email link for the canary: opened (an email event) and answered.
    const link = await ctx.http().post(`/api/v1/workspaces/${d.ws}/forms/${d.form}/links`).set('X-API-Key', d.key).send({ email: CANARY });
    expect(link.status).toBe(201);
    await submitPage({ 'q.q_comment': said, _t: new URL(link.body.data.url as string).searchParams.get('t')! }, pathOf(link.body.data.url as string));
    expect((await ctx.http().get(pathOf(link.body.data.open_url as string))).status).toBe(200);
    // A bulk delete whose Style B filter names the address (and matches nothing): its stored filters hold it.
    const bulk = await ctx
      .http()
      .post(`/api/v1/workspaces/${d.ws}/response-deletions`)
      .set('X-API-Key', d.key)
      .set('X-API-Style', 'B')
      .send({ formId: d.form, filter: `respondent_email = ${CANARY.toUpperCase()}, score = 0` });
    expect([bulk.status, bulk.body.data?.deleted]).toEqual([200, 0]);
    const minted = await ctx
      .http()
      .post(`/api/v1/workspaces/${d.ws}/forms/${d.form}/dashboard-links`)
      .set('X-API-Key', d.key)
      .send({ include_addresses: true });
    expect(minted.status).toBe(201);
    dashboard = minted.body.data.url as string;
  }, 60_000);

  it('shows the canary everywhere before, nowhere after; totals, audit and the chain hold', async () => {
    const before = await everyView();
    expect(before).toContain(CANARY);
    expect(before).toContain(said);
    expect((await tracesInTables()).some((row) => row.startsWith('public.response_deletions: '))).toBe(true);
    expect(await totalsFresh()).toBe(3);

    const dry = await post({ email: CANARY, dryRun: true }, { key: d.key, style: 'B', ws: d.ws });
    expect(dry.status).toBe(200);
    expect(dry.body.data.wouldRemove).toMatchObject({ responses: 2, emailEvents: 2, emailLinkUses: 1, webhookEvents: 2 }); // events: the link's click and open
    const run = await post({ email: CANARY }, { key: d.key, ws: d.ws });
    expect(run.status).toBe(201);
    expect(run.body.data.removed).toEqual(
      Object.fromEntries(Object.entries(dry.body.data.wouldRemove as Counts).map(([k, v]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), v])),
    );

    const after = await everyView();
    expect(after).not.toContain(CANARY);
    expect(after).not.toContain(said);
    expect(after).toContain(otherSaid);
    expect(await tracesInTables()).toEqual([]);
    expect(await totalsFresh()).toBe(1);

    const audit = await api(`/audit-events?action=erasure_request.run`);
    expect(audit.body.data).toEqual([
      expect.objectContaining({ target_id: run.body.data.id, changes: expect.objectContaining({ removed: run.body.data.removed }) }),
    ]);
    const [check] = await verifyAuditChains(ctx.db, { workspaceId: d.ws });
    expect(check!.firstBad).toBeUndefined();
  });
});
