/**
 * The style of a request (docs/migrating-between-styles.md, "How the style is chosen"), decided once and kept in the request
 * context (platform/request-context.ts):
 * - `decideStyle`, called by authentication as soon as the key is known (before its rate limit), sets `context.style` from the
 *   path's `x-style`, the header, the style-only parameters and the key's default; a request the rules refuse (a bad header,
 *   parameters of both styles) keeps `context.styleError` instead;
 * - `reportStyleError`, after the access checks, throws that error in its place in the order of checks (docs/api-rules.md);
 * - `answerStyle` is the style an answer is written in: the decided one, else (before the key is known: a 401, a page)
 *   the path's own style, the header's, or A;
 * - `styleHeaders` writes it as `X-API-Style` on every answer, with the Style B deprecation headers, when the head is
 *   written (platform/answer-hooks.ts).
 */
import type { Request, RequestHandler, Response } from 'express';
import { addDeprecationHeaders, type DeprecationHeaders } from './deprecation';
import { selectStyle, styleBeforeKey, type Style } from './style';

/** Decides the style of a request whose key is known (`context.auth`); called once, by apiKeyAuth. */
export function decideStyle(req: Request): void {
  const ctx = req.context;
  if (!ctx.auth) return;
  try {
    ctx.style = selectStyle(ctx.match?.style, req.get('X-API-Style'), req.query as Record<string, unknown>, ctx.auth.style);
  } catch (err) {
    // Reported by reportStyleError, in its place in the order of checks; until then the answer keeps the style before the key.
    ctx.styleError = err as Error;
  }
}

/** Throws the style's 400 (a bad `X-API-Style`, parameters of both styles) after the access checks. */
export function reportStyleError(): RequestHandler {
  return (req, _res, next) => {
    if (req.context.styleError) throw req.context.styleError;
    next();
  };
}

/** The style this request's answer is written in. */
export function answerStyle(req: Request): Style {
  const ctx = req.context;
  return ctx.style ?? styleBeforeKey(ctx.match?.style, req.get('X-API-Style'));
}

/**
 * The head hook of the app (installAnswerHooks): `X-API-Style` on every answer, errors included, and on a Style B answer
 * the deprecation headers when a sunset is set (docs/analytics.md, "Deprecation headers").
 */
export function styleHeaders(deprecation: DeprecationHeaders | undefined): (req: Request, res: Response) => void {
  return (req, res) => {
    const style = answerStyle(req);
    res.setHeader('X-API-Style', style);
    if (style === 'B' && deprecation) addDeprecationHeaders(res, deprecation);
  };
}
