/**
 * One wording for messages about a value (issue 26 item 6; docs/api-rules.md, "Errors"): `` `field` must be <what>;
 * got <value>. `` with the range or the allowed values, whether the validator (express-openapi-validator, from
 * openapi/) or our own checks refused it. Before, `limit` read four ways ("must be >= 1", "must be integer", …).
 */
import { useTestApp } from '../../support/app';
import { scenario, type Scenario } from '../../support/given';

const t = useTestApp();
let s: Scenario;
beforeAll(async () => {
  s = await scenario(t.db, { responseCount: 2 });
});

const ws = () => `/api/v1/workspaces/${s.ws}`;
const details = async (req: Promise<{ status: number; body: { error?: { details?: unknown } } }>) => {
  const res = await req;
  return [res.status, res.body.error?.details];
};
const query = (location: string, field: string, message: string) => [400, [{ location, field, message }]];

describe('validation messages: one wording with the range and the value received', () => {
  it.each([
    ['/forms?limit=0', 'limit', '`limit` must be an integer from 1 to 100; got "0".'],
    ['/forms?limit=abc', 'limit', '`limit` must be an integer from 1 to 100; got "abc".'],
    ['/email-events?limit=500', 'limit', '`limit` must be an integer from 1 to 100; got "500".'],
    ['/tables/{table}/entries?limit=5000', 'limit', '`limit` must be an integer from 1 to 1000; got "5000".'],
    ['/tables/{table}/entries?page=0', 'page', '`page` must be an integer from 1 to 2147483647; got "0".'],
    ['/responses?score_gte=x', 'score_gte', '`score_gte` must be a number; got "x".'],
    ['/responses?score_in=1&score_in=x', 'score_in', '`score_in` (value 2) must be a number; got "x".'],
    ['/forms/{nps}/analytics/timeseries?interval=quarter', 'interval', '`interval` must be one of day, week, month, year; got "quarter".'],
    [
      '/responses?created_after=yesterday',
      'created_after',
      '`created_after` must be a date YYYY-MM-DD or an ISO 8601 date-time with an offset; got "yesterday".',
    ],
  ])('GET %s names %s', async (path, field, message) => {
    const url = ws() + path.replace('{table}', s.table).replace('{nps}', s.nps);
    expect(await details(t.http().get(url).set('X-API-Key', s.key))).toEqual(query('query', field, message));
  });

  it('words body values the same way: enum, length, integer range, a column type', async () => {
    const post = (path: string, body: object) =>
      t
        .http()
        .post(ws() + path)
        .set('X-API-Key', s.key)
        .send(body);
    expect(await details(post('/webhook-endpoints', { url: 'https://hooks.example.com/x', events: ['nope'] }))).toEqual(
      query(
        'body',
        'events[0]',
        '`events[0]` must be one of response.created, row.created, row.updated, row.deleted, email_event.created, response.deleted, respondent.erased; got "nope".',
      ),
    );
    expect(await details(post('/api-keys', { name: 'k', rate_limit_per_minute: 0 }))).toEqual(
      query('body', 'rate_limit_per_minute', '`rate_limit_per_minute` must be an integer from 1 to 100000; got 0.'),
    );
    expect(await details(post('/api-keys', { name: '' }))).toEqual(query('body', 'name', '`name` must be a string of 1 to 100 characters; got "".'));
    expect(await details(post(`/datatables/${s.table}/rows`, { data: { id: 'a', seats: 'many' } }))).toEqual(
      query('body', 'data.seats', '`data.seats` must be a number (column type number); got "many".'),
    );
  });
});
