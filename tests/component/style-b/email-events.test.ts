import { scenario, type Scenario } from '../../support/given';
import { useTestApp } from '../../support/app';

const t = useTestApp();
let s: Scenario;
beforeAll(async () => {
  s = await scenario(t.db, { responseCount: 30 });
});

type Ev = Scenario['events'][number];
const get = (path: string, key = s.key) => t.http().get(path).set('X-API-Key', key);
const events = (query = '') => get(`/api/v1/workspaces/${s.ws}/emails/events?${query}`);
const ids = (body: { data: Array<{ id: string }> }) => body.data.map((e) => e.id);
const newest = (list: Ev[]) => [...list].sort((a, b) => (a.created_at === b.created_at ? (a.id < b.id ? 1 : -1) : a.created_at < b.created_at ? 1 : -1));

describe('Style B email events', () => {
  it('lists events newest first in the Style B shape with "" for absent links', async () => {
    const res = await events('limit=3');
    expect(res.status).toBe(200);
    expect(res.headers['x-api-style']).toBe('B');
    expect(res.body.meta).toEqual({ total: s.events.length, page: 1, limit: 3, filtered_total: s.events.length });
    const first = newest(s.events)[0]!;
    expect(res.body.data[0]).toEqual({
      id: first.id,
      email_id: first.email_id,
      email: first.email,
      event_type: first.type,
      row_id: '',
      form_id: s.nps,
      flow_id: '',
      createdAt: first.created_at,
    });
    expect(ids(res.body)).toEqual(
      newest(s.events)
        .slice(0, 3)
        .map((e) => e.id),
    );
  });

  it('pages through every event', async () => {
    const seen: string[] = [];
    for (let page = 1; page <= 20; page++) {
      const res = await events(`limit=4&page=${page}`);
      if (res.body.data.length === 0) {
        expect(res.body.meta.filtered_total).toBe(s.events.length);
        break;
      }
      seen.push(...ids(res.body));
    }
    expect(seen).toEqual(newest(s.events).map((e) => e.id));
  });

  it('narrows by type, email_id and recipient (exact, ignoring case)', async () => {
    const opens = await events('type=open&limit=100');
    expect(opens.body.meta).toEqual({ total: s.events.length, page: 1, limit: 100, filtered_total: s.events.filter((e) => e.type === 'open').length });
    expect(opens.body.data.every((e: { event_type: string }) => e.event_type === 'open')).toBe(true);

    const emailId = s.emailIds[2]!;
    const one = await events(`email_id=${emailId}&limit=100`);
    expect(ids(one.body)).toEqual(newest(s.events.filter((e) => e.email_id === emailId)).map((e) => e.id));

    const mixedCase = s.events.find((e) => /[A-Z]/.test(e.email))!;
    const byRecipient = await events(`recipient=${encodeURIComponent(mixedCase.email.toLowerCase())}&limit=100`);
    const expected = s.events.filter((e) => e.email.toLowerCase() === mixedCase.email.toLowerCase());
    expect(byRecipient.body.meta.filtered_total).toBe(expected.length);
    const partial = await events(`recipient=${encodeURIComponent(mixedCase.email.slice(0, 5))}`);
    expect(partial.body.meta.filtered_total).toBe(0);
  });

  it('narrows with filter, sorts ascending and by date range', async () => {
    const res = await events(`filter=${encodeURIComponent('event_type in [open, click], email ~ EXAMPLE.COM')}&sort=createdAt:asc&limit=100`);
    expect(res.status).toBe(200);
    const expected = newest(s.events.filter((e) => e.type === 'open' || e.type === 'click')).reverse();
    expect(ids(res.body)).toEqual(expected.map((e) => e.id));
    expect(res.body.meta.filtered_total).toBe(expected.length);

    const flowless = await events(`filter=${encodeURIComponent('flow_id = null')}&limit=1`);
    expect(flowless.body.meta.filtered_total).toBe(s.events.length);

    const ranged = await events('start_date=2026-01-11&end_date=2026-01-12&limit=100');
    const inRange = s.events.filter((e) => e.created_at >= '2026-01-11T00:00:00.000Z' && e.created_at < '2026-01-13T00:00:00.000Z');
    expect(inRange.length).toBeGreaterThan(0);
    expect(ids(ranged.body)).toEqual(newest(inRange).map((e) => e.id));
    expect(ranged.body.meta).toMatchObject({ total: s.events.length, filtered_total: inRange.length });
  });

  it.each([
    ['limit=1001', 'limit'],
    ['page=0', 'page'],
    ['type=teleport', 'type'],
    ['sort=email:asc', 'sort'],
    ['filter=type%20%3D%20open', 'filter'],
    ['end_date=2026-13-01', 'end_date'],
  ])('rejects %s with a 400 naming %s', async (query, field) => {
    const res = await events(query);
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ location: 'query', field })]));
  });

  it('returns 401 without a key and 403 for another workspace', async () => {
    const anonymous = await t.http().get(`/api/v1/workspaces/${s.ws}/emails/events`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers['x-api-style']).toBe('B');
    const other = await scenario(t.db, { responseCount: 1 });
    const denied = await events().set('X-API-Key', other.key);
    expect(denied.status).toBe(403);
  });
});
