import { useTestApp } from '../../support/app';

const t = useTestApp();

describe('/docs', () => {
  it('serves an HTML page without a key that loads only local assets and the served OpenAPI document', async () => {
    const res = await t.http().get('/docs');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain('spec-url="/openapi.json"');
    expect(res.text).toContain('src="/docs/redoc.standalone.js"');
    const urls = [...res.text.matchAll(/(?:src|href|spec-url)="([^"]+)"/g)].map((m) => m[1]!);
    expect(urls.length).toBeGreaterThan(0);
    for (const url of urls) expect(url).toMatch(/^\/[^/]/);
    expect(res.text).not.toMatch(/https?:\/\//);
  });

  it('serves the Redoc bundle with a JavaScript content type', async () => {
    const res = await t.http().get('/docs/redoc.standalone.js');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^(application|text)\/javascript/);
    expect(Number(res.headers['content-length'])).toBeGreaterThan(100_000);
    expect(res.headers['cache-control']).toBe('public, max-age=86400');
  });

  it('serves a Redoc bundle that loads nothing from a CDN (its footer logo is an inline empty image)', async () => {
    const res = await t
      .http()
      .get('/docs/redoc.standalone.js')
      .buffer(true)
      .parse((r, done) => {
        let text = '';
        r.setEncoding('utf8');
        r.on('data', (chunk: string) => (text += chunk));
        r.on('end', () => done(null, text));
      });
    const bundle = res.body as string;
    expect(bundle).not.toContain('cdn.redoc.ly');
    expect(bundle).toContain(`src:"data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg'/%3E"`);
  });

  it('serves the document the page points at', async () => {
    const res = await t.http().get('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toMatch(/^3\.0/);
  });
});
