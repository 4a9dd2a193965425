/**
 * GET {ws}/respondents/export?email=… (docs/data-rights.md, "Export a person's data"): exactly the person's records
 * (responses by respondent_email, by an email answer and by a text mention; email events to the address; rows those
 * point at and rows holding the address), in the key's style, each kind oldest first, with a summary; kinds the key
 * cannot read are omitted and named; other people's records and other workspaces never appear; bad addresses are a 400.
 */
import { importFixture } from '../../../src/core/import/importer';
import type { FixtureQuestion } from '../../../src/core/import/fixture-schema';
import { useTestApp } from '../../support/app';
import { keyFor, uid, workspaceWithKey } from '../../support/given';

const ctx = useTestApp();

const QUESTIONS: FixtureQuestion[] = [
  { id: 'q_nps', type: 'nps', title: 'How likely?' },
  { id: 'q_mail', type: 'email', title: 'Your email' },
  { id: 'q_text', type: 'text', title: 'Comment' },
];

const PERSON = 'Canary@Example.com';
const OTHER = 'someone@example.com';

interface Data {
  ws: string;
  key: string;
  otherWs: string;
  form: string;
  table: string;
  rowLinked: string;
  rowHolding: string;
  rowOther: string;
}
let data: Data;

const at = (day: number) => `2026-05-${String(day).padStart(2, '0')}T10:00:00.000Z`;

beforeAll(async () => {
  const { ws, key } = await workspaceWithKey(ctx.db);
  const { ws: otherWs } = await workspaceWithKey(ctx.db);
  const form = uid('frm');
  const otherForm = uid('frm');
  const table = uid('dt');
  const [rowLinked, rowHolding, rowOther] = [uid('row'), uid('row'), uid('row')];
  await importFixture(ctx.db, {
    forms: [
      { id: form, workspace_id: ws, name: 'Survey', questions: QUESTIONS },
      { id: otherForm, workspace_id: otherWs, name: 'Elsewhere', questions: QUESTIONS },
    ],
    datatables: [
      {
        id: table,
        workspace_id: ws,
        name: 'Contacts',
        fields: [
          { name: 'id', type: 'string' },
          { name: 'email', type: 'string' },
        ],
        rows: [
          { row_id: rowLinked, data: { id: 'c1', email: 'not-the-address@example.com' }, created_at: at(1) },
          { row_id: rowHolding, data: { id: 'c2', email: 'CANARY@example.com' }, created_at: at(2) },
          { row_id: rowOther, data: { id: 'c3', email: OTHER }, created_at: at(3) },
        ],
      },
    ],
    responses: [
      // The person's: by respondent_email (other case), by an email answer, by a text mention.
      {
        id: 'rsp_by_address',
        form_id: form,
        score: 9,
        created_at: at(4),
        respondent_email: 'canary@example.com',
        email_id: 'em_1',
        row_id: rowLinked,
        answers: [{ question_id: 'q_nps', value: 9 }],
      },
      {
        id: 'rsp_by_answer',
        form_id: form,
        score: 3,
        created_at: at(5),
        answers: [
          { question_id: 'q_nps', value: 3 },
          { question_id: 'q_mail', value: 'canary@example.com' },
        ],
      },
      {
        id: 'rsp_by_mention',
        form_id: form,
        score: 5,
        created_at: at(6),
        answers: [
          { question_id: 'q_nps', value: 5 },
          { question_id: 'q_text', value: 'Write to CANARY@EXAMPLE.COM please' },
        ],
      },
      // Not the person's.
      {
        id: 'rsp_other',
        form_id: form,
        score: 7,
        created_at: at(7),
        respondent_email: OTHER,
        email_id: 'em_2',
        answers: [
          { question_id: 'q_nps', value: 7 },
          { question_id: 'q_text', value: 'canary@example.org is not it' },
        ],
      },
      {
        id: 'rsp_elsewhere',
        form_id: otherForm,
        score: 1,
        created_at: at(8),
        respondent_email: 'canary@example.com',
        email_id: 'em_9',
        answers: [{ question_id: 'q_nps', value: 1 }],
      },
    ],
    email_events: [
      { id: 'ev_1', workspace_id: ws, email_id: 'em_1', email: 'canary@example.com', type: 'send', created_at: at(3) },
      { id: 'ev_2', workspace_id: ws, email_id: 'em_1', email: 'Canary@Example.com', type: 'open', created_at: at(4) },
      { id: 'ev_3', workspace_id: ws, email_id: 'em_2', email: OTHER, type: 'send', row_id: rowOther, created_at: at(3) },
      { id: 'ev_9', workspace_id: otherWs, email_id: 'em_9', email: 'canary@example.com', type: 'send', created_at: at(3) },
    ],
  });
  data = { ws, key, otherWs, form, table, rowLinked, rowHolding, rowOther };
}, 60_000);

type Line = { type: string; data: Record<string, unknown> };

async function personExport(email: string, opts: { key?: string; style?: 'A' | 'B' } = {}) {
  const res = await ctx
    .http()
    .get(`/api/v1/workspaces/${data.ws}/respondents/export`)
    .query({ email })
    .set('X-API-Key', opts.key ?? data.key)
    .set('X-API-Style', opts.style ?? 'A')
    .buffer(true)
    .parse((r, cb) => {
      let text = '';
      r.setEncoding('utf8');
      r.on('data', (c: string) => (text += c));
      r.on('end', () => cb(null, text));
    });
  const text = res.body as unknown as string;
  const lines =
    res.status === 200
      ? text
          .split('\n')
          .filter((l) => l !== '')
          .map((l) => JSON.parse(l) as Line)
      : [];
  return { res, lines, text };
}

const idsOf = (lines: Line[], type: string, idKey: string) => lines.filter((l) => l.type === type).map((l) => l.data[idKey]);

describe('GET {ws}/respondents/export', () => {
  it('streams exactly the person’s responses, email events and rows in Style A, oldest first, then a summary', async () => {
    const { res, lines, text } = await personExport(PERSON);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/x-ndjson/);
    expect(res.headers['content-disposition']).toBe('attachment; filename="person.ndjson"');
    expect(lines.map((l) => l.type)).toEqual(['response', 'response', 'response', 'email_event', 'email_event', 'row', 'row', 'summary']);
    expect(idsOf(lines, 'response', 'id')).toEqual(['rsp_by_address', 'rsp_by_answer', 'rsp_by_mention']);
    expect(idsOf(lines, 'email_event', 'id')).toEqual(['ev_1', 'ev_2']);
    // The row the person's response points at, and the row whose data holds the address.
    expect(idsOf(lines, 'row', 'row_id')).toEqual([data.rowLinked, data.rowHolding]);
    expect(lines.at(-1)).toEqual({ type: 'summary', data: { responses: 3, email_events: 2, rows: 2, omitted: [] } });
    // Style A shapes: snake_case.
    expect(lines[0]!.data).toMatchObject({ id: 'rsp_by_address', form_id: data.form, respondent_email: 'canary@example.com' });
    expect(lines[3]!.data).toMatchObject({ id: 'ev_1', email_id: 'em_1', created_at: at(3) });
    // Nothing of another person or another workspace.
    for (const absent of ['rsp_other', 'rsp_elsewhere', 'ev_3', 'ev_9', data.rowOther, OTHER]) expect(text).not.toContain(absent);
  });

  it('presents the same records in Style B', async () => {
    const a = await personExport(PERSON, { style: 'A' });
    const { res, lines } = await personExport(PERSON, { style: 'B' });
    expect(res.status).toBe(200);
    expect(idsOf(lines, 'response', 'id')).toEqual(idsOf(a.lines, 'response', 'id'));
    expect(idsOf(lines, 'email_event', 'id')).toEqual(idsOf(a.lines, 'email_event', 'id'));
    expect(idsOf(lines, 'row', 'row_id')).toEqual(idsOf(a.lines, 'row', 'row_id'));
    expect(lines[0]!.data).toMatchObject({ id: 'rsp_by_address', createdAt: at(4) });
    expect(lines.at(-1)).toEqual({ type: 'summary', data: { responses: 3, emailEvents: 2, rows: 2, omitted: [] } });
  });

  it('leaves out the kinds the key cannot read and names them', async () => {
    const key = await keyFor(ctx.db, [data.ws], { scopes: ['responses:read'] });
    const { res, lines } = await personExport(PERSON, { key });
    expect(res.status).toBe(200);
    expect(lines.map((l) => l.type)).toEqual(['response', 'response', 'response', 'summary']);
    expect(lines.at(-1)!.data).toEqual({ responses: 3, email_events: 0, rows: 0, omitted: ['email_events', 'rows'] });
    const b = await personExport(PERSON, { key, style: 'B' });
    expect(b.lines.at(-1)!.data).toEqual({ responses: 3, emailEvents: 0, rows: 0, omitted: ['emailEvents', 'rows'] });
  });

  it('needs responses:read', async () => {
    const key = await keyFor(ctx.db, [data.ws], { scopes: ['forms:read'] });
    const { res } = await personExport(PERSON, { key });
    expect(res.status).toBe(403);
  });

  it('answers an unknown address with only the summary', async () => {
    const { res, lines } = await personExport('nobody@example.com');
    expect(res.status).toBe(200);
    expect(lines).toEqual([{ type: 'summary', data: { responses: 0, email_events: 0, rows: 0, omitted: [] } }]);
  });

  it.each([
    ['no @', 'canary.example.com'],
    ['@ first', '@example.com'],
    ['@ last', 'canary@'],
    ['blank', '   '],
    ['too long', `${'x'.repeat(320)}@example.com`],
  ])('refuses an address with %s as a 400 naming email', async (_what, email) => {
    const { res, text } = await personExport(email);
    expect(res.status).toBe(400);
    const body = JSON.parse(text) as { error: { code: string; details: Array<{ field: string }> } };
    expect(body.error.code).toBe('validation_error');
    expect(body.error.details.map((d) => d.field)).toContain('email');
  });

  it('refuses a request without email as a 400 naming email', async () => {
    const res = await ctx.http().get(`/api/v1/workspaces/${data.ws}/respondents/export`).set('X-API-Key', data.key);
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain('email');
  });
});
