"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.TEMPLATES_DIR = void 0;
exports.createPageRenderer = createPageRenderer;
/**
 * Server-side rendering of the hosted pages with Eta (autoEscape on: every `<%= %>` is HTML-escaped;
 * only the layout inserts trusted markup with `<%~ %>`). Templates are the `.eta` files in
 * `src/pages/templates`, found from the project root so the built `dist/` uses the same files.
 *
 * The stylesheet is inlined and allowed by its SHA-256 hash in the Content-Security-Policy, so the
 * pages load nothing from anywhere (no scripts at all, no external hosts).
 */
const node_crypto_1 = require("node:crypto");
const node_fs_1 = __importDefault(require("node:fs"));
const node_path_1 = __importDefault(require("node:path"));
const eta_1 = require("eta");
const paths_1 = require("../platform/paths");
exports.TEMPLATES_DIR = node_path_1.default.join((0, paths_1.projectRoot)(), 'src', 'pages', 'templates');
function createPageRenderer() {
    const eta = new eta_1.Eta({ views: exports.TEMPLATES_DIR, autoEscape: true, cache: true });
    const css = node_fs_1.default.readFileSync(node_path_1.default.join(exports.TEMPLATES_DIR, 'page.css'), 'utf8').trim();
    const cssHash = (0, node_crypto_1.createHash)('sha256').update(css, 'utf8').digest('base64');
    const csp = [
        "default-src 'none'",
        `style-src 'sha256-${cssHash}'`,
        "img-src 'self'",
        "form-action 'self'",
        "base-uri 'none'",
        "frame-ancestors 'none'",
    ].join('; ');
    return {
        csp,
        send(res, status, template, data) {
            const html = eta.render(`./${template}`, { ...data, css });
            res.status(status);
            res.setHeader('Content-Security-Policy', csp);
            res.setHeader('X-Content-Type-Options', 'nosniff');
            res.setHeader('Referrer-Policy', 'no-referrer');
            // Pages hold one-time tokens (and, from a link, the link's token): never cache them.
            res.setHeader('Cache-Control', 'no-store');
            res.type('html').send(html);
        },
    };
}
//# sourceMappingURL=render.js.map