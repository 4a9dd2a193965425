/**
 * `/docs/migrating` (docs/analytics.md, "Deprecation headers"): the migration guide (docs/migrating-between-styles.md) as an
 * HTML page, public like `/docs` and served whatever the settings (the `Link` header of Style B
 * answers points here). Rendered with markdown-it, raw HTML in the Markdown disabled, so the page holds
 * no script; the CSP allows no script and no external host, and forms only to the page itself.
 *
 * Under "Translating a request" the page has a form for the translator (docs/migrating-between-styles.md,
 * "Translating a request"): it takes a Style B method and path (with its query) and shows the curl command
 * that sends them to `POST /api/v1/translate`. The page never sees a key: the command reads it from the
 * shell (`$FEEDBACK_API_KEY`). Query `method` and `request` fill the form (GET to the page itself).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { RequestHandler } from 'express';
import MarkdownIt from 'markdown-it';
import { projectRoot } from '../platform/paths';

const CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const STYLE = `body { font: 16px/1.5 system-ui, sans-serif; max-width: 60rem; margin: 0 auto; padding: 1rem; color: #1a1a1a; overflow-wrap: break-word; }
table { border-collapse: collapse; display: block; overflow-x: auto; } th, td { border: 1px solid #ccc; padding: .3rem .5rem; text-align: left; vertical-align: top; }
code { background: #f3f3f3; padding: 0 .2rem; overflow-wrap: anywhere; }
/* Long words and inline code (paths, headers) wrap, so the page fits a 360 px screen; a pre block scrolls in itself. */
pre code { overflow-wrap: normal; } pre { background: #f3f3f3; padding: .5rem; overflow-x: auto; }
form#translate { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: .5rem; align-items: center; margin: 1rem 0; }
form#translate input[type=text], form#translate select { font: inherit; padding: .2rem; width: 100%; box-sizing: border-box; }
form#translate button { grid-column: 2; justify-self: start; }
@media (max-width: 40rem) { form#translate { grid-template-columns: minmax(0, 1fr); } form#translate button { grid-column: 1; } }`;

const METHODS = ['GET', 'POST', 'PATCH', 'DELETE'];
const FORM_HEADING = '<h2>Translating a request</h2>';
const md = new MarkdownIt({ html: false, linkify: false, typographer: false });
const esc = (s: string) => md.utils.escapeHtml(s);

/** What the form was filled with (query `method`, `request`); anything else reads as empty. */
export interface TranslateFormInput {
  method?: string | undefined;
  request?: string | undefined;
}

/**
 * The curl command that sends a Style B request to the translator; the JSON goes through a quoted here-document,
 * so no character of it reaches the shell. Undefined without a request.
 */
export function translateCurl(input: TranslateFormInput): string | undefined {
  const request = (input.request ?? '').trim();
  if (request === '') return undefined;
  const method = METHODS.includes((input.method ?? '').toUpperCase()) ? input.method!.toUpperCase() : 'GET';
  const body = JSON.stringify({ method, path: request, headers: { 'X-API-Style': 'B' } });
  return [
    'curl -sS -X POST "$FEEDBACK_BASE_URL/api/v1/translate" \\',
    '  -H "X-API-Key: $FEEDBACK_API_KEY" -H "Content-Type: application/json" \\',
    "  --data-binary @- <<'STYLE_B_REQUEST'",
    body,
    'STYLE_B_REQUEST',
  ].join('\n');
}

/** The translator form and, when filled, its curl command. */
function translateForm(input: TranslateFormInput): string {
  const method = (input.method ?? 'GET').toUpperCase();
  const options = METHODS.map((m) => `<option${m === method ? ' selected' : ''}>${m}</option>`).join('');
  const curl = translateCurl(input);
  return `<form id="translate" method="get" action="/docs/migrating#translate">
<label for="translate-method">Method</label><select id="translate-method" name="method">${options}</select>
<label for="translate-request">Style B path and query</label><input type="text" id="translate-request" name="request" size="60" maxlength="4000" placeholder="/api/v1/workspaces/ws_1/responses?filter=score%20in%20%5B9%2C10%5D&amp;page=2" value="${esc(input.request ?? '')}">
<button type="submit">Show the curl command</button>
</form>
${curl === undefined ? '' : `<p>Run it with <code>FEEDBACK_BASE_URL</code> and <code>FEEDBACK_API_KEY</code> set in your shell:</p>\n<pre id="translate-curl"><code>${esc(curl)}</code></pre>\n`}`;
}

/** The page's HTML from the guide's Markdown; the translator form follows the "Translating a request" section's text. */
export function renderMigrationGuide(markdown: string, input: TranslateFormInput = {}): string {
  let body = md.render(markdown);
  const at = body.indexOf(FORM_HEADING);
  if (at >= 0) {
    const next = body.indexOf('<h2', at + FORM_HEADING.length);
    const end = next < 0 ? body.length : next;
    body = `${body.slice(0, end)}${translateForm(input)}${body.slice(end)}`;
  }
  return `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Migrating between Style A and Style B · feedback-service</title>
  <style>${STYLE}</style>
</head>
<body>
<main>
${body}</main>
</body>
</html>
`;
}

const text = (v: unknown) => (typeof v === 'string' ? v : undefined);

/**
 * Handler for `GET /docs/migrating`. The guide is read on the first request (a build without docs/ still
 * starts; that request then answers 500) and rendered per request (the form shows what was asked).
 */
export function migrationGuidePage(): RequestHandler {
  let markdown: string | undefined;
  return (req, res) => {
    markdown ??= fs.readFileSync(path.join(projectRoot(), 'docs', 'migrating-between-styles.md'), 'utf8');
    const query = req.query as Record<string, unknown>;
    res.setHeader('Content-Security-Policy', CSP);
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.type('html').send(renderMigrationGuide(markdown, { method: text(query.method), request: text(query.request) }));
  };
}
