/**
 * Headers every answer carries against content sniffing and caching of API data (docs/api-rules.md,
 * "Headers on every answer"): `X-Content-Type-Options: nosniff` on every answer of the service, and
 * `Cache-Control: no-store` on every answer under `/api/` (errors, 401s and 404s included), set before any
 * other step so no path can miss them. A handler may still choose its own `Cache-Control`: the form schema
 * answers `private, no-cache`, so a client may keep it and revalidate it with its ETag (304).
 */
import type { RequestHandler } from 'express';

export function securityHeaders(): RequestHandler {
  return (req, res, next) => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    if (req.path.startsWith('/api/')) res.setHeader('Cache-Control', 'no-store');
    next();
  };
}
