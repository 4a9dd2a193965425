"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.renderMigrationGuide = renderMigrationGuide;
exports.migrationGuidePage = migrationGuidePage;
/**
 * `/docs/migrating` (CONTRACT section 15): the migration guide (docs/migrating-between-styles.md) as an
 * HTML page, public like `/docs` and served whatever the settings (the `Link` header of Style B
 * answers points here). Rendered once with markdown-it, raw HTML in the Markdown disabled, so the
 * page holds no script; the CSP allows no script and no external host.
 */
const node_fs_1 = __importDefault(require("node:fs"));
const node_path_1 = __importDefault(require("node:path"));
const markdown_it_1 = __importDefault(require("markdown-it"));
const paths_1 = require("./paths");
const CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
const STYLE = `body { font: 16px/1.5 system-ui, sans-serif; max-width: 60rem; margin: 0 auto; padding: 1rem; color: #1a1a1a; }
table { border-collapse: collapse; display: block; overflow-x: auto; } th, td { border: 1px solid #ccc; padding: .3rem .5rem; text-align: left; vertical-align: top; }
code { background: #f3f3f3; padding: 0 .2rem; } td code { overflow-wrap: anywhere; } pre { background: #f3f3f3; padding: .5rem; overflow-x: auto; }`;
/** The page's HTML from the guide's Markdown. */
function renderMigrationGuide(markdown) {
    const md = new markdown_it_1.default({ html: false, linkify: false, typographer: false });
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
${md.render(markdown)}</main>
</body>
</html>
`;
}
/**
 * Handler for `GET /docs/migrating`. The guide is read and rendered on the first request (a build
 * without docs/ still starts; that request then answers 500).
 */
function migrationGuidePage() {
    let html;
    return (_req, res) => {
        html ??= renderMigrationGuide(node_fs_1.default.readFileSync(node_path_1.default.join((0, paths_1.projectRoot)(), 'docs', 'migrating-between-styles.md'), 'utf8'));
        res.setHeader('Content-Security-Policy', CSP);
        res.setHeader('Cache-Control', 'public, max-age=300');
        res.type('html').send(html);
    };
}
//# sourceMappingURL=migration-guide-page.js.map