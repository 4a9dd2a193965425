"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.docsPage = docsPage;
/**
 * `/docs`: an interactive API reference (Redoc) rendered in the browser from the served OpenAPI
 * document at `/openapi.json`. Works offline: the page loads only assets this service serves
 * (`/docs/redoc.standalone.js` from the `redoc` package), no CDN, no web fonts. Public like
 * `/openapi.json` (CONTRACT section 3: the description is served without a key for documentation tools).
 */
const express_1 = require("express");
const SCRIPT_PATH = '/docs/redoc.standalone.js';
const SPEC_PATH = '/openapi.json';
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
/**
 * Router mounted at `/docs` before authentication: `GET /docs` (HTML) and
 * `GET /docs/redoc.standalone.js` (JavaScript, cached for a day).
 * @throws Error at build time when the `redoc` package is not installed.
 */
function docsPage() {
    const bundle = require.resolve('redoc/bundles/redoc.standalone.js');
    const r = (0, express_1.Router)();
    r.get('/', (_req, res) => {
        // Only same-origin assets; Redoc needs inline styles and a blob: worker for its search index.
        res.setHeader('Content-Security-Policy', "default-src 'self'; script-src 'self' blob:; worker-src 'self' blob:; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'");
        res.type('html').send(PAGE);
    });
    r.get('/redoc.standalone.js', (_req, res) => {
        res.type('application/javascript');
        res.sendFile(bundle, { maxAge: '1d' });
    });
    return r;
}
//# sourceMappingURL=docs-page.js.map