/**
 * The request translator's rules (src/core/migration/translate.ts; docs/migrating-between-styles.md, "Translating a
 * request"): every Style B operation translates to its mapped Style A operation, and the paging, date and
 * refusal rules. tests/component/migration/translate.property.test.ts checks the data is the same.
 */
import fs from 'node:fs';
import path from 'node:path';
import { STYLE_B_OPERATIONS } from '../../src/core/migration/operation-map';
import { translateStyleB, type Translation } from '../../src/core/migration/translate';

const IDS: Record<string, string> = { workspace_id: 'ws_1', table_id: 'tbl_1', datatable_id: 'tbl_1', row_id: 'row_1', response_id: 'rsp_1' };
const fill = (template: string) => template.replace(/\{([^}]+)\}/g, (_m, name: string) => IDS[name]!);
const ok = (t: Translation) => {
  if (!t.ok) throw new Error(`refused: ${t.part}: ${t.reason}`);
  return t;
};
const refusal = (t: Translation) => (t.ok ? undefined : { part: t.part, label: t.reason.split(':')[0] });
const responses = (query: Record<string, string>) => translateStyleB({ method: 'GET', path: '/api/v1/workspaces/ws_1/responses', query });

describe('translateStyleB', () => {
  it.each(STYLE_B_OPERATIONS.map((m) => [m.operation, m] as const))('translates %s to its Style A equivalent', (_op, m) => {
    const t = ok(translateStyleB({ method: m.method, path: fill(m.path), headers: { 'X-API-Style': 'B' } }));
    expect({ equivalent: t.equivalent, method: t.request.method, path: t.request.path, style: t.request.headers['X-API-Style'] }).toEqual({
      equivalent: m.equivalent.operation,
      method: m.equivalent.method,
      path: fill(m.equivalent.path),
      style: 'A',
    });
  });

  it('sets X-API-Style: A, keeps other headers and never echoes X-API-Key', () => {
    const t = ok(
      translateStyleB({
        method: 'GET',
        path: '/api/v1/workspaces/ws_1/tables',
        headers: { 'x-api-style': 'b', 'X-API-Key': 'fa_secret', Accept: 'application/json' },
      }),
    );
    expect(t.request.headers).toEqual({ Accept: 'application/json', 'X-API-Style': 'A' });
    expect(JSON.stringify(t)).not.toContain('fa_secret');
  });

  it('reads page and limit as a cursor walk', () => {
    expect(ok(responses({})).walk).toMatchObject({ limit: 50, follow_next: 0, read_pages: 1 });
    expect(ok(responses({ page: '3', limit: '20' })).walk).toMatchObject({ limit: 20, follow_next: 2, read_pages: 1 });
    expect(ok(responses({ page: '2', limit: '250' })).walk).toMatchObject({ limit: 50, follow_next: 5, read_pages: 5 });
    expect(ok(responses({ page: '1', limit: '101' })).walk).toMatchObject({ limit: 1, follow_next: 0, read_pages: 101 });
    expect(refusal(responses({ page: '1002', limit: '1' }))).toEqual({ part: 'query.page', label: 'a page too deep for a cursor walk' });
  });

  it('keeps the same instants: start_date as is, end_date a day or a microsecond later', () => {
    const q = (query: Record<string, string>) => ok(responses(query)).request.query;
    expect(q({ start_date: '2026-01-01', end_date: '2026-01-31' })).toMatchObject({ created_after: '2026-01-01', created_before: '2026-02-01' });
    expect(q({ end_date: '2026-01-31T10:00:00+01:00' })).toMatchObject({ created_before: '2026-01-31T09:00:00.000001Z' });
    expect(q({ end_date: '2026-01-31T23:59:59.999999Z' })).toMatchObject({ created_before: '2026-02-01T00:00:00.000000Z' });
    expect(q({ end_date: '2026-01-31T10:00:00.1234560Z' })).toMatchObject({ created_before: '2026-01-31T10:00:00.123457Z' });
    expect(q({ end_date: '9999-12-31' }).created_before).toBeUndefined();
    expect(refusal(responses({ end_date: '2026-01-31T10:00:00.0000001Z' }))).toEqual({ part: 'query.end_date', label: 'an end_date finer than a microsecond' });
    expect(refusal(responses({ end_date: '2026-02-30' }))).toEqual({ part: 'query.end_date', label: 'Style B refuses this request' });
  });

  it('turns the filter into typed parameters', () => {
    const q = (filter: string, extra: Record<string, string> = {}) => ok(responses({ filter, ...extra })).request.query;
    expect(q('score in [9, 10.0], formId = frm_1, respondent_email ~ "A, b", email_id != null, row_id = null, id != "null"')).toEqual({
      limit: '50',
      form_id: 'frm_1',
      respondent_email_contains: 'A, b',
      email_id_present: 'true',
      row_id_present: 'false',
      id_ne: 'null',
      score_in: ['9', '10'],
    });
    expect(q('form_id = a', { form_id: 'b' })).toEqual({ limit: '50', form_id: 'b', form_id_in: 'a' });
    expect(q('id in [a, b, c], id in [c, b, d]')).toEqual({ limit: '50', id_in: ['b', 'c'] });
    expect(q('id in [a], id in [b]')).toEqual({ limit: '50', id_in: 'a', id_ne: 'a' });
    expect(q('id in [a, null], row_id in [null]')).toEqual({ limit: '50', id_in: 'a', row_id_present: 'false' });
    expect(refusal(responses({ filter: 'row_id in [a, null]' }))).toEqual({ part: 'query.filter', label: 'an in list holding null and values' });
    expect(refusal(responses({ filter: 'score ~ 9' }))).toEqual({ part: 'query.filter', label: 'Style B refuses this request' });
    expect(refusal(responses({ filter: 'colour = red' }))).toEqual({ part: 'query.filter', label: 'Style B refuses this request' });
  });

  it('turns answer filters into the keyed answer parameters, whatever the question type', () => {
    const q = (filter: string, extra: Record<string, string> = { form_id: 'frm_1' }) => ok(responses({ filter, ...extra })).request.query;
    expect(
      q(
        'answers.q_plan = opt_pro, answers.q_plan != opt_basic, answers.q_rating in [1, 2, null], answers.q_comment ~ "slow, very", ' +
          'answers.q_comment != null, answers.q_email = null, answers.q_num > 1.50, answers.q_num >= 2, answers.q_date < 2026-01-01, ' +
          'answers.q_date <= "2026-02-01", answers.q_text = "null", answers."q:1" = v, answers."say \\"x\\"" in [null], answers."\\"q" = w',
      ),
    ).toEqual({
      limit: '50',
      form_id: 'frm_1',
      answer: ['q_plan:opt_pro', 'q_text:null', '"q:1":v', '"\\"q":w'],
      answer_ne: 'q_plan:opt_basic',
      // A quote inside a key needs no quoting: only a key holding ":" or starting with a quote is quoted.
      answer_in: ['q_rating:1', 'q_rating:2', 'q_rating', 'say "x"'],
      answer_contains: 'q_comment:slow, very',
      answer_present: ['q_comment:true', 'q_email:false'],
      answer_gt: 'q_num:1.50',
      answer_gte: 'q_num:2',
      answer_lt: 'q_date:2026-01-01',
      answer_lte: 'q_date:2026-02-01',
    });
    // The first `form_id = v` condition is the form, as Style B reads it.
    expect(q('answers.q_plan = opt_pro, form_id = frm_2', {})).toEqual({ limit: '50', answer: 'q_plan:opt_pro', form_id: 'frm_2' });
    expect(refusal(responses({ filter: 'answers.q_plan = opt_pro' }))).toEqual({ part: 'query.filter', label: 'Style B refuses this request' });
    expect(refusal(responses({ filter: 'answers.q_num >= null', form_id: 'f' }))).toEqual({ part: 'query.filter', label: 'Style B refuses this request' });
    expect(refusal(responses({ filter: 'answers.q_r in [1], answers.q_r in [2]', form_id: 'f' }))).toEqual({
      part: 'query.filter',
      label: 'two in lists on one answer',
    });
  });

  it('turns sentiment filters into the sentiment parameters and refuses a label Style B refuses', () => {
    const q = (filter: string) => ok(responses({ filter })).request.query;
    expect(q('sentiment = positive, sentiment != negative, sentiment in [negative, neutral], sentiment != null')).toEqual({
      limit: '50',
      sentiment: 'positive',
      sentiment_ne: 'negative',
      sentiment_present: 'true',
      sentiment_in: ['negative', 'neutral'],
    });
    expect(q('sentiment = null')).toEqual({ limit: '50', sentiment_present: 'false' });
    expect(ok(responses({ sort: 'sentiment:asc' })).request.query).toEqual({ limit: '50', sort: 'sentiment:asc' });
    for (const filter of ['sentiment = happy', 'sentiment in [positive, Positive]', 'sentiment ~ pos']) {
      expect(refusal(responses({ filter }))).toEqual({ part: 'query.filter', label: 'Style B refuses this request' });
    }
  });

  it('turns topic filters into the topic parameters, value for value, and refuses ~ and comparisons', () => {
    const q = (filter: string) => ok(responses({ filter })).request.query;
    expect(q('topic = pricing, topic != top_0123456789abcdef, topic in [speed, Support], topic != null')).toEqual({
      limit: '50',
      topic: 'pricing',
      topic_ne: 'top_0123456789abcdef',
      topic_present: 'true',
      topic_in: ['speed', 'Support'],
    });
    expect(q('topic = null')).toEqual({ limit: '50', topic_present: 'false' });
    for (const filter of ['topic ~ pri', 'topic >= a']) {
      expect(refusal(responses({ filter }))).toEqual({ part: 'query.filter', label: 'Style B refuses this request' });
    }
  });

  it('names every refusal by a reason the guide lists', () => {
    const guide = fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'migrating-between-styles.md'), 'utf8');
    const refusals = [
      responses({ sort: 'score:desc,created_at:asc' }),
      responses({ include_actionlist_data: 'true' }),
      responses({ cursor: 'abc' }),
      translateStyleB({ method: 'GET', path: '/api/v1/workspaces/ws_1/tables/tbl_1/entries', query: { start_date: '2026-01-01' } }),
      translateStyleB({ method: 'GET', path: '/api/v1/workspaces/ws_1/emails/events', query: { filter: 'email = a@b.c' } }),
      translateStyleB({
        method: 'POST',
        path: '/api/v1/workspaces/ws_1/tables/tbl_1/bulk-entries',
        body: { data: Array.from({ length: 101 }, (_v, i) => ({ id: `r${i}` })) },
      }),
      translateStyleB({ method: 'GET', path: '/api/v1/workspaces/ws_1/datatables/tbl_1/rows' }),
      translateStyleB({ method: 'GET', path: '/api/v1/workspaces/ws_1/responses', headers: { 'x-api-style': 'a' } }),
      responses({ filter: 'answers.q in [1], answers.q in [2]', form_id: 'f' }),
      translateStyleB({ method: 'POST', path: '/api/v1/workspaces/ws_1/response-deletions', body: { formId: 'f', filter: 'score in [1, 2]' } }),
    ].map(refusal);
    for (const r of refusals) expect({ r, listed: r !== undefined && guide.includes(`| \`${r.label}\` |`) }).toEqual({ r, listed: true });
  });
});

describe('translateStyleB: the bulk delete body', () => {
  const deletion = (body: unknown) =>
    translateStyleB({ method: 'POST', path: '/api/v1/workspaces/ws_1/response-deletions', headers: { 'X-API-Style': 'B' }, body });

  it('renames the Style B fields; an endDate date becomes the next day in created_before', () => {
    const t = ok(deletion({ formId: 'frm_1', startDate: '2026-01-01', endDate: '2026-01-31', ids: ['rsp_1'], dryRun: true }));
    expect(t.request.body).toEqual({ form_id: 'frm_1', created_after: '2026-01-01', created_before: '2026-02-01', ids: ['rsp_1'], dry_run: true });
  });

  it('translates a filter into the body fields: form, ids (intersected), a score, answers', () => {
    const t = ok(
      deletion({
        ids: ['rsp_1', 'rsp_2', 'rsp_3'],
        filter: 'form_id = frm_1, id in [rsp_2, rsp_3, rsp_4], score = 9.0, answers.q_plan in [opt_pro], answers.q_nps >= 7',
      }),
    );
    expect(t.request.body).toEqual({
      form_id: 'frm_1',
      ids: ['rsp_2', 'rsp_3'],
      score_gte: 9,
      score_lte: 9,
      answer_in: ['q_plan:opt_pro'],
      answer_gte: ['q_nps:7'],
    });
    expect(ok(deletion({ formId: 'frm_1', filter: 'form_id = frm_1, id = rsp_1' })).request.body).toEqual({ form_id: 'frm_1', ids: ['rsp_1'] });
    expect(ok(deletion({ formId: 'frm_1', filter: ' ' })).request.body).toEqual({ form_id: 'frm_1' });
  });

  it.each([
    ['score in [0, 1]', 'a bulk delete filter condition without a Style A body field'],
    ['respondent_email = a@example.com', 'a bulk delete filter condition without a Style A body field'],
    ['form_id = frm_2', 'a bulk delete filter condition without a Style A body field'],
    ['id = rsp_9', 'a bulk delete filter condition without a Style A body field'],
    ['score >= 3', 'Style B refuses this request'],
  ])('refuses the filter %s, naming body.filter', (filter, label) => {
    expect(refusal(deletion({ formId: 'frm_1', ids: ['rsp_1'], filter }))).toEqual({ part: 'body.filter', label });
  });
});
