/**
 * `/docs`: an interactive API reference (Redoc) rendered in the browser from the served OpenAPI
 * document at `/openapi.json`. Works offline: the page loads only assets this service serves
 * (`/docs/redoc.standalone.js` from the `redoc` package), no CDN, no web fonts. Public like
 * `/openapi.json` (docs/api-rules.md, "Keys and access": the description is served without a key for documentation tools).
 */
import fs from 'node:fs';
import { Router } from 'express';

const SCRIPT_PATH = '/docs/redoc.standalone.js';
const SPEC_PATH = '/openapi.json';

/** Redoc's sidebar footer ("API docs by Redocly") shows a logo from this CDN, which the page's CSP blocks. */
const REDOCLY_LOGO_URL = 'https://cdn.redoc.ly/redoc/logo-mini.svg';
/** An empty (invisible) image in its place, without double quotes: it lands in a JavaScript string. */
const NO_LOGO = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg'/%3E";

const PAGE = `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>feedback-service API reference</title>
  <style>body { margin: 0; padding: 0; }</style>
</head>
<body>
  <redoc spec-url="${SPEC_PATH}"></redoc>
  <script src="${SCRIPT_PATH}"></script>
</body>
</html>
`;

/** Redoc's bundle with the CDN logo replaced by NO_LOGO, so the page makes no request its CSP blocks. */
function offlineRedocBundle(source: string): string {
  return source.replaceAll(REDOCLY_LOGO_URL, NO_LOGO);
}

/**
 * Router mounted at `/docs` before authentication: `GET /docs` (HTML) and
 * `GET /docs/redoc.standalone.js` (JavaScript, cached for a day; read on its first request).
 * @throws Error at build time when the `redoc` package is not installed.
 */
export function docsPage(): Router {
  const bundlePath = require.resolve('redoc/bundles/redoc.standalone.js');
  let bundle: string | undefined;
  const r = Router();
  r.get('/', (_req, res) => {
    // Only same-origin assets; Redoc needs inline styles and a blob: worker for its search index. Never framed (clickjacking).
    res.setHeader(
      'Content-Security-Policy',
      "default-src 'self'; script-src 'self' blob:; worker-src 'self' blob:; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; frame-ancestors 'none'",
    );
    res.type('html').send(PAGE);
  });
  r.get('/redoc.standalone.js', (_req, res) => {
    bundle ??= offlineRedocBundle(fs.readFileSync(bundlePath, 'utf8'));
    res.setHeader('Cache-Control', 'public, max-age=86400');
    res.type('application/javascript').send(bundle);
  });
  return r;
}
