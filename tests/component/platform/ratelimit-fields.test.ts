/**
 * The IETF rate-limit fields (issue 32 item 2; draft-ietf-httpapi-ratelimit-headers-11, docs/writes-keys-limits.md,
 * "Rate limits"): every counted answer carries `RateLimit-Policy` and `RateLimit` beside the X-RateLimit-* headers, and
 * a structured-field parser reads from them what the X- headers say, for each budget (key, address, submission), on
 * success, error and 429 answers; openapi/ declares them wherever it declares the X- ones.
 */
import { parseList } from 'structured-headers';
import { useTestApp } from '../../support/app';
import { formWorkspace, goodAnswers, workspaceWithKey } from '../../support/given';
import { expectIetfRateLimitHeaders } from '../../support/headers';
import { declaredHeaderProblems, documentOperations } from '../../support/openapi-ops';

const t = useTestApp({ authFailuresPerMinute: 5, submissionsPerMinute: 2 });

describe('RateLimit-Policy and RateLimit', () => {
  it('say what X-RateLimit-* say for a key, request after request, up to and in the 429', async () => {
    const { ws, key } = await workspaceWithKey(t.db, { rateLimitPerMinute: 3 });
    const get = () => t.http().get(`/api/v1/workspaces/${ws}`).set('X-API-Key', key);
    const seen: string[] = [];
    for (const status of [200, 200, 200, 429]) {
      const res = await get();
      expect(res.status).toBe(status);
      expectIetfRateLimitHeaders(res.headers, 'key');
      expect(res.headers['ratelimit-policy']).toBe('"key";q=3;w=60');
      seen.push(String(parseList(res.headers['ratelimit'] as string)[0]![1].get('r')));
      expect(declaredHeaderProblems('GET', '/api/v1/workspaces/{workspace_id}', res.status, res.headers)).toEqual([]);
    }
    expect(seen).toEqual(['2', '1', '0', '0']);
  });

  it('name the address budget on a 401 without a key', async () => {
    const res = await t.http().get('/api/v1/workspaces');
    expect(res.status).toBe(401);
    expectIetfRateLimitHeaders(res.headers, 'address');
    expect(res.headers['ratelimit-policy']).toBe('"address";q=5;w=60');
    expect(declaredHeaderProblems('GET', '/api/v1/workspaces', 401, res.headers)).toEqual([]);
  });

  it('name the submission budget on a public submission', async () => {
    const f = await formWorkspace(t.db);
    const res = await t.http().post(`/api/v1/forms/${f.form}/submissions`).send({ answers: goodAnswers() });
    expect(res.status).toBe(201);
    expectIetfRateLimitHeaders(res.headers, 'submission');
    expect(res.headers['ratelimit-policy']).toBe('"submission";q=2;w=60');
    expect(declaredHeaderProblems('POST', '/api/v1/forms/{form_id}/submissions', 201, res.headers)).toEqual([]);
  });

  it('are declared in openapi/ for every status that declares X-RateLimit-Limit', () => {
    const missing = documentOperations().flatMap((op) =>
      Object.entries(op.responseHeaders)
        .filter(([, headers]) => 'x-ratelimit-limit' in headers && !('ratelimit-policy' in headers && 'ratelimit' in headers))
        .map(([status]) => `${op.method} ${op.template} ${status}`),
    );
    expect(missing).toEqual([]);
  });
});
