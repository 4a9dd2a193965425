/**
 * Deep Style B pages (issue 11): a page narrowed only by form and score, in created_at order, starts at
 * the day `response_day_counts` places it on. Every page must still hold exactly the rows of the
 * unpaged list, in its order, with the right totals.
 */
import { newestFirst, scenario, type Scenario } from '../../support/given';
import { useTestApp } from '../../support/app';

const t = useTestApp();
let s: Scenario;
const DAY_MS = 86_400_000;

beforeAll(async () => {
  s = await scenario(t.db, { responseCount: 120 });
  // Spread the responses over 11 UTC days (pairs keep sharing a created_at), in one UPDATE statement,
  // so the counters also move through the update trigger.
  const moved = s.responses.map((r, i) => ({ ...r, created_at: new Date(Date.parse(r.created_at) + (Math.floor(i / 2) % 9) * DAY_MS).toISOString() }));
  const values = moved.map(() => '(?, ?::timestamptz)').join(', ');
  await t.db.raw(`UPDATE responses r SET created_at = v.c FROM (VALUES ${values}) AS v(id, c) WHERE r.workspace_id = ? AND r.id = v.id`, [
    ...moved.flatMap((r) => [r.id, r.created_at]),
    s.ws,
  ]);
  s.responses = moved;
});

type Rsp = Scenario['responses'][number];
const list = (query: string) => t.http().get(`/api/v1/workspaces/${s.ws}/responses?${query}`).set('X-API-Key', s.key).set('X-API-Style', 'B');
const ids = (body: { data: Array<{ id: string }> }) => body.data.map((r) => r.id);
const oldestFirst = (items: Rsp[]) => newestFirst(items).reverse();

/** Walks pages 1..last+1 with limit 7 and checks each against the slice of `expected`. */
async function expectPagesMatch(query: string, expected: Rsp[]): Promise<void> {
  const limit = 7;
  const pages = Math.ceil(expected.length / limit);
  const unpaged = await list(`${query}&limit=1000`);
  expect(ids(unpaged.body)).toEqual(expected.map((r) => r.id));
  for (let page = 1; page <= pages + 1; page++) {
    const res = await list(`${query}&limit=${limit}&page=${page}`);
    expect(res.status).toBe(200);
    expect(res.body.meta).toEqual({ total: 120, page, limit, filtered_total: expected.length });
    expect(ids(res.body)).toEqual(expected.slice((page - 1) * limit, page * limit).map((r) => r.id));
  }
}

describe('Style B deep pages', () => {
  it('returns every page of a form_id + score filter exactly as the unpaged list', async () => {
    const expected = newestFirst(s.responses.filter((r) => r.form_id === s.nps && [7, 8, 9, 10].includes(r.score)));
    expect(expected.length).toBeGreaterThan(14);
    await expectPagesMatch(`form_id=${s.nps}&filter=${encodeURIComponent('score in [7,8,9,10]')}`, expected);
  });

  it('returns every page of a score-only filter exactly as the unpaged list', async () => {
    const expected = newestFirst(s.responses.filter((r) => [2, 3, 9, 10].includes(r.score)));
    await expectPagesMatch(`filter=${encodeURIComponent('score in [2, 3, 9, 10]')}`, expected);
  });

  it('returns every page of the whole list and of a form, oldest first too', async () => {
    await expectPagesMatch('sort=created_at:desc', newestFirst(s.responses));
    await expectPagesMatch(
      `sort=created_at:asc&filter=${encodeURIComponent(`form_id = ${s.csat}`)}`,
      oldestFirst(s.responses.filter((r) => r.form_id === s.csat)),
    );
  });

  it('walks a score != filter (counted from the counters) page by page', async () => {
    await expectPagesMatch(`filter=${encodeURIComponent('score != 4')}`, newestFirst(s.responses.filter((r) => r.score !== 4)));
  });

  it('answers a page past the last with empty data and the totals', async () => {
    const res = await list(`form_id=${s.nps}&filter=${encodeURIComponent('score in [7,8,9,10]')}&limit=7&page=500`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
    expect(res.body.meta).toEqual({
      total: 120,
      page: 500,
      limit: 7,
      filtered_total: s.responses.filter((r) => r.form_id === s.nps && r.score >= 7).length,
    });
  });

  it('keeps response_day_counts equal to the responses through updates and deletes', async () => {
    const [a, b, c] = s.responses;
    await t
      .db('responses')
      .where({ workspace_id: s.ws, id: a!.id })
      .update({ score: 3, created_at: new Date(Date.parse(a!.created_at) - 3 * DAY_MS) });
    await t.db('responses').where({ workspace_id: s.ws }).whereIn('id', [b!.id, c!.id]).delete();
    const counted = await t.db.raw(
      `SELECT form_id, to_char(day, 'YYYY-MM-DD') AS day, score, responses::int AS n FROM response_day_counts
        WHERE workspace_id = ? AND responses <> 0 ORDER BY 1, 2, 3`,
      [s.ws],
    );
    const actual = await t.db.raw(
      `SELECT form_id, to_char((created_at AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS day, score, count(*)::int AS n FROM responses
        WHERE workspace_id = ? GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
      [s.ws],
    );
    expect(counted.rows).toEqual(actual.rows);
    expect(actual.rows.reduce((sum: number, r: { n: number }) => sum + r.n, 0)).toBe(118);
  });
});
