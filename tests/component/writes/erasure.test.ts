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
import { mintLink } from '../../../src/core/links/links';
import { useTestApp } from '../../support/app';
import { formWorkspace, goodAnswers, keyFor, type FormWorkspace } from '../../support/given';

const ctx = useTestApp();

let w: FormWorkspace;
let canary: string;
/** A link minted for the canary before the erasure. */
let canaryLink: string;
const OTHER = 'someone-else@example.com';
const PUBLIC_URL = 'https://feedback.example.com';

type Counts = Record<string, number>;

const post = (body: object, opts: { key?: string; style?: 'A' | 'B' } = {}) =>
  ctx
    .http()
    .post(`/api/v1/workspaces/${w.ws}/erasure-requests`)
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
    ['no email', {}, 'email'],
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
