/**
 * Sets `req.style` and the `X-API-Style` response header (docs/migrating-between-styles.md, "How the style is chosen"). `provisionalStyle`
 * runs first so even a 401 carries the header; `styleSelection` runs after the auth checks with the
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

export function styleSelection(): RequestHandler {
  return (req, res, next) => {
    req.style = selectStyle(req.path, req.get('X-API-Style'), req.query as Record<string, unknown>, req.auth?.style ?? 'A');
    res.setHeader('X-API-Style', req.style);
    next();
  };
}
