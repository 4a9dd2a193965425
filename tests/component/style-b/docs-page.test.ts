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
  });

  it('serves the document the page points at', async () => {
    const res = await t.http().get('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toMatch(/^3\.0/);
  });
});
