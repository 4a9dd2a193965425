/**
 * Style A's typed response filters (docs/migrating-between-styles.md, "Response filters"): for every field and
 * operator, the Style A list holds exactly the ids of the equivalent Style B `filter` request, and exactly
 * the fixture's responses the condition names (absent email_id, row_id and respondent_email included).
 */
import { newestFirst, scenario, type Scenario } from '../../support/given';
import { useTestApp } from '../../support/app';

const t = useTestApp();
let s: Scenario;
beforeAll(async () => {
  s = await scenario(t.db, { responseCount: 30 });
});

type Rsp = Scenario['responses'][number];
const get = (path: string) => t.http().get(path).set('X-API-Key', s.key);
const ids = (body: { data: Array<{ id: string }> }) => body.data.map((r) => r.id);
const q = (pairs: Array<[string, string | number]>) => pairs.map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`).join('&');

/** Ids of the Style A list (no style header: the typed parameters select Style A). */
async function styleA(pairs: Array<[string, string | number]>, path = `/api/v1/workspaces/${s.ws}/responses`): Promise<string[]> {
  const res = await get(`${path}?${q([...pairs, ['limit', 100]])}`);
  expect(res.status).toBe(200);
  expect(res.headers['x-api-style']).toBe('A');
  expect(res.body.meta.has_more).toBe(false);
  return ids(res.body);
}

async function styleB(filter: string, extra: Array<[string, string | number]> = []): Promise<string[]> {
  const res = await get(`/api/v1/workspaces/${s.ws}/responses?${q([['filter', filter], ['limit', 1000], ...extra])}`);
  expect(res.status).toBe(200);
  expect(res.headers['x-api-style']).toBe('B');
  return ids(res.body);
}

interface Case {
  a: Array<[string, string | number]>;
  b: string;
  keep: (r: Rsp) => boolean;
}

const lower = (v: string | null | undefined) => (v ?? '').toLowerCase();

/** Every field and operator, with values from the fixture `s`. */
const cases = (s: Scenario): Record<string, Case> => {
  const r0 = s.responses[0]!;
  const r1 = s.responses[1]!;
  const [e0, e1] = s.emailIds;
  const [row0, row1] = [s.responses[0]!.row_id!, s.responses[5]!.row_id!];
  const idPart = r0.id.slice(4, 9).toUpperCase();
  return {
    'id =': { a: [['id', r0.id]], b: `id = ${r0.id}`, keep: (r) => r.id === r0.id },
    'id !=': { a: [['id_ne', r0.id]], b: `id != ${r0.id}`, keep: (r) => r.id !== r0.id },
    'id in': {
      a: [
        ['id_in', r0.id],
        ['id_in', r1.id],
      ],
      b: `id in [${r0.id}, ${r1.id}]`,
      keep: (r) => [r0.id, r1.id].includes(r.id),
    },
    'id ~': { a: [['id_contains', idPart]], b: `id ~ ${idPart}`, keep: (r) => lower(r.id).includes(idPart.toLowerCase()) },
    'id != null': { a: [['id_present', 'true']], b: 'id != null', keep: () => true },
    'id = null': { a: [['id_present', 'false']], b: 'id = null', keep: () => false },
    'form_id !=': { a: [['form_id_ne', s.nps]], b: `form_id != ${s.nps}`, keep: (r) => r.form_id !== s.nps },
    'form_id in': {
      a: [
        ['form_id_in', s.csat],
        ['form_id_in', 'frm_none'],
      ],
      b: `form_id in [${s.csat}, frm_none]`,
      keep: (r) => r.form_id === s.csat,
    },
    'form_id ~': {
      a: [['form_id_contains', s.csat.slice(4).toUpperCase()]],
      b: `form_id ~ ${s.csat.slice(4).toUpperCase()}`,
      keep: (r) => r.form_id === s.csat,
    },
    'form_id != null': { a: [['form_id_present', 'true']], b: 'form_id != null', keep: () => true },
    'form_id = null': { a: [['form_id_present', 'false']], b: 'form_id = null', keep: () => false },
    'score =': { a: [['score', '9.0']], b: 'score = 9', keep: (r) => r.score === 9 },
    'score !=': { a: [['score_ne', 3]], b: 'score != 3', keep: (r) => r.score !== 3 },
    'score in': {
      a: [
        ['score_in', 1],
        ['score_in', 10],
      ],
      b: 'score in [1, 10]',
      keep: (r) => r.score === 1 || r.score === 10,
    },
    'score != null': { a: [['score_present', 'true']], b: 'score != null', keep: () => true },
    'score = null': { a: [['score_present', 'false']], b: 'score = null', keep: () => false },
    'email_id =': { a: [['email_id', e0!]], b: `email_id = ${e0}`, keep: (r) => r.email_id === e0 },
    'email_id != keeps absent': { a: [['email_id_ne', e0!]], b: `email_id != ${e0}`, keep: (r) => r.email_id !== e0 },
    'email_id in': {
      a: [
        ['email_id_in', e0!],
        ['email_id_in', e1!],
      ],
      b: `email_id in [${e0}, ${e1}]`,
      keep: (r) => r.email_id === e0 || r.email_id === e1,
    },
    'email_id ~': { a: [['email_id_contains', 'EM_']], b: 'email_id ~ EM_', keep: (r) => lower(r.email_id).includes('em_') },
    'email_id != null': { a: [['email_id_present', 'true']], b: 'email_id != null', keep: (r) => r.email_id !== null },
    'email_id = null': { a: [['email_id_present', 'false']], b: 'email_id = null', keep: (r) => r.email_id === null },
    'email_id = "null" (text)': { a: [['email_id', 'null']], b: 'email_id = "null"', keep: () => false },
    'row_id =': { a: [['row_id', row0]], b: `row_id = ${row0}`, keep: (r) => r.row_id === row0 },
    'row_id != keeps absent': { a: [['row_id_ne', row0]], b: `row_id != ${row0}`, keep: (r) => r.row_id !== row0 },
    'row_id in': {
      a: [
        ['row_id_in', row0],
        ['row_id_in', row1],
      ],
      b: `row_id in [${row0}, ${row1}]`,
      keep: (r) => r.row_id === row0 || r.row_id === row1,
    },
    'row_id ~': { a: [['row_id_contains', 'ROW']], b: 'row_id ~ ROW', keep: (r) => lower(r.row_id).includes('row') },
    'row_id != null': { a: [['row_id_present', 'true']], b: 'row_id != null', keep: (r) => r.row_id !== null },
    'row_id = null': { a: [['row_id_present', 'false']], b: 'row_id = null', keep: (r) => r.row_id === null },
    'respondent_email =': {
      a: [['respondent_email', 'person4@example.com']],
      b: 'respondent_email = person4@example.com',
      keep: (r) => r.respondent_email === 'person4@example.com',
    },
    'respondent_email != keeps absent': {
      a: [['respondent_email_ne', 'person4@example.com']],
      b: 'respondent_email != person4@example.com',
      keep: (r) => r.respondent_email !== 'person4@example.com',
    },
    'respondent_email in': {
      a: [
        ['respondent_email_in', 'person4@example.com'],
        ['respondent_email_in', 'person8@example.com'],
      ],
      b: 'respondent_email in [person4@example.com, person8@example.com]',
      keep: (r) => ['person4@example.com', 'person8@example.com'].includes(r.respondent_email ?? ''),
    },
    'respondent_email ~ ignores case': {
      a: [['respondent_email_contains', 'PERSON1']],
      b: 'respondent_email ~ PERSON1',
      keep: (r) => lower(r.respondent_email).includes('person1'),
    },
    'respondent_email != null': { a: [['respondent_email_present', 'true']], b: 'respondent_email != null', keep: (r) => r.respondent_email !== null },
    'respondent_email = null': { a: [['respondent_email_present', 'false']], b: 'respondent_email = null', keep: (r) => r.respondent_email === null },
    'empty text is a value': {
      a: [
        ['row_id', ''],
        ['respondent_email_contains', ''],
      ],
      b: 'row_id = "", respondent_email ~ ""',
      keep: () => false,
    },
    'empty contains matches every present value': {
      a: [['respondent_email_contains', '']],
      b: 'respondent_email ~ ""',
      keep: (r) => r.respondent_email !== null,
    },
    'repeated != adds a condition per value': {
      a: [
        ['row_id_ne', row0],
        ['row_id_ne', row1],
      ],
      b: `row_id != ${row0}, row_id != ${row1}`,
      keep: (r) => r.row_id !== row0 && r.row_id !== row1,
    },
    'repeated ~ adds a condition per value': {
      a: [
        ['respondent_email_contains', 'person'],
        ['respondent_email_contains', '2'],
      ],
      b: 'respondent_email ~ person, respondent_email ~ 2',
      keep: (r) => lower(r.respondent_email).includes('person') && lower(r.respondent_email).includes('2'),
    },
    'repeated = on one field': {
      a: [
        ['score', 3],
        ['score', 4],
      ],
      b: 'score = 3, score = 4',
      keep: () => false,
    },
    'text with LIKE wildcards and commas is literal': {
      a: [
        ['id_contains', '%'],
        ['respondent_email_contains', ',_'],
      ],
      b: 'id ~ %, respondent_email ~ ",_"',
      keep: () => false,
    },
    'conditions of several fields are ANDed': {
      a: [
        ['row_id_present', 'false'],
        ['score_in', 0],
        ['score_in', 4],
        ['score_in', 8],
        ['form_id_ne', s.csat],
        ['email_id_ne', e1!],
      ],
      b: `row_id = null, score in [0, 4, 8], form_id != ${s.csat}, email_id != ${e1}`,
      keep: (r) => r.row_id === null && [0, 4, 8].includes(r.score) && r.form_id !== s.csat && r.email_id !== e1,
    },
  };
};

describe('Style A typed response filters answer as Style B filter', () => {
  // The names only, before the fixture exists.
  const placeholder = { responses: Array(30).fill({ id: 'rsp_placeholder', row_id: 'row' }), emailIds: ['em_1', 'em_2'], nps: 'frm_1', csat: 'frm_2' };
  it.each(Object.keys(cases(placeholder as unknown as Scenario)).map((name) => [name]))('%s', async (name) => {
    const c = cases(s)[name]!;
    const expected = newestFirst(s.responses.filter(c.keep)).map((r) => r.id);
    const [a, b] = await Promise.all([styleA(c.a), styleB(c.b)]);
    expect(a).toEqual(expected);
    expect(b).toEqual(expected);
  });

  it('combines with form_id, score bounds, dates and sort as Style B does', async () => {
    const pairs: Array<[string, string | number]> = [
      ['form_id', s.nps],
      ['score_gte', 2],
      ['score_lte', 9],
      ['email_id_present', 'false'],
      ['sort', 'score:asc'],
    ];
    const a = await styleA([...pairs, ['created_after', '2026-01-10T15:00:00Z']]);
    const b = await styleB('score in [2, 3, 4, 5, 6, 7, 8, 9], email_id = null', [
      ['form_id', s.nps],
      ['sort', 'score:asc'],
      ['start_date', '2026-01-10T15:00:00Z'],
    ]);
    expect(a).toEqual(b);
    expect(a.length).toBeGreaterThan(2);
  });

  it('applies on the form path, the v2 path and the export', async () => {
    const typed: Array<[string, string | number]> = [
      ['row_id_present', 'false'],
      ['score_ne', 5],
    ];
    const expected = await styleB('row_id = null, score != 5', [['form_id', s.nps]]);
    expect(await styleA(typed, `/api/v1/workspaces/${s.ws}/forms/${s.nps}/responses`)).toEqual(expected);
    expect(await styleA([...typed, ['form_id', s.nps]], `/api/v2/workspaces/${s.ws}/responses`)).toEqual(expected);
    const res = await get(`/api/v1/workspaces/${s.ws}/responses/export?${q([...typed, ['form_id', s.nps]])}`);
    expect(res.status).toBe(200);
    expect(res.headers['x-api-style']).toBe('A');
    const lines = res.text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string });
    expect(lines.map((l) => l.id)).toEqual(expected);
  });

  it('pages by cursor over a typed filter', async () => {
    const expected = await styleB(`email_id != ${s.emailIds[0]}`);
    const seen: string[] = [];
    let url: string | null = `/api/v1/workspaces/${s.ws}/responses?email_id_ne=${s.emailIds[0]}&limit=7`;
    while (url) {
      const res = await get(url.replace(/^http:\/\/[^/]+/, ''));
      expect(res.status).toBe(200);
      seen.push(...ids(res.body));
      url = res.body.links.next;
    }
    expect(seen).toEqual(expected);
  });
});

describe('Style A typed response filters: errors', () => {
  const list = (query: string, style?: string) => {
    const req = get(`/api/v1/workspaces/${s.ws}/responses?${query}`);
    return style ? req.set('X-API-Style', style) : req;
  };
  const fields = (body: { error: { details?: Array<{ field: string }> } }) => (body.error.details ?? []).map((d) => d.field);

  it.each([
    ['score_in=abc', 'score_in'],
    ['score_in=1&score_in=x', 'score_in'],
    ['score=abc', 'score'],
    ['score_ne=', 'score_ne'],
    ['email_id_present=', 'email_id_present'],
    ['row_id_present=yes', 'row_id_present'],
    ['id_present=1', 'id_present'],
    ['score_contains=9', 'score_contains'],
  ])('%s is a 400 naming %s', async (query, name) => {
    const res = await list(query);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(fields(res.body)).toEqual([name]);
  });

  it('a typed parameter with Style B filter is the 400 naming both', async () => {
    const res = await list('row_id_ne=x&filter=score%20%3D%201');
    expect(res.status).toBe(400);
    expect(fields(res.body).sort()).toEqual(['filter', 'row_id_ne']);
    expect(res.body.error.message).toContain('row_id_ne (Style A) and filter (Style B)');
  });

  it('a typed parameter in a request the header sends to Style B is a 400 naming it', async () => {
    const res = await list('email_id_in=x', 'B');
    expect(res.status).toBe(400);
    expect(fields(res.body)).toEqual(['email_id_in']);
  });
});
