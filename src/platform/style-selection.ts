/**
 * Sets `req.style` and the `X-API-Style` response header (docs/migrating-between-styles.md, "How the style is chosen"). `provisionalStyle`
 * runs first so even a 401 carries the header; `keyStyle` corrects it once the key is known, so a 403 or 404 before
 * validation names the style the key would be answered in; `styleSelection` runs after the access checks with the
 * key's default style and may reject a bad header or mixed parameters (400).
 */
import type { RequestHandler } from 'express';
import { pathStyle, selectStyle, type Style } from './style';

export function provisionalStyle(): RequestHandler {
  return (req, res, next) => {
    const fixed = pathStyle(req.path);
    let style: Style = fixed === 'A' || fixed === 'B' ? fixed : 'A';
    if (fixed !== 'A' && fixed !== 'B') {
      const h = req.get('X-API-Style')?.trim().toUpperCase();
      if (h === 'A' || h === 'B') style = h;
    }
    req.style = style;
    res.setHeader('X-API-Style', style);
    next();
  };
}

/**
 * After authentication: the header names the style of the request as styleSelection will choose it, so an answer
 * before that step (403 workspace_access_denied, 403 insufficient_scope, 404, 405) carries the key's default style
 * on a shared path. A request styleSelection will refuse (a bad header, parameters of both styles) keeps the
 * provisional style: its 400 comes later, after the access checks (docs/api-rules.md, "Order of checks").
 */
export function keyStyle(): RequestHandler {
  return (req, res, next) => {
    if (req.auth) {
      try {
        req.style = selectStyle(req.path, req.get('X-API-Style'), req.query as Record<string, unknown>, req.auth.style);
        res.setHeader('X-API-Style', req.style);
      } catch {
        // Reported by styleSelection, in its place in the order of checks.
      }
    }
    next();
  };
}

export function styleSelection(): RequestHandler {
  return (req, res, next) => {
    req.style = selectStyle(req.path, req.get('X-API-Style'), req.query as Record<string, unknown>, req.auth?.style ?? 'A');
    res.setHeader('X-API-Style', req.style);
    next();
  };
}
