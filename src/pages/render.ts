/**
 * Server-side rendering of the hosted pages with Eta (autoEscape on: every `<%= %>` is HTML-escaped;
 * only the layout inserts trusted markup with `<%~ %>`). Templates are the `.eta` files in
 * `src/pages/templates`, found from the project root so the built `dist/` uses the same files.
 *
 * The stylesheet is inlined and allowed by its SHA-256 hash in the Content-Security-Policy, so the
 * pages load nothing from anywhere (no scripts at all, no external hosts).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Response } from 'express';
import { Eta } from 'eta';
import { projectRoot } from '../platform/paths';

export const TEMPLATES_DIR = path.join(projectRoot(), 'src', 'pages', 'templates');

export interface PageRenderer {
  /** Sends `template` rendered with `data` (plus the stylesheet) as an HTML answer with `status`. */
  send<T extends { readonly lang: string }>(res: Response, status: number, template: 'form' | 'thanks' | 'message' | 'dashboard', data: T): void;
  /** The Content-Security-Policy every page carries. */
  readonly csp: string;
}

export function createPageRenderer(): PageRenderer {
  const eta = new Eta({ views: TEMPLATES_DIR, autoEscape: true, cache: true });
  const css = fs.readFileSync(path.join(TEMPLATES_DIR, 'page.css'), 'utf8').trim();
  const cssHash = createHash('sha256').update(css, 'utf8').digest('base64');
  const csp = ["default-src 'none'", `style-src 'sha256-${cssHash}'`, "img-src 'self'", "form-action 'self'", "base-uri 'none'", "frame-ancestors 'none'"].join(
    '; ',
  );
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
