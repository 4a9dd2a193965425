/**
 * `GET /favicon.ico`: the service's icon, which browsers ask for on every page they open (the hosted
 * form pages, `/docs`, `/docs/migrating`). Mounted before authentication like the probes: no key, and
 * outside the rate limits and the missing-key budget, so opening a page never logs a 401 in the browser's
 * console nor spends the visitor's address budget (docs/collecting.md, "Hosted pages").
 */
import type { RequestHandler } from 'express';

export const FAVICON_PATH = '/favicon.ico';

/** A 32×32 PNG in an ICO container (286 bytes): a white speech bubble on a blue rounded square. */
const ICON = Buffer.from(
  'AAABAAEAICAAAAEAIAAIAQAAFgAAAIlQTkcNChoKAAAADUlIRFIAAAAgAAAAIAgGAAAAc3p69AAAAM9JREFUeNpjUE1+zYCEFVSTX/erJr8+r5r8+j+V8Xmo2QrIdiJbnqCa/Po9DSxGx++hdqE4IIEOFqPjBJgDFOjkc2whocAAjZf/A4T7GWiU4IhOmAwDaDkY43WAX8P7/7vP/fxPLgDpBZlBlgNAGj9+/fefUgAyA58jcDqAEp9jCwmSHUBtMOqAUQeMOmDoOWDAC6IBL4oHvDIilCbWHv1B++oYlwOoZTlZDqCm5SQ7gNqWk+QAWlgOc8CAN0oHvFk+4B2TAe+aDYrO6YB1zwHhC04RCJL1mQAAAABJRU5ErkJggg==',
  'base64',
);

/** Cached for a week: the icon changes only with a release. */
const MAX_AGE_SECONDS = 7 * 24 * 3600;

/** Handler answering 200 `image/x-icon` with the icon. */
export function favicon(): RequestHandler {
  return (_req, res) => {
    res.setHeader('Cache-Control', `public, max-age=${MAX_AGE_SECONDS}`);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.type('image/x-icon').send(ICON);
  };
}
