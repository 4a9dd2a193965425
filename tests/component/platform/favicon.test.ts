/**
 * `GET /favicon.ico` (docs/collecting.md, "Hosted pages"; docs/operations.md, "Probes"): the icon browsers
 * ask for on every page, served without a key and outside the rate limits and the missing-key budget.
 */
import { useTestApp } from '../../support/app';

// A missing-key budget of 2 per address: the icon must not spend it.
const t = useTestApp({ authFailuresPerMinute: 2 });

describe('GET /favicon.ico', () => {
  it('answers 200 image/x-icon without a key, cached for a week, and never spends the missing-key budget', async () => {
    const http = t.http();
    for (let i = 0; i < 4; i++) {
      const res = await http.get('/favicon.ico');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('image/x-icon');
      expect(res.headers['cache-control']).toBe('public, max-age=604800');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['x-ratelimit-limit']).toBeUndefined();
      // An ICO header (reserved 0, type 1 icon, one image) holding a PNG.
      expect((res.body as Buffer).subarray(0, 6)).toEqual(Buffer.from([0, 0, 1, 0, 1, 0]));
      expect((res.body as Buffer).subarray(22, 26)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    }
    expect((await http.head('/favicon.ico')).status).toBe(200);

    // The whole budget of 2 is still there after the icon's 5 requests.
    const first = await http.get('/api/v1/workspaces');
    expect(first.status).toBe(401);
    expect(first.body.error.code).toBe('invalid_api_key');
    expect(first.headers['x-ratelimit-limit']).toBe('2');
    expect(first.headers['x-ratelimit-remaining']).toBe('1');
    expect((await http.get('/api/v1/workspaces')).status).toBe(401);
    expect((await http.get('/api/v1/workspaces')).status).toBe(429);
    // Past the budget, the icon is still served.
    expect((await http.get('/favicon.ico')).status).toBe(200);
  });
});
