/**
 * A Style B responses list translated by `POST /api/v1/translate` (docs/migrating-between-styles.md) and the Style A
 * request it answers, sent: the ids of the rows that request returns (tests that check a translation returns the
 * same rows as Style B).
 */
import type supertest from 'supertest';

export async function translatedResponseIds(http: () => supertest.Agent, w: { ws: string; key: string }, filter: string): Promise<string[]> {
  const tr = await http()
    .post('/api/v1/translate')
    .set('X-API-Key', w.key)
    .send({ method: 'GET', path: `/api/v1/workspaces/${w.ws}/responses`, query: { filter, limit: '100' }, headers: { 'X-API-Style': 'B' } });
  expect({ status: tr.status, error: tr.body.error }).toEqual({ status: 200, error: undefined });
  const request = tr.body.data.request as { path: string; query: Record<string, string | string[]>; headers: Record<string, string> };
  const pairs = Object.entries(request.query).flatMap(([k, v]) =>
    (Array.isArray(v) ? v : [v]).map((one) => `${encodeURIComponent(k)}=${encodeURIComponent(one)}`),
  );
  const res = await http()
    .get(`${request.path}?${pairs.join('&')}`)
    .set('X-API-Key', w.key)
    .set(request.headers);
  expect({ status: res.status, error: res.body.error }).toEqual({ status: 200, error: undefined });
  return (res.body.data as Array<{ id: string }>).map((r) => r.id);
}
